"""x.view(dtype): the same bytes read as another dtype (torch.Tensor.view(dtype)). The result
shares memory and the version counter with x and is not part of any graph (reinterpreted bits
have no derivative). Element sizes that differ scale the last dimension, as in torch."""
from .. import dtype as _dt
from ..tensor import Tensor
from .shape import _as_view


def view_dtype(x, dtype):
    arr, np_dtype = x._data, _dt.to_np(dtype)
    old, new = arr.dtype.itemsize, np_dtype.itemsize
    if old != new:
        name = f"view {x.dtype} as {dtype}"
        if arr.ndim == 0:
            raise RuntimeError(f"{name}: a 0-d tensor cannot change its element size (from "
                               f"{old} to {new} bytes). Use x.reshape(1).view({dtype}).")
        if arr.strides[-1] != old and arr.shape[-1] > 1:
            raise RuntimeError(f"{name}: the last dimension must be contiguous (stride 1) to "
                               f"change the element size, but its stride is "
                               f"{arr.strides[-1] // old}. Call .contiguous() first.")
        if (arr.shape[-1] * old) % new:
            raise RuntimeError(f"{name}: the last dimension's size {arr.shape[-1]} times {old} "
                               f"bytes is not a multiple of {new} bytes, the new element size.")
    out = Tensor._make(arr.view(np_dtype), x.device)
    return _as_view(out, x)


def is_dtype(arg):
    return isinstance(arg, _dt.dtype)
