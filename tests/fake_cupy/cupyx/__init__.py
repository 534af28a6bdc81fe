"""Fake cupyx (test double, see cupy/__init__.py): pinned host buffers are numpy arrays, as
with real CuPy, remembered so cupy.cuda.runtime.pointerGetAttributes reports them as pinned."""
import numpy as _np

from cupy.cuda import _track_pinned


def empty_pinned(shape, dtype=float, order="C"):
    a = _np.empty(shape, dtype, order=order)
    _track_pinned(a)
    return a


def zeros_pinned(shape, dtype=float, order="C"):
    a = empty_pinned(shape, dtype, order)
    a[...] = 0
    return a


def empty_like_pinned(a, dtype=None, order="K", subok=None, shape=None):
    return empty_pinned(a.shape if shape is None else shape, a.dtype if dtype is None else dtype)


def zeros_like_pinned(a, dtype=None, order="K", subok=None, shape=None):
    out = empty_like_pinned(a, dtype, order, subok, shape)
    out[...] = 0
    return out


def get_array_module(*args):
    import cupy
    return cupy.get_array_module(*args)
