"""Tensor storages (torch.UntypedStorage / TypedStorage): the flat memory block under a tensor.

A tensor is a view of a storage: sizes, strides and an offset into it. Here the storage is the
block of the numpy (or CuPy) array at the root of the tensor's .base chain, so every view of one
tensor reports the same storage, and writes through storage()[i] = v show in the tensor (DLWPT
chapter 3). untyped_storage() counts bytes; storage() (deprecated in torch, as here) counts
elements of the tensor's dtype.
"""
import warnings

from ..tensor import tensor_method

_WARNED = []


def _root(arr):
    while getattr(arr, "base", None) is not None and hasattr(arr.base, "dtype"):
        arr = arr.base
    if not (arr.flags.c_contiguous or arr.flags.f_contiguous):
        raise NotImplementedError("storage: this tensor's memory is a strided view of an "
                                  "array labkit did not allocate; clone() it first.")
    return arr


class UntypedStorage:
    """A tensor's memory as bytes."""

    def __init__(self, root, device):
        self._bytes = root.reshape(-1, order="A").view("uint8")
        self.device = device

    def nbytes(self):
        return int(self._bytes.size)

    size = __len__ = nbytes

    def element_size(self):
        return 1

    def data_ptr(self):
        a = self._bytes
        return a.__array_interface__["data"][0] if hasattr(a, "__array_interface__") \
            else a.data.ptr

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return UntypedStorage(self._bytes[idx], self.device)
        return int(self._bytes[idx])

    def __setitem__(self, idx, value):
        self._bytes[idx] = value

    def tolist(self):
        return [int(b) for b in self._bytes.tolist()]

    def __iter__(self):
        return iter(self.tolist())

    def __repr__(self):
        return " " + "\n ".join(str(b) for b in self.tolist()) + \
            f"\n[torch.storage.UntypedStorage(device={self.device}) of size {self.nbytes()}]"


class TypedStorage:
    """A tensor's memory as elements of its dtype (tensor.storage())."""

    def __init__(self, root, dtype, device):
        self._elems = root.reshape(-1, order="A")
        self.dtype, self.device = dtype, device

    def size(self):
        return int(self._elems.size)

    __len__ = size

    def element_size(self):
        return self._elems.itemsize

    def nbytes(self):
        return int(self._elems.nbytes)

    def data_ptr(self):
        return self.untyped().data_ptr()

    def untyped(self):
        return UntypedStorage(self._elems, self.device)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        return self._elems[idx].item()

    def __setitem__(self, idx, value):
        self._elems[idx] = value

    def tolist(self):
        return self._elems.tolist()

    def __iter__(self):
        return iter(self.tolist())

    def __repr__(self):
        return " " + "\n ".join(str(v) for v in self.tolist()) + (
            f"\n[torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of size "
            f"{self.size()}]")


@tensor_method("untyped_storage")
def untyped_storage(x):
    """The bytes of the memory block x is a view of (shared by all its views)."""
    return UntypedStorage(_root(x._data), x.device)


@tensor_method("storage")
def storage(x):
    """The memory block x is a view of, as elements of x's dtype (deprecated: prefer
    untyped_storage(), as torch says)."""
    if not _WARNED:
        _WARNED.append(True)
        warnings.warn("TypedStorage is deprecated. It will be removed in the future and "
                      "UntypedStorage will be the only storage class. This should only matter "
                      "to you if you are using storages directly.  To access UntypedStorage "
                      "directly, use tensor.untyped_storage() instead of tensor.storage()",
                      UserWarning, stacklevel=2)
    root = _root(x._data)
    if root.dtype != x._data.dtype:
        root = root.view(x._data.dtype)
    return TypedStorage(root, x.dtype, x.device)
