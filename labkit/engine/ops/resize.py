"""resize_ / resize_as_: the legacy in-place change of shape (Atcold's tensor tutorial,
`r.resize_(3, 8)`). The elements stay in the same memory, read in order: the same count (or
fewer) is a view of that memory, so a tensor sharing it sees writes through either; more
elements move to new memory, the old ones first and the rest zero (torch leaves them
uninitialised). As in torch, a tensor that requires grad cannot be resized."""
from math import prod

from ..tensor import tensor_method


def _sizes(name, size):
    size = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else size
    if any(not isinstance(n, int) or n < 0 for n in size):
        raise RuntimeError(f"{name}: sizes must be non-negative integers, got {list(size)}.")
    return size


@tensor_method("resize_")
def resize_(x, *size):
    size = _sizes("resize_", size)
    if x._rg:
        raise RuntimeError("cannot resize variables that require grad (resize_ on a tensor with "
                           "requires_grad=True). Use x.reshape(...) or x.view(...), or resize "
                           "x.detach().")
    arr, n = x._data, prod(size)
    xp = x.device.xp
    if n <= arr.size and (arr.flags.c_contiguous or n == arr.size == 0):
        x._data = arr.reshape(-1)[:n].reshape(size)       # a view of the same memory
    elif n == arr.size:
        raise RuntimeError(f"resize_: labkit resizes only contiguous tensors in place (shape "
                           f"{tuple(x.shape)} is a strided view); call .contiguous() first.")
    else:
        grown = xp.zeros(n, dtype=arr.dtype)
        grown[:arr.size] = arr.reshape(-1)
        x._data = grown.reshape(size)
    x._view_of = None            # its old write-back recipe no longer fits
    x._bump_version()
    return x


@tensor_method("resize_as_")
def resize_as_(x, other):
    return resize_(x, *other.shape)
