"""torch.div(a, b, rounding_mode=): None is true division; "floor" rounds the quotient down
(Python's a // b, exact even where floor(a / b) rounds up) and "trunc" toward zero. Integer
inputs stay integer; the gradient is zero (a step function), as torch's DivBackward2."""
from ..creation import zeros_like
from ..function import Function
from ..tensor import Tensor
from ..promotion import result_np
from .common import operands
from .math import _check_not_bool, _int_zero_check, _quiet

MODES = (None, "trunc", "floor")


class DivRounded(Function):
    node_name = "DivBackward2"

    @staticmethod
    def forward(ctx, a, b, mode):
        _check_not_bool("div", a, b)
        _int_zero_check("div", a, b)
        xp = (a if isinstance(a, Tensor) else b).device.xp
        dt = result_np(a, b)                         # torch's promotion (python numbers weak)
        if dt.kind == "b":                           # bool / bool: torch computes in int64
            dt = xp.dtype("int64")
        x, y = (xp.asarray(v, dtype=dt) for v in operands(a, b))
        with _quiet(xp):
            if mode == "floor":
                return xp.asarray(xp.floor_divide(x, y))
            if x.dtype.kind in "iu":                 # exact: floor, then one step toward zero
                q = xp.floor_divide(x, y)
                return xp.asarray(q + ((xp.remainder(x, y) != 0) & ((x < 0) != (y < 0))))
            return xp.asarray(xp.trunc(xp.true_divide(x, y)))

    @staticmethod
    def backward(ctx, grad):
        need = ctx.needs_input_grad
        return (zeros_like(grad) if need[0] else None), \
            (zeros_like(grad) if need[1] else None), None


def div_rounded(a, b, rounding_mode):
    if rounding_mode not in MODES:
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                           f"found '{rounding_mode}'")
    return DivRounded.apply(a, b, rounding_mode)
