"""nll_loss: minus the log-probability of the right class, as one op with torch's class weights
and ignore_index inside (after log_softmax it is cross-entropy). Backward puts -w grad (divided
by the weights' sum for the mean) at each example's target class."""
import math

import numpy as np

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
    if s.ndim == 2 and t.ndim == 1 and t.shape[0] != s.shape[0]:
        raise _batch_error(name, scores, target)
    if s.ndim != 2 or t.ndim != 1:
        raise RuntimeError(f"{name}: expected input (N, C) and target (N,), got "
                           f"{tuple(scores.shape)} and {tuple(target.shape)}.")
    if t.dtype.kind not in "iu":
        raise RuntimeError(f"{name}: target must hold class indices (int64), got "
                           f"{target.dtype}. Use target.long().")
    if t.size and bool(((t < 0) | (t >= s.shape[1])).any()):
        raise _range_error(name, scores, t)


def _check_targets(name, logp, target, ignore_index):
    """Class indices (an integer dtype), each in [0, C) or ignore_index."""
    t = target._data
    if t.dtype.kind not in "iu":
        raise RuntimeError(f"{name}: target must hold class indices (int64), got "
                           f"{target.dtype}. Use target.long().")
    c = logp._data.shape[1 if logp._data.ndim > 1 else 0]
    bad = ((t < 0) | (t >= c)) & (t != ignore_index)
    if t.size and bool(bad.any()):
        wrong = t[bad]
        raise IndexError(f"{name}: target values must be class indices in [0, {c - 1}] (or "
                         f"ignore_index={ignore_index}), got {int(wrong.min())} .. "
                         f"{int(wrong.max())} (torch: 'Target {int(wrong.flat[0])} is out of "
                         "bounds.').")


def _batch_error(name, scores, target):
    """torch's ValueError (and words) for a target with another number of examples."""
    return ValueError(f"Expected input batch_size ({scores.shape[0]}) to match target "
                      f"batch_size ({target.shape[0]}). {name}: input {tuple(scores.shape)} "
                      f"holds {scores.shape[0]} examples but target {tuple(target.shape)} "
                      f"labels {target.shape[0]}; check that both come from the same batch.")


def _range_error(name, scores, t):
    return IndexError(f"{name}: target values must be class indices in "
                      f"[0, {scores._data.shape[1] - 1}], got values from {int(t.min())} to "
                      f"{int(t.max())}.")


def pick(name, scores, target, values):
    """values[i, target[i]] for each row i, and the (rows, target) index used."""
    where = (scores.device.xp.arange(values.shape[0]), target._data)
    return values[where], where


def _picks(xp, logp, target, ignore_index):
    """Where each target's log-probability sits in logp (class dim 1, or 0 for one example
    (C,)), as an index tuple; ignored targets point at class 0 (their weight is 0)."""
    t = target._data
    valid = t != ignore_index
    safe = t if not t.size or bool(valid.all()) else xp.where(valid, t, 0)  # target's own
    if logp._data.ndim == 1:                                        # array: vmap finds it
        return (safe,), valid
    pos = xp.indices(t.shape, sparse=True) if t.ndim else ()
    return (pos[0], safe) + tuple(pos[1:]), valid


class NllLoss(Function):
    """-w[t] logp[t] per example (t its class, w the class weights), summed, or divided by the
    weights' sum (the mean); targets equal to ignore_index count for nothing. The target and
    weight come in one tuple: constants, not graph inputs (torch's next_functions list only
    the input)."""
    node_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, logp, consts, ignore_index, reduction):
        target, weight = consts
        _check_targets("nll_loss", logp, target, ignore_index)
        xp = logp.device.xp
        d = logp._data
        where, valid = _picks(xp, logp, target, ignore_index)
        w = (weight._data[where[1] if d.ndim > 1 else where[0]] * valid).astype(d.dtype) \
            if weight is not None else valid.astype(d.dtype)
        picked = d[where]
        if picked.size and not valid.all():   # an ignored row counts 0, even where it is -inf
            picked = xp.where(valid, picked, 0)
        losses = -picked * w
        ctx.where, ctx.shape = where, d.shape
        ctx.save_for_backward(target)     # backward reads target's values: version-checked
        if weight is None and safe_is(where, target):   # one factor for all: vmap batches it
            n = w.size
            ctx.scale = (-1.0 / n if n else 0.0) if reduction == "mean" else -1.0
        elif reduction == "mean":
            total = w.sum()
            ctx.scale = -w / total if total else w * 0    # torch: no gradient then
        else:
            ctx.scale = -w
        if reduction == "none":
            return losses
        if reduction == "sum":
            return xp.asarray(losses.sum(), dtype=d.dtype)
        return xp.asarray(losses.sum() / w.sum() if w.size else xp.nan, dtype=d.dtype)

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors                 # raises if target was changed in place since forward
        return _PlaceAt.apply(grad, ctx.where, ctx.shape, ctx.scale), None, None, None

    @staticmethod
    def jvp(args, tangents, out):
        (logp, (target, weight), ignore_index, reduction), t = args, tangents[0]
        if t is None:
            return None
        xp = logp.device.xp
        where, valid = _picks(xp, logp, target, ignore_index)
        w = _weights(logp, weight, where, valid)
        per = -Index.apply(t, where) * w
        if reduction == "none":
            return per
        return per.sum() if reduction == "sum" else per.sum() / w.sum()

    @staticmethod
    def vmap(args, batched):
        """The vmap batch B joins the examples: (B, N, C, ...) -> (B * N, C, ...), each
        example's loss then reduced on its own."""
        logp, (target, weight), ignore_index, reduction = args
        flags = batched[1] if isinstance(batched[1], tuple) else (False, False)
        if flags[1]:
            return NotImplemented
        b = rules.batch_size(args, batched)
        logp = logp if batched[0] else rules.expand_batch(logp, b)
        target = target if flags[0] else rules.expand_batch(target, b)
        one = logp.ndim == 2                         # each example is one (C,) row
        rows = logp if one else logp.reshape(-1, *logp.shape[2:])
        tgt = target if one else target.reshape(-1, *target.shape[2:])
        per = cls_for(rows).apply(rows, (tgt, weight), ignore_index, "none")
        per = per.reshape(b, -1)
        if reduction == "none":
            return per.reshape(target.shape)
        if reduction == "sum":
            return per.sum(1)
        xp = logp.device.xp
        where, valid = _picks(xp, rows, tgt, ignore_index)
        return per.sum(1) / _weights(rows, weight, where, valid).reshape(b, -1).sum(1)


def safe_is(where, target):
    """Whether no target is ignored (the picks use the target's own array)."""
    return where[1 if len(where) > 1 else 0] is target._data


class NllLoss2d(NllLoss):
    """nll_loss of scores per position (N, C, d1, ...): torch names its node apart."""
    node_name = "NllLoss2DBackward0"


def cls_for(logp):
    return NllLoss2d if logp.ndim >= 3 else NllLoss


def _weights(logp, weight, where, valid):
    """Each pick's weight as a Tensor (constant): w[t], 0 where ignored."""
    d = logp._data
    w = (weight._data[where[1] if d.ndim > 1 else where[0]] * valid).astype(d.dtype) \
        if weight is not None else valid.astype(d.dtype)
    return Tensor._make(w, logp.device)


class _PlaceAt(Function):
    """zeros(shape) with scale * g at `where` (g a number or one per pick; scale a number, or
    an array of one per pick: class weights, ignored targets)."""
    node_name = "NllLossBackwardBackward0"

    @staticmethod
    def forward(ctx, g, where, shape, scale):
        xp = g.device.xp
        out = xp.zeros(shape, g._data.dtype)
        picks = g._data * scale
        if type(scale) is not float:          # an ignored row gets 0 even from a nan or inf
            picks = xp.where(scale != 0, picks, 0)     # upstream (torch's kernel skips it)
        out[where] = picks
        ctx.where, ctx.scale, ctx.scalar = where, scale, g._data.ndim == 0
        return out

    @staticmethod
    def backward(ctx, grad):
        scale = ctx.scale
        picked = Index.apply(grad, ctx.where) * (
            scale if isinstance(scale, float) else Tensor._make(scale, grad.device))
        return (picked.sum() if ctx.scalar else picked), None, None, None

    jvp = classmethod(rules.same_op)

    @staticmethod
    def vmap(args, batched):
        (g, where, shape, scale), gb = args, batched[0]
        if len(shape) != 2 or not isinstance(scale, float):
            return NotImplemented               # weights per pick: per example (a loop)
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
    with a 0-d target, and (N, C, d1, ...) with (N, d1, ...) (torch's NllLoss2d)."""
    reduction = reduction_of(size_average, reduce, reduction)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"nll_loss: reduction must be 'mean', 'sum' or 'none', got "
                         f"{reduction!r}.")
    return nll(input, target, weight, ignore_index, reduction)


def nll(logp, target, weight, ignore_index, reduction, name="nll_loss"):
    """NllLoss in torch's layouts: (N, C) or (C,) as they are, (N, C, H, W) as NllLoss2d, and
    other (N, C, d1, ...) viewed as (N, C, d1, rest) first (the 'none' loss viewed back)."""
    if weight is not None and (weight.ndim != 1 or weight.shape[0] != logp.shape[
            1 if logp.ndim > 1 else 0]):
        raise RuntimeError(f"{name}: weight tensor should be defined either for all "
                           f"{logp.shape[1 if logp.ndim > 1 else 0]} classes or no classes but "
                           f"got weight tensor of shape: {list(weight.shape)}")
    _layout(name, logp, target)
    if logp.ndim <= 2 and logp.shape[-1] == 0:     # no class: every target must be ignored
        _check_targets(name, logp, target, ignore_index)
        loss = logp.sum(-1)                        # zeros in the graph; the mean is 0 / 0
        return loss if reduction == "none" else loss.sum() * (math.nan if reduction == "mean"
                                                              else 1.0)
    if logp.ndim <= 2 or logp.ndim == 4:
        return cls_for(logp).apply(logp, (target, weight), ignore_index, reduction)
    shape = tuple(target.shape)
    n, c = logp.shape[:2]
    d1 = logp.shape[2] if logp.ndim > 2 else 1
    rest = int(np.prod(logp.shape[3:], dtype=int))
    if c == 0 and target.numel():       # torch's view of it fails: RuntimeError, as here
        raise RuntimeError(f"{name}: size mismatch: input {tuple(logp.shape)} has no classes "
                           f"(dim 1 is 0), so the target {tuple(target.shape)} can hold no "
                           "class index. Give the input at least one class.")
    loss = NllLoss2d.apply(logp.reshape(n, c, d1, rest), (target.reshape(n, d1, rest), weight),
                           ignore_index, reduction)
    return loss.reshape(shape) if reduction == "none" else loss


def _layout(name, logp, target):
    if logp.ndim == 1:
        if target.ndim != 0:
            raise RuntimeError(f"{name}: an unbatched input {tuple(logp.shape)} takes a 0-d "
                               f"target (one class index), got {tuple(target.shape)}.")
        return
    if logp.ndim == 0:
        raise RuntimeError(f"{name}: expected an input of 1 or more dimensions (classes), got "
                           "a 0-d one.")
    want = (logp.shape[0],) + tuple(logp.shape[2:])
    if target.ndim and target.shape[0] != logp.shape[0]:
        raise _batch_error(name, logp, target)
    if tuple(target.shape) != want:
        raise RuntimeError(f"{name}: input {tuple(logp.shape)} has its classes in dim "
                           f"{1 if logp.ndim > 1 else 0}, so the target must be {want}, got "
                           f"{tuple(target.shape)}.")


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
