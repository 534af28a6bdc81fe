"""Small helpers shared by the op files: reading operands and fixing result dtypes."""
import numpy as np

from ..tensor import Tensor

_f64 = np.dtype("float64")
_f32 = np.dtype("float32")


def data(x):
    """The array behind a Tensor, or a Python scalar unchanged."""
    return x._data if isinstance(x, Tensor) else x


def float_data(x):
    """The array of x as floating point: float ops on int/bool tensors give float32 (as torch)."""
    d = x._data
    if d.dtype.kind != "f":
        d = d.astype(_f32)
    return d


def promote(r, a, b):
    """Keep torch's rule that float64 appears only if an input was float64 (numpy widens ints)."""
    if r.dtype is _f64 or r.dtype == _f64:
        if not (_is64(a) or _is64(b)):
            return r.astype(_f32)
    return r


def _is64(x):
    if isinstance(x, Tensor):
        return x._data.dtype == _f64
    return isinstance(x, np.ndarray) and x.dtype == _f64


def as_tensor_like(x, ref):
    """A scalar or array operand as a constant Tensor on ref's device (for torch.where etc.)."""
    if isinstance(x, Tensor):
        return x
    arr = ref.device.xp.asarray(x)
    if arr.dtype == _f64 and not isinstance(x, np.ndarray):
        arr = arr.astype(ref._data.dtype if ref._data.dtype.kind == "f" else _f32)
    return Tensor._make(arr, ref.device)
