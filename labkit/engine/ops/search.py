"""searchsorted / bucketize (where values would go in a sorted sequence) and isin (membership):
integer and boolean answers, no gradient, as torch."""
from ..creation import tensor as _tensor
from ..tensor import Tensor


def _wrap(data, like):
    return Tensor._make(data, like.device)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got "
                               f"{side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got "
                               "side of left while right was True")
        right = side == "right"
    from .complex_guard import refuse_complex
    refuse_complex("searchsorted", sorted_sequence)
    scalar = not isinstance(input, Tensor)
    values = _tensor(input, dtype=sorted_sequence.dtype, device=sorted_sequence.device) \
        if scalar else input
    seq = sorted_sequence if sorter is None else sorted_sequence.gather(-1, sorter)
    xp = seq.device.xp
    s, v = seq._data, values._data
    how = "right" if right else "left"
    if s.ndim <= 1:
        out = xp.searchsorted(s, v, side=how)
    else:
        if tuple(s.shape[:-1]) != tuple(v.shape[:-1]):
            raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the "
                               "first N-1 dimensions of boundaries tensor and input value tensor "
                               f"must match, but we got boundaries tensor {list(s.shape)} and "
                               f"input value tensor {list(v.shape)}")
        rows_s = s.reshape(-1, s.shape[-1])
        rows_v = v.reshape(-1, v.shape[-1])
        out = xp.stack([xp.searchsorted(a, b, side=how) for a, b in zip(rows_s, rows_v)]) \
            .reshape(v.shape) if rows_s.shape[0] else xp.zeros(v.shape, dtype=xp.int64)
    out = xp.asarray(out).astype(xp.int32 if out_int32 else xp.int64)
    return _wrap(out, seq)


def bucketize(input, boundaries, *, out_int32=False, right=False):
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)



def isin(elements, test_elements, *, assume_unique=False, invert=False):
    like = elements if isinstance(elements, Tensor) else test_elements
    xp = like.device.xp
    e = elements._data if isinstance(elements, Tensor) else xp.asarray(elements)
    t = test_elements._data if isinstance(test_elements, Tensor) else xp.asarray(test_elements)
    if "c" in (e.dtype.kind, t.dtype.kind):
        raise RuntimeError("Unsupported input type encountered for isin(): complex (as torch). "
                           "Compare z.real and z.imag, or use (a[:, None] == b).any(-1).")
    return _wrap(xp.asarray(xp.isin(e, t, invert=invert)), like)
