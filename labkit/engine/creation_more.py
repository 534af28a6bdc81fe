"""torch.empty_strided and torch.empty_permuted: new tensors with a chosen memory layout.
labkit's "uninitialised" memory is zeros, as its torch.empty's is."""
import numpy as np

from . import dtype as _dt
from .defaults import defaults
from .device import Device
from .tensor import Tensor


def _ints(v, name, what):
    if isinstance(v, Tensor) or not isinstance(v, (tuple, list)) or \
            not all(isinstance(i, (int, np.integer)) for i in v):
        raise TypeError(f"{name}(): argument '{what}' (position {1 if what == 'size' else 2}) "
                        f"must be tuple of ints, not {type(v).__name__}")
    return tuple(int(i) for i in v)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, pin_memory=False,
                  requires_grad=False):
    """A tensor of shape `size` whose element (i, j, ...) lies i * stride[0] + j * stride[1]
    + ... elements into one block of memory just big enough (a stride of 0 shares one element
    along that dim, as expand does)."""
    size, stride = _ints(size, "empty_strided", "size"), _ints(stride, "empty_strided", "stride")
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: "
                           f"{list(size)}")
    if any(s < 0 for s in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {list(stride)}")
    dev = Device(device) if device is not None else (defaults.device or Device("cpu"))
    dt = dtype or defaults.float
    np_dtype = _dt.to_np(dt)
    xp = dev.xp
    n = 0 if 0 in size else 1 + sum((k - 1) * s for k, s in zip(size, stride))
    storage = xp.zeros(max(n, 1), dtype=np_dtype)
    item = storage.itemsize
    arr = xp.lib.stride_tricks.as_strided(storage, shape=size,
                                          strides=tuple(s * item for s in stride))
    out = Tensor._make(arr, dev)
    return out.requires_grad_(True) if requires_grad else out


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   pin_memory=False, requires_grad=False):
    """A tensor of shape `size` laid out in memory in the order physical_layout gives, from
    outermost to innermost: empty_permuted((N, C, H, W), (0, 2, 3, 1)) is channels_last."""
    size = _ints(size, "empty_permuted", "size")
    order = _ints(physical_layout, "empty_permuted", "physical_layout")
    if len(order) != len(size):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {len(size)} is not equal to "
                           f"len(physical_layout) = {len(order)}")
    if sorted(order) != list(range(len(size))):
        raise RuntimeError("Duplicate dim not allowed" if len(set(order)) != len(order)
                           else f"Dimension out of range (got {order})")
    stride = [0] * len(size)
    step = 1
    for d in reversed(order):
        stride[d] = step
        step *= max(size[d], 1)
    return empty_strided(size, stride, dtype=dtype, device=device, requires_grad=requires_grad)
