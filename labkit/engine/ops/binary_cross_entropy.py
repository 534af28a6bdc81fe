"""binary_cross_entropy and binary_cross_entropy_with_logits as one op each, with their weights
and reduction inside (torch's BinaryCrossEntropyBackward0 / ...WithLogitsBackward0 is then the
loss's grad_fn, with (input, target) as next_functions).

binary_cross_entropy: -(t log x + (1 - t) log(1 - x)) for probabilities x, as torch computes
it: each log clamped at -100, so x = 0 or 1 gives a large finite loss instead of inf, and the
gradient (x - t) / (x (1 - x)) has its denominator kept above 1e-12.
with_logits: (1 - t) x + (1 + (p - 1) t) softplus(-x), p the pos_weight, computed stably.
weight and pos_weight are constants, as in torch (passed in a tuple: not graph inputs); a
weight or pos_weight that requires grad is torch's error.
"""
import numpy as np

from ..function import Function
from .common import float_data
from .erf import _quiet
from .loss_reduction import mean_scale, reduce_array, reduce_tensor, vmap_loss

_EPS = float(np.float32(1e-12))   # torch's constant is the float32 1e-12f, even for float64


def constants(name, **tensors):
    """The weights as the op takes them: a tuple of the given ones (None when absent);
    refused if one requires grad (torch does not differentiate with respect to them)."""
    for what, t in tensors.items():
        if t is not None and t.requires_grad:
            raise RuntimeError(f"The function '{name}' is not differentiable with respect to "
                               f"argument '{what}'. This input cannot have requires_grad "
                               f"True. Pass {what}.detach() (a constant), as in torch.")
    return tuple(tensors.values())


def _times(a, w):
    return a if w is None else a * w


class BinaryCrossEntropy(Function):
    node_name = "BinaryCrossEntropyBackward0"

    @staticmethod
    def forward(ctx, x, t, weights, reduction):
        xp = x.device.xp
        d, td = float_data(x), float_data(t)
        if d.size and bool(((d < 0) | (d > 1)).any()):
            raise RuntimeError("all elements of input should be between 0 and 1 (binary_cross_"
                               "entropy takes probabilities: apply sigmoid first, or use "
                               "binary_cross_entropy_with_logits on the raw scores).")
        if td.size and bool(((td < 0) | (td > 1)).any()):
            raise RuntimeError("all elements of target should be between 0 and 1 "
                               "(binary_cross_entropy: targets are probabilities or 0/1 labels).")
        (w,) = weights
        ctx.save_for_backward(x, t, w)
        ctx.reduction = reduction
        with _quiet(xp):
            log_x, log_1mx = xp.maximum(xp.log(d), -100), xp.maximum(xp.log1p(-d), -100)
        loss = xp.asarray(-(td * log_x + (1 - td) * log_1mx), dtype=d.dtype)
        if w is not None:
            loss = xp.asarray(loss * w._data, dtype=d.dtype)
        return reduce_array(xp, loss, reduction)

    @staticmethod
    def backward(ctx, grad):
        x, t, w = ctx.saved_tensors
        need = ctx.needs_input_grad
        g = _times(grad * mean_scale(ctx.reduction, x.numel()), w)
        gx = gt = None
        if need[0]:
            gx = g * (x - t) / ((1 - x) * x).clamp(min=_EPS)
        if need[1]:
            gt = g * ((1 - x).log().clamp(min=-100) - x.log().clamp(min=-100))
        return gx, gt, None, None

    @staticmethod
    def jvp(args, tangents, out):
        (x, t, (w,), reduction), (tx, tt) = args, tangents[:2]
        per = None
        if tx is not None:
            per = tx * (x - t) / ((1 - x) * x).clamp(min=_EPS)
        if tt is not None:
            part = tt * ((1 - x).log().clamp(min=-100) - x.log().clamp(min=-100))
            per = part if per is None else per + part
        return None if per is None else reduce_tensor(_times(per, w), reduction)

    @staticmethod
    def vmap(args, batched):
        return vmap_loss(BinaryCrossEntropy, args, batched, 2, args[3])


class BinaryCrossEntropyWithLogits(Function):
    """Its gradient sigmoid(x) - t (with pos_weight p: (p t + 1 - t) sigmoid(x) - p t) is
    written out, since the kinks of max and |x| at x = 0 would give the wrong slope there."""
    node_name = "BinaryCrossEntropyWithLogitsBackward0"

    @staticmethod
    def forward(ctx, x, t, weights, reduction):
        xp = x.device.xp
        xd, td = x._data, t._data
        w, pw = weights
        ctx.save_for_backward(x, t, w, pw)
        ctx.reduction = reduction
        # torch's formula, (1 - t) x - log sigmoid(x) [* (1 + (pos_weight - 1) t)], so the
        # infinities agree too: x = inf, t = 0 is inf (x - x t would be inf - nan)
        log_sig = xp.minimum(xd, 0) - xp.log1p(xp.exp(-xp.abs(xd)))
        if pw is not None:
            log_sig = log_sig * (1 + (pw._data - 1) * td)
        loss = (1 - td) * xd - log_sig
        loss = xp.asarray(loss if w is None else loss * w._data, dtype=xd.dtype)
        return reduce_array(xp, loss, reduction)

    @staticmethod
    def _slopes(x, t, pw):
        """d loss / dx and d loss / dt, per element (Tensor ops)."""
        if pw is None:
            return x.sigmoid() - t, -x
        from .nn_activation import logsigmoid
        return (pw * t + 1 - t) * x.sigmoid() - pw * t, (1 - pw) * logsigmoid(x) - x

    @staticmethod
    def backward(ctx, grad):
        x, t, w, pw = ctx.saved_tensors
        need = ctx.needs_input_grad
        g = _times(grad * mean_scale(ctx.reduction, x.numel()), w)
        sx, st = BinaryCrossEntropyWithLogits._slopes(x, t, pw)
        return (g * sx if need[0] else None), (g * st if need[1] else None), None, None

    @staticmethod
    def jvp(args, tangents, out):
        (x, t, (w, pw), reduction), (tx, tt) = args, tangents[:2]
        sx, st = BinaryCrossEntropyWithLogits._slopes(x, t, pw)
        per = None if tx is None else tx * sx
        if tt is not None:
            per = tt * st if per is None else per + tt * st
        return None if per is None else reduce_tensor(_times(per, w), reduction)

    @staticmethod
    def vmap(args, batched):
        return vmap_loss(BinaryCrossEntropyWithLogits, args, batched, 2, args[3])
