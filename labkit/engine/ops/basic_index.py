"""x[basic index] as torch records it: one view op per item, left to right, so the graph shows
torch's nodes. An int is a SelectBackward0, a slice that is not the full `:` a
SliceBackward0, None an UnsqueezeBackward0 (x[0, 1] is two selects, x[..., None] one
unsqueeze); an index that changes nothing (x[:], x[...]) stays the one slice it was."""
import numpy as np

from .shape import _as_view, unsqueeze


def _full(item):
    return isinstance(item, slice) and item == slice(None) or item == slice(None, None, 1)


def views(x, idx, select, slice_):
    """The view x[idx] for a basic index (ints, slices, None, Ellipsis), one op per item;
    None when nothing changes or one slice does (the caller's single slice op)."""
    items = idx if isinstance(idx, tuple) else (idx,)
    acting = [i for i in items if i is not Ellipsis and not (isinstance(i, slice) and _full(i))]
    if not acting or len(acting) == 1 and isinstance(acting[0], slice):
        return None
    if len(acting) == 1 and acting[0] is not None:    # one int: one select of the whole index
        return _as_view(select.apply(x, idx), x, select, (idx,))
    covered = sum(1 for i in items if i is not None and i is not Ellipsis)
    out, dim = x, 0
    for item in items:
        if item is Ellipsis:
            dim += x._data.ndim - covered
        elif item is None:
            out = unsqueeze(out, dim)
            dim += 1
        elif isinstance(item, (int, np.integer)):
            at = (slice(None),) * dim + (item,)
            out = _as_view(select.apply(out, at), out, select, (at,))
        elif _full(item):
            dim += 1
        else:
            at = (slice(None),) * dim + (item,)
            out = _as_view(slice_.apply(out, at), out, slice_, (at,))
            dim += 1
    return out
