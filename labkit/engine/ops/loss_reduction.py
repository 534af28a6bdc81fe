"""torch's old loss flags, size_average and reduce, read as torch reads them: older tutorials
still pass them (F.nll_loss(out, y, size_average=False) to sum a test set's loss)."""
import warnings


def reduction_of(size_average, reduce, reduction, stacklevel=3):
    """The reduction the flags ask for (they override `reduction`, with torch's warning)."""
    if size_average is None and reduce is None:
        return reduction
    new = "none" if reduce is False else "sum" if size_average is False else "mean"
    warnings.warn(f"size_average and reduce args will be deprecated, please use "
                  f"reduction='{new}' instead.", UserWarning, stacklevel=stacklevel)
    return new


def reduce_array(xp, loss, reduction):
    """A fused loss's per-element array reduced as torch: the mean of nothing is nan."""
    if reduction == "none":
        return loss
    if reduction == "sum":
        return xp.asarray(loss.sum(), dtype=loss.dtype)
    n = loss.size
    return xp.asarray(loss.sum() / n if n else xp.nan, dtype=loss.dtype)


def mean_scale(reduction, n):
    """What each element's gradient is multiplied by: 1 / n for the mean (of n elements)."""
    return 1.0 / n if reduction == "mean" and n else 1.0


def reduce_tensor(per, reduction):
    """A per-element Tensor (a tangent) reduced the same way."""
    return per if reduction == "none" else getattr(per, reduction)()


def vmap_loss(cls, args, batched, n_tensors, reduction):
    """A fused loss under vmap: the per-element form ('none') of the batched operands (the
    first n_tensors arguments, lifted to one rank), then each example's reduction."""
    from . import rules
    if any(rules.any_batched(b) for b in batched[n_tensors:]):
        return NotImplemented
    tensors = args[:n_tensors]
    rank = max(a.ndim - bool(b) for a, b in zip(tensors, batched) if a is not None)
    lifted = [rules.lift(a, rank) if b else a for a, b in zip(tensors, batched)]
    rest = list(args[n_tensors:])
    rest[rest.index(reduction)] = "none"
    per = cls.apply(*lifted, *rest)
    if reduction == "none":
        return per
    return getattr(per.reshape(per.shape[0], -1), reduction)(1)
