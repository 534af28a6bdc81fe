"""Choosing between tensors elementwise: where, maximum, minimum."""
from ..function import Function
from ..tensor import Tensor, tensor_method
from ..promotion import cast_all, number_bound, result_np
from .common import operands, require_tensor
from .table import Numpy
from . import rules


class Where(Function):
    node_name = "WhereBackward0"
    arity, elementwise = 3, True
    cuda, onnx = "({0} ? {1} : {2})", "Where"

    @staticmethod
    def forward(ctx, cond, a, b):
        if cond._data.dtype.kind != "b":
            raise RuntimeError(f"where: the condition must be a bool tensor, got {cond.dtype}; "
                               "build it with a comparison, e.g. labkit.where(x > 0, x, 0).")
        ctx.save_for_backward(cond)
        xp = cond.device.xp
        dt = result_np(a, b)              # a Python number must fit an integer result (torch)
        dt, (x, y) = cast_all(number_bound(dt, a), number_bound(dt, b))  # and stays a number:
        # no copy to a GPU
        out = xp.where(cond._data, x, y)
        return out if out.dtype == dt else out.astype(dt)

    @staticmethod
    def backward(ctx, grad):
        (cond,) = ctx.saved_tensors
        need = ctx.needs_input_grad
        # a literal 0, not grad * 0: a nan gradient on the side not taken must not leak
        ga = where(cond, grad, 0.0) if need[1] else None
        gb = where(cond, 0.0, grad) if need[2] else None
        return None, ga, gb

    @staticmethod
    def jvp(args, tangents, out):
        cond, (_, ta, tb) = args[0], tangents
        if ta is None and tb is None:
            return None
        return rules.fit(where(cond, 0.0 if ta is None else ta, 0.0 if tb is None else tb), out)

    vmap = classmethod(rules.elementwise)


class Maximum(Function):
    """Elementwise max; where both are equal the gradient is split in half (as in torch)."""
    node_name = "MaximumBackward0"
    arity, elementwise = 2, True
    numpy, cuda, onnx = Numpy("maximum({0}, {1}, out={out})"), "max({0}, {1})", "Max"
    pick = "maximum"

    @classmethod
    def forward(cls, ctx, a, b):
        ctx.save_for_backward(a, b)
        x, y = operands(a, b)
        return getattr(a.device.xp, cls.pick)(x, y)

    @classmethod
    def backward(cls, ctx, grad):
        a, b = ctx.saved_tensors
        loses_a, loses_b = (a < b, a > b) if cls.pick == "maximum" else (a > b, a < b)
        half = where(a == b, 0.5, 1.0)   # as torch: where a or b is nan, both get the gradient
        need = ctx.needs_input_grad
        # where, not a product: a nan gradient stays out of the input that lost (as torch)
        ga = where(loses_a, 0.0, grad * half) if need[0] else None
        gb = where(loses_b, 0.0, grad * half) if need[1] else None
        return ga, gb

    @classmethod
    def jvp(cls, args, tangents, out):
        (a, b), (ta, tb) = args, tangents        # the winner's tangent; the mean at a tie
        wins = (a > b) if cls.pick == "maximum" else (a < b)
        share = wins * 1.0 + (a == b) * 0.5
        return rules.fit(rules.total(rules.times(ta, share), rules.times(tb, 1 - share)), out)

    vmap = classmethod(rules.elementwise)


class Minimum(Maximum):
    node_name = "MinimumBackward0"
    numpy, cuda, onnx = Numpy("minimum({0}, {1}, out={out})"), "min({0}, {1})", "Min"
    pick = "minimum"


def where(condition, input, other):
    """input where condition is True, else other; either may be a Python number."""
    if not isinstance(condition, Tensor):
        raise TypeError(f"where(): condition must be a labkit bool tensor, got "
                        f"{type(condition).__name__}. Build it with a comparison, e.g. x > 0.")
    return Where.apply(condition, input, other)


@tensor_method("maximum")
def maximum(a, b):
    require_tensor("maximum", a, 1)
    require_tensor("maximum", b, 2)
    return Maximum.apply(a, b)


@tensor_method("minimum")
def minimum(a, b):
    require_tensor("minimum", a, 1)
    require_tensor("minimum", b, 2)
    return Minimum.apply(a, b)


@tensor_method("where")
def _where_method(self, condition, other):
    return where(condition, self, other)
