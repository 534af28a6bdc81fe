"""cross_entropy: log_softmax and nll_loss fused into one op (lecture 03's reason to write a
Function: one node, and a cheaper backward).

Forward keeps the softmax probabilities p it computes anyway, so backward is one array op:
(p - onehot(target)) * grad / N, instead of the two ops' exp, row sums and scatter. The
gradient is itself an op with a backward, so second derivatives work.
"""
from ..autocast import autocast_op
from ..function import Function
from ..tensor import Tensor
from .common import float_data
from .index import Index, IndexPut
from .loss_reduction import reduction_of
from .nll_loss import _check, _ignores, as_rows, nll, pick
from .scalar_ops import div_scalar, mul_scalar
from . import rules


def _row_max(xp, d):
    """Each row's maximum, (N, 1). With few classes, a loop over the columns is several times
    faster than numpy's reduction along a short axis (which pays a fixed cost per row)."""
    if d.shape[1] > 8 or d.shape[1] == 0:
        return d.max(axis=1, keepdims=True)
    m = d[:, :1].copy()
    for j in range(1, d.shape[1]):
        xp.maximum(m, d[:, j:j + 1], out=m)
    return m


class CrossEntropy(Function):
    node_name = "NllLossBackward0"      # torch: cross_entropy ends in nll_loss (printed grad_fn)

    @staticmethod
    def forward(ctx, x, target, reduction):
        _check("cross_entropy", x, target)
        xp = x.device.xp
        d = float_data(x)
        shifted = d - _row_max(xp, d)
        e = xp.exp(shifted)
        total = e @ xp.ones((d.shape[1], 1), d.dtype)         # row sums, as one product
        n = d.shape[0]
        picked, where = pick("cross_entropy", x, target, shifted)
        losses = xp.log(total[:, 0]) - picked              # -log p[i, target[i]]
        ctx.save_for_backward(x, target)  # target too: an in-place change to it is caught
        ctx.probs, ctx.where, ctx.reduction = e / total, where, reduction
        losses = losses.astype(d.dtype, copy=False)   # numpy: bfloat16 / int gives float32
        if reduction == "none":
            return losses
        loss = losses.sum()
        return xp.asarray(loss / n if reduction == "mean" else loss).astype(d.dtype)

    @staticmethod
    def backward(ctx, grad):
        x, _ = ctx.saved_tensors
        return _CrossEntropyGrad.apply(grad, x, ctx.probs, ctx.where, ctx.reduction), None, None

    @staticmethod
    def jvp(args, tangents, out):
        (x, target, reduction), t = args, tangents[0]
        if t is None:
            return None
        rows = x.device.xp.arange(x.shape[0])          # sum_c (p - onehot) * t, per row
        per_row = (x.softmax(1) * t).sum(1) - Index.apply(t, (rows, target._data))
        return per_row if reduction == "none" else getattr(per_row, reduction)()

    @staticmethod
    def vmap(args, batched):
        x, target, reduction = args
        n = rules.batch_size(args, batched)
        x = x if batched[0] else rules.expand_batch(x, n)
        target = target if batched[1] else rules.expand_batch(target, n)
        losses = CrossEntropy.apply(x.reshape(-1, x.shape[-1]), target.reshape(-1), "none")
        losses = losses.reshape(n, -1)
        return losses if reduction == "none" else getattr(losses, reduction)(1)


class _CrossEntropyGrad(Function):
    """dL/dx = g * (p - onehot) (divided by N for the mean), p = softmax(x)."""
    node_name = "CrossEntropyLossBackwardBackward0"

    @staticmethod
    def forward(ctx, g, x, probs, where, reduction):
        out = probs.copy()
        out[where] -= 1
        ctx.where, ctx.reduction, ctx.n = where, reduction, probs.shape[0]
        ctx.save_for_backward(g, x)
        scale = g._data / ctx.n if reduction == "mean" else g._data
        out *= scale[:, None] if reduction == "none" else scale
        return out

    @staticmethod
    def backward(ctx, gg):
        g, x = ctx.saved_tensors
        need = ctx.needs_input_grad
        p = x.softmax(1)
        row_g = g.unsqueeze(1) if ctx.reduction == "none" else g
        if ctx.reduction == "mean":
            row_g = row_g / ctx.n
        gg_g = gx = None
        if need[0]:                      # <gg, p - onehot>, per row or in total
            onehot = IndexPut.apply(p * 0, ctx.where, 1.0)
            per_row = (gg * (p - onehot)).sum(1)
            gg_g = per_row if ctx.reduction == "none" else per_row.sum()
            if ctx.reduction == "mean":
                gg_g = gg_g / ctx.n
        if need[1]:                      # softmax's Jacobian applied to gg, times g
            gx = row_g * p * (gg - (gg * p).sum(1, keepdim=True))
        return gg_g, gx, None, None, None

    @staticmethod
    def jvp(args, tangents, out):
        (g, x, probs, where, reduction), (tg, tx) = args, tangents[:2]
        part_x = None
        if tx is not None:                 # g times softmax's Jacobian applied to tx
            p = x.softmax(1)
            row_g = (g.unsqueeze(1) if reduction == "none"
                     else g / x.shape[0] if reduction == "mean" else g)
            part_x = row_g * p * (tx - (tx * p).sum(1, keepdim=True))
        part_g = None if tg is None else _CrossEntropyGrad.apply(tg, x, probs, where, reduction)
        return rules.total(part_g, part_x)

    @staticmethod
    def vmap(args, batched):
        (g, x, probs, where, reduction), (gb, xb) = args, batched[:2]
        n = rules.batch_size(args, batched)
        x = x if xb else rules.expand_batch(x, n)
        p = x.softmax(-1)                                  # (B, N, C): probs again, per example
        target = where[1] if isinstance(where[1], Tensor) else Tensor._make(where[1], x.device)
        classes = Tensor._make(x.device.xp.arange(x.shape[-1]), x.device)
        onehot = (target.unsqueeze(-1) == classes).to(p.dtype)
        if reduction == "none":
            g = g.unsqueeze(-1)
        else:
            g = (g / x.shape[1] if reduction == "mean" else g)
            g = g.reshape(-1, 1, 1) if gb else g
        return g * (p - onehot)


@autocast_op("cross_entropy")
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """Softmax cross-entropy from raw scores (logits, N x C) and class indices (N,), stably.
    torch's options: class `weight`s, rows with target == ignore_index left out, and
    label_smoothing e (the target is (1 - e) one-hot + e / C uniform). As torch, also one
    example (C,), scores per position (N, C, d1, ...) with targets (N, d1, ...), and class
    probabilities as the target (floats, the input's shape: soft labels, distillation)."""
    reduction = reduction_of(size_average, reduce, reduction)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"cross_entropy: reduction must be 'mean', 'sum' or 'none', got "
                         f"{reduction!r}.")
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"cross_entropy: label_smoothing must be between 0.0 and 1.0, got "
                           f"{label_smoothing}.")
    if isinstance(target, Tensor) and target.is_floating_point():
        return _soft_targets(input, target, weight, reduction, label_smoothing)
    if (input.ndim == 2 and weight is None and not label_smoothing and input.shape[1]
            and not _ignores(target, ignore_index)):            # the common case: one op
        input, target, back = as_rows("cross_entropy", input, target)
        return back(CrossEntropy.apply(input, target, reduction), reduction)
    return _general(input, target, weight, ignore_index, reduction, label_smoothing)


def _soft_targets(input, target, weight, reduction, label_smoothing):
    """-sum_c w_c t_c log softmax(x)_c per example, for probabilities t of the input's shape;
    the mean divides by the number of examples (positions), not by the weights. In torch's
    order of ops (its graph)."""
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"cross_entropy: class-probability targets must have the input's "
                           f"shape {tuple(input.shape)}, got {tuple(target.shape)}. For class "
                           "indices pass an integer (int64) target.")
    from .softmax import log_softmax
    dim = 0 if input.ndim == 1 else 1
    classes = input.shape[dim]
    if weight is not None and tuple(weight.shape) != (classes,):     # (it would broadcast)
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all "
                           f"{classes} classes or no classes but got weight tensor of shape: "
                           f"{list(weight.shape)}")
    if label_smoothing:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    per = log_softmax(input, dim) * target
    if weight is not None:
        per = per * (weight if dim == 0 else
                     weight.reshape((classes,) + (1,) * (input.ndim - 2)))
    if reduction == "none":
        return -per.sum(dim)
    if reduction == "sum":
        return -per.sum()
    return div_scalar(-per.sum(), input.numel() // classes if classes else 0)


def _general(input, target, weight, ignore_index, reduction, label_smoothing):
    """Class weights, ignored targets, label smoothing or scores per position: log_softmax,
    then nll_loss (torch's graph: NllLossBackward0 or NllLoss2DBackward0 after
    LogSoftmaxBackward0); label smoothing mixes in the mean of -log p over the classes."""
    from .softmax import log_softmax
    dim = 0 if input.ndim == 1 else 1
    logp = log_softmax(input, dim)
    loss = nll(logp, target, weight, ignore_index, reduction, "cross_entropy")
    if not label_smoothing:
        return loss
    from .select import where
    classes = input.shape[dim]
    valid = target != ignore_index     # ignored rows: 0, no gradient (as nll_loss's)
    if weight is not None:
        logp = logp * (weight if dim == 0 else
                       weight.reshape((classes,) + (1,) * (input.ndim - 2)))
    smooth = where(valid, -logp.sum(dim), 0.0)
    if reduction == "mean":            # every row ignored: 0 / 0, nan, as torch
        denom = (weight[where(valid, target, 0)] * valid).sum() if weight is not None \
            else valid.sum()
        smooth = smooth.sum() / denom
    elif reduction == "sum":
        smooth = smooth.sum()
    return mul_scalar(loss, 1 - label_smoothing) + mul_scalar(smooth, label_smoothing / classes)
