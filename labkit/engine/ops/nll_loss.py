"""nll_loss: minus the log-probability of the right class, as one op (after log_softmax it is
cross-entropy). Backward puts -grad (divided by N for the mean) at each row's target class."""
from ..autocast import autocast_op
from ..function import Function
from ..tensor import Tensor
from .index import Index
from .loss_reduction import reduction_of
from . import rules


def _check(name, scores, target):
    """Shapes and dtype of (N, C) scores and (N,) class indices, all in [0, C): numpy would
    count a negative index from the end and CuPy wraps any out-of-range one around, both
    silently wrong answers."""
    s, t = scores._data, target._data
    if s.ndim != 2 or t.ndim != 1 or t.shape[0] != s.shape[0]:
        raise RuntimeError(f"{name}: expected input (N, C) and target (N,), got "
                           f"{tuple(scores.shape)} and {tuple(target.shape)}.")
    if t.dtype.kind not in "iu":
        raise RuntimeError(f"{name}: target must hold class indices (int64), got "
                           f"{target.dtype}. Use target.long().")
    if t.size and bool(((t < 0) | (t >= s.shape[1])).any()):
        raise _range_error(name, scores, t)


def _range_error(name, scores, t):
    return IndexError(f"{name}: target values must be class indices in "
                      f"[0, {scores._data.shape[1] - 1}], got values from {int(t.min())} to "
                      f"{int(t.max())}.")


def pick(name, scores, target, values):
    """values[i, target[i]] for each row i, and the (rows, target) index used."""
    where = (scores.device.xp.arange(values.shape[0]), target._data)
    return values[where], where


class NllLoss(Function):
    node_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, logp, target, reduction):
        _check("nll_loss", logp, target)
        xp = logp.device.xp
        picked, where = pick("nll_loss", logp, target, logp._data)
        n = picked.shape[0]
        ctx.where, ctx.shape = where, logp._data.shape
        ctx.save_for_backward(target)     # backward reads target's values: version-checked
        ctx.scale = (-1.0 / n if n else float("nan")) if reduction == "mean" else -1.0
        if reduction == "none":
            return -picked
        total = -picked.sum()
        if reduction == "mean":
            return xp.asarray(total / n if n else xp.nan, dtype=logp._data.dtype)  # torch: nan
        return xp.asarray(total)

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors                 # raises if target was changed in place since forward
        return _PlaceAt.apply(grad, ctx.where, ctx.shape, ctx.scale), None, None

    @staticmethod
    def jvp(args, tangents, out):
        (logp, target, reduction), t = args, tangents[0]
        if t is None:
            return None
        rows = logp.device.xp.arange(logp.shape[0])
        per_row = -Index.apply(t, (rows, target._data))
        return per_row if reduction == "none" else getattr(per_row, reduction)()

    @staticmethod
    def vmap(args, batched):
        logp, target, reduction = args
        n = rules.batch_size(args, batched)
        logp = logp if batched[0] else rules.expand_batch(logp, n)
        target = target if batched[1] else rules.expand_batch(target, n)
        losses = NllLoss.apply(logp.reshape(-1, logp.shape[-1]), target.reshape(-1), "none")
        losses = losses.reshape(n, -1)
        return losses if reduction == "none" else getattr(losses, reduction)(1)


class _PlaceAt(Function):
    """zeros(shape) with scale * g at `where` (g a number or one per row)."""
    node_name = "NllLossBackwardBackward0"

    @staticmethod
    def forward(ctx, g, where, shape, scale):
        out = g.device.xp.zeros(shape, g._data.dtype)
        out[where] = g._data * scale
        ctx.where, ctx.scale, ctx.scalar = where, scale, g._data.ndim == 0
        return out

    @staticmethod
    def backward(ctx, grad):
        picked = Index.apply(grad, ctx.where) * ctx.scale
        return (picked.sum() if ctx.scalar else picked), None, None, None

    jvp = classmethod(rules.same_op)

    @staticmethod
    def vmap(args, batched):
        (g, where, shape, scale), gb = args, batched[0]
        device = g.device
        target = where[1] if isinstance(where[1], Tensor) else Tensor._make(where[1], device)
        classes = Tensor._make(device.xp.arange(shape[-1]), device)
        onehot = (target.unsqueeze(-1) == classes).to(g.dtype)      # (B?, N, C)
        if gb:
            g = g.reshape(-1, 1, 1) if g.ndim == 1 else g.unsqueeze(-1)
        else:
            g = g.unsqueeze(-1) if g.ndim == 1 else g
        return onehot * g * scale


@autocast_op("nll_loss")
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """-input[i, target[i]], averaged (or summed): input holds log-probabilities (N, C).
    As torch: rows whose target is ignore_index count for nothing, and `weight` (C,) scales
    each row by its class's weight (the mean then divides by the weights' sum). Also (C,)
    with a 0-d target, and (N, C, d1, ...) with (N, d1, ...) (see as_rows)."""
    reduction = reduction_of(size_average, reduce, reduction)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"nll_loss: reduction must be 'mean', 'sum' or 'none', got "
                         f"{reduction!r}.")
    input, target, back = as_rows("nll_loss", input, target)
    if weight is None and not _ignores(target, ignore_index):
        return back(NllLoss.apply(input, target, reduction), reduction)   # the common case
    return back(weighted_nll("nll_loss", input, target, weight, ignore_index, reduction),
                reduction)


def as_rows(name, input, target):
    """torch's other layouts of a classification loss, as rows of scores: one example (C,)
    with a 0-d target, or (N, C, d1, ..., dk) with (N, d1, ..., dk) (a class score per
    pixel or per token, class dim second). Returns the (M, C) scores, the (M,) targets, and
    back(loss, reduction), which gives 'none' losses the target's shape again; a mean over
    the M rows is torch's mean over every element."""
    if input.ndim == 2 or input.ndim == 0:
        return input, target, _same
    if input.ndim == 1:
        if target.ndim != 0:
            raise RuntimeError(f"{name}: an unbatched input {tuple(input.shape)} takes a 0-d "
                               f"target (one class index), got {tuple(target.shape)}.")
        return input.unsqueeze(0), target.reshape(1), _unbatched
    shape = tuple(target.shape)
    if shape != (input.shape[0],) + tuple(input.shape[2:]):
        raise RuntimeError(f"{name}: input {tuple(input.shape)} has its classes in dim 1, so "
                           f"the target must be {(input.shape[0],) + tuple(input.shape[2:])}, "
                           f"got {shape}.")
    rows = input.movedim(1, -1).reshape(-1, input.shape[1])

    def back(loss, reduction):
        return loss.reshape(shape) if reduction == "none" else loss
    return rows, target.reshape(-1), back


def _same(loss, reduction):
    return loss


def _unbatched(loss, reduction):
    return loss.reshape(()) if reduction == "none" else loss


def _ignores(target, ignore_index):
    t = getattr(target, "_data", None)
    return t is not None and t.size > 0 and bool((t == ignore_index).any())


def weighted_nll(name, logp, target, weight, ignore_index, reduction):
    """nll_loss with weights and ignored rows, written with tensor ops (differentiable twice)."""
    from ..creation import arange
    from .select import where
    valid = target != ignore_index
    safe = where(valid, target, 0)
    _check(name, logp, safe)
    w = weight[safe] * valid if weight is not None else valid.to(logp.dtype)
    # ignored rows are 0 and pass no gradient (even where logp is -inf), as torch's kernel
    losses = where(valid, -logp[arange(safe.shape[0], device=logp.device), safe] * w, 0.0)
    if reduction == "none":
        return losses
    if reduction == "sum":
        return losses.sum()
    total = w.sum()     # every row ignored: the mean is 0 / 0 = nan, its gradient 0 (as torch)
    return losses.sum() / where(total == 0, 1.0, total) + where(total == 0, float("nan"), 0.0)
