"""Choosing between tensors elementwise: where, maximum, minimum."""
from ..function import Function
from ..tensor import Tensor, tensor_method
from ..promotion import cast_all
from .common import operands
from . import rules


class Where(Function):
    node_name = "WhereBackward0"

    @staticmethod
    def forward(ctx, cond, a, b):
        if cond._data.dtype.kind != "b":
            raise RuntimeError(f"where: the condition must be a bool tensor, got {cond.dtype}; "
                               "build it with a comparison, e.g. labkit.where(x > 0, x, 0).")
        ctx.save_for_backward(cond)
        xp = cond.device.xp
        dt, (x, y) = cast_all(a, b)
        return xp.where(cond._data, xp.asarray(x, dtype=dt), xp.asarray(y, dtype=dt))

    @staticmethod
    def backward(ctx, grad):
        (cond,) = ctx.saved_tensors
        need = ctx.needs_input_grad
        zero = grad * 0
        ga = where(cond, grad, zero) if need[1] else None
        gb = where(cond, zero, grad) if need[2] else None
        return None, ga, gb

    @staticmethod
    def jvp(args, tangents, out):
        (cond, a, b), (_, ta, tb) = args, tangents
        if ta is None and tb is None:
            return None
        return rules.fit(where(cond, 0.0 if ta is None else ta, 0.0 if tb is None else tb), out)

    vmap = classmethod(rules.elementwise)


class Maximum(Function):
    """Elementwise max; where both are equal the gradient is split in half (as in torch)."""
    node_name = "MaximumBackward0"
    pick = "maximum"

    @classmethod
    def forward(cls, ctx, a, b):
        ctx.save_for_backward(a, b)
        x, y = operands(a, b)
        return getattr(a.device.xp, cls.pick)(x, y)

    @classmethod
    def backward(cls, ctx, grad):
        a, b = ctx.saved_tensors
        wins = (a > b) if cls.pick == "maximum" else (a < b)
        share = wins * 1.0 + (a == b) * 0.5
        need = ctx.needs_input_grad
        return (grad * share if need[0] else None), (grad * (1 - share) if need[1] else None)

    @classmethod
    def jvp(cls, args, tangents, out):
        (a, b), (ta, tb) = args, tangents        # the winner's tangent; the mean at a tie
        wins = (a > b) if cls.pick == "maximum" else (a < b)
        share = wins * 1.0 + (a == b) * 0.5
        return rules.fit(rules.total(rules.times(ta, share), rules.times(tb, 1 - share)), out)

    vmap = classmethod(rules.elementwise)


class Minimum(Maximum):
    node_name = "MinimumBackward0"
    pick = "minimum"


def where(condition, input, other):
    """input where condition is True, else other; either may be a Python number."""
    if not isinstance(condition, Tensor):
        raise TypeError(f"where(): condition must be a labkit bool tensor, got "
                        f"{type(condition).__name__}. Build it with a comparison, e.g. x > 0.")
    return Where.apply(condition, input, other)


@tensor_method("maximum")
def maximum(a, b):
    return Maximum.apply(a, b)


@tensor_method("minimum")
def minimum(a, b):
    return Minimum.apply(a, b)


@tensor_method("where")
def _where_method(self, condition, other):
    return where(condition, self, other)
