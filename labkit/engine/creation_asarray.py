"""torch.asarray, torch.frombuffer and torch.scalar_tensor: tensors made from other objects,
sharing their memory when they can (a tensor, a numpy array, a bytes-like buffer), which is
the difference from torch.tensor(), which always copies."""
import numpy as np

from . import dtype as _dt
from .creation import as_tensor, tensor
from .defaults import get_default_dtype
from .device import cpu
from .tensor import Tensor


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """obj as a tensor: the same tensor (or a view of the same numpy memory) when dtype and
    device allow and copy is not True; copy=False refuses to copy, copy=True always does."""
    if copy is False:
        have = obj.dtype if isinstance(obj, Tensor) else (
            _dt.from_np(obj.dtype) if isinstance(obj, np.ndarray) else None)
        if have is not None and dtype is not None and have != dtype:
            raise ValueError(f"can't alias tensor with dtype {have} into dtype {dtype} (asarray with copy=False shares memory, which "
                             "a dtype change cannot). Drop copy=False to allow a copy.")
    if copy:
        out = (obj.to(device or obj.device, dtype, copy=True).detach()
               if isinstance(obj, Tensor) else tensor(obj, dtype=dtype, device=device))
    else:
        out = as_tensor(obj, dtype=dtype, device=device)
    return out.requires_grad_() if requires_grad else out


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-d tensor over a bytes-like object's memory (bytearray, array.array, mmap): changes
    to either show in both."""
    size = memoryview(buffer).nbytes
    item = _dt.to_np(dtype).itemsize
    if size == 0 or count == 0:
        raise ValueError(f"both buffer length ({size}) and count ({count}) must not be 0")
    if offset < 0 or offset >= size:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({size} bytes) minus 1")
    if count < 0 and (size - offset) % item:
        raise ValueError(f"buffer length ({size - offset} bytes) after offset ({offset} bytes) "
                         f"must be a multiple of element size ({item})")
    if count > 0 and count * item > size - offset:
        raise ValueError(f"requested buffer length ({count} * {item} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({size} bytes)")
    arr = np.frombuffer(buffer, dtype=_dt.to_np(dtype), count=count, offset=offset)
    out = Tensor._make(arr, cpu)
    return out.requires_grad_() if requires_grad else out


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    """A 0-d tensor holding the number s, float32 unless dtype says otherwise (even for an
    int or a bool: the default dtype, unlike tensor(3))."""
    return tensor(s, dtype=dtype or get_default_dtype(), device=device,
                  requires_grad=requires_grad)
