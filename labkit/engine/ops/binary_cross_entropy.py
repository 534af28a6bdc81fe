"""binary_cross_entropy: -(t log x + (1 - t) log(1 - x)) for probabilities x, as torch computes
it: each log clamped at -100, so x = 0 or 1 gives a large finite loss instead of inf, and the
gradient (x - t) / (x (1 - x)) has its denominator kept above 1e-12."""
import numpy as np

from ..function import Function
from .common import float_data
from .erf import _quiet

_EPS = float(np.float32(1e-12))   # torch's constant is the float32 1e-12f, even for float64


class BinaryCrossEntropy(Function):
    node_name = "BinaryCrossEntropyBackward0"

    @staticmethod
    def forward(ctx, x, t):
        xp = x.device.xp
        d, td = float_data(x), float_data(t)
        if d.size and bool(((d < 0) | (d > 1)).any()):
            raise RuntimeError("all elements of input should be between 0 and 1 (binary_cross_"
                               "entropy takes probabilities: apply sigmoid first, or use "
                               "binary_cross_entropy_with_logits on the raw scores).")
        if td.size and bool(((td < 0) | (td > 1)).any()):
            raise RuntimeError("all elements of target should be between 0 and 1 "
                               "(binary_cross_entropy: targets are probabilities or 0/1 labels).")
        ctx.save_for_backward(x, t)
        with _quiet(xp):
            log_x, log_1mx = xp.maximum(xp.log(d), -100), xp.maximum(xp.log1p(-d), -100)
        return xp.asarray(-(td * log_x + (1 - td) * log_1mx), dtype=d.dtype)

    @staticmethod
    def backward(ctx, grad):
        x, t = ctx.saved_tensors
        need = ctx.needs_input_grad
        gx = gt = None
        if need[0]:
            gx = grad * (x - t) / ((1 - x) * x).clamp(min=_EPS)
        if need[1]:
            gt = grad * ((1 - x).log().clamp(min=-100) - x.log().clamp(min=-100))
        return gx, gt
