"""Backward on raw arrays: the same formula, without the Tensor-op dispatch, when nothing
needs the gradient computation itself as ops.

A backward is written with Tensor ops so that create_graph=True records it (second
derivatives), the jit tracer and vmap see it, and the profiler shows its ops. When none of
those is on, those ops cost Python time and give nothing back; the hot backwards of a
training step (matmul, linear, relu, clamp, pow, sum, mean) then compute on the arrays
directly (tests/test_raw_backward.py checks both paths against torch).
"""
import numpy as np

from ..grad_mode import mode, process
from ..tensor import Tensor

_make = Tensor._make
_new = object.__new__
_scalar = np.generic


def raw(grad):
    """grad's array when backward may compute on arrays, else None: recording is off (no
    create_graph), no tracer (jit, vmap, func transforms) and no node observer (profiler,
    viz) is installed, and grad is a plain Tensor."""
    if mode.enabled or type(grad) is not Tensor or (
            process.hooked and (mode.tracer is not None or mode.node_hooks)):
        return None
    return grad._data


def wrap(arr, like):
    """arr as a Tensor on like's device (None stays None)."""
    return None if arr is None else _make(arr, like.device)


def wrap_result(out, like):
    """An elementwise result as a Tensor on like's device: numpy turns a 0-d result into a
    scalar, which is made an array again (cupy keeps 0-d arrays)."""
    if isinstance(out, _scalar):
        out = np.asarray(out)
    t = _new(Tensor)         # Tensor._make, inlined: it runs once per gradient op
    t._data = out
    t.device = like.device
    return t


_ONES = {}   # dtype -> a 0-d numpy array holding 1


def one(arr):
    """1 for `1 - arr`, in the form the array library computes it fastest: for numpy a 0-d
    array of arr's dtype (a Python number costs numpy about 0.3 us more per call to promote,
    on 16 floats that doubles the op; the bits are the same), else the number."""
    if type(arr) is not np.ndarray:
        return 1
    o = _ONES.get(arr.dtype)
    if o is None:
        o = _ONES[arr.dtype] = np.ones((), arr.dtype)
    return o
