"""gcd and lcm of integer tensors, elementwise with torch's promotion and broadcasting (the
result is never negative; gcd(0, 0) = 0, lcm(0, n) = 0); not for floats or bools."""
from ..function import Function
from ..promotion import cast_all
from ..tensor import Tensor, tensor_method
from . import rules
from .bitwise_inplace import store_inplace


class _IntegerPair(Function):
    arity, elementwise = 2, True

    @classmethod
    def forward(cls, ctx, a, b):
        dt, (x, y) = cast_all(a, b)
        if dt.kind not in "iu":
            from ..dtype import from_np
            raise NotImplementedError(f'"{cls.op_name}_cpu" not implemented for '
                                      f"{from_np(dt)}: {cls.op_name} works on integer "
                                      "tensors; convert first, e.g. x.long().")
        out = getattr(a.device.xp, cls.op_name)(x, y)
        return a.device.xp.asarray(out).astype(dt, copy=False)

    vmap = classmethod(rules.elementwise)


class Gcd(_IntegerPair):
    op_name = "gcd"


class Lcm(_IntegerPair):
    op_name = "lcm"


def _bind(cls):
    def op(input, other):
        if not isinstance(other, Tensor):
            raise TypeError(f"{cls.op_name}(): argument 'other' (position 2) must be Tensor, "
                            f"not {type(other).__name__}")
        return cls.apply(input, other)

    def op_(input, other):
        return store_inplace(cls.op_name + "_", input, op(input, other))
    op.__name__, op_.__name__ = cls.op_name, cls.op_name + "_"
    tensor_method(cls.op_name)(op)
    tensor_method(cls.op_name + "_")(op_)
    return op, op_


gcd, gcd_ = _bind(Gcd)
lcm, lcm_ = _bind(Lcm)
