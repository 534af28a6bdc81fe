"""A tensor's memory as MPI sees it: zero-copy for contiguous cpu tensors (MPI reads and writes
the numpy array itself), a host copy written back afterwards otherwise.

cuda tensors go through host buffers: the values are copied to the host, moved by MPI and copied
back (a CUDA-aware MPI could move device memory directly; the mpich wheel is not built for it).
"""
import numpy as np

from ..engine.tensor import Tensor

_mpi_knows = {}     # numpy dtype -> does MPI have a datatype for it


def check_tensor(op, t, name="tensor"):
    if not isinstance(t, Tensor):
        raise TypeError(f"{op}: {name} must be a labkit Tensor, got {type(t).__name__}.")
    return t


class HostBuffer:
    """A C-contiguous numpy array with the tensor's values; commit() makes them the tensor's."""
    __slots__ = ("t", "arr", "copied")

    def __init__(self, op, t, name="tensor", write=True, read=True):
        check_tensor(op, t, name)
        a = t._data
        if write and isinstance(a, np.ndarray) and not a.flags.writeable:
            raise RuntimeError(f"{op}: {name} is a read-only view (made by expand() or "
                               "broadcasting), so the result cannot be written into it; pass "
                               "a tensor with its own memory, e.g. t.clone().")
        self.t = t
        if isinstance(a, np.ndarray) and a.flags.c_contiguous:
            self.arr, self.copied = a, False
        elif isinstance(a, np.ndarray):
            self.arr, self.copied = (np.ascontiguousarray(a) if read else
                                     np.empty(a.shape, a.dtype)), True
        else:                                    # cupy: through the host
            self.arr, self.copied = (a.get() if read else np.empty(a.shape, a.dtype)), True

    def commit(self, values=None):
        """Write `values` (default: this buffer) into the tensor, as one in-place change."""
        t = self.t
        if values is None:
            values = self.arr
        if values is not self.arr or self.copied:
            t._data[...] = values if t.device.type == "cpu" else t.device.xp.asarray(values)
        t._bump_version()


def mpi_view(arr):
    """`arr` as a buffer MPI can type; dtypes MPI lacks (bfloat16) travel as bytes."""
    return arr if mpi_knows(arr.dtype) else arr.reshape(-1).view(np.uint8)


def reducible(arr):
    """`arr` itself when MPI can reduce its dtype, else a float32 copy (bfloat16 sums in
    float32)."""
    return arr if mpi_knows(arr.dtype) else arr.astype(np.float32)


def mpi_knows(dtype):
    known = _mpi_knows.get(dtype)
    if known is None:
        from mpi4py.util import dtlib
        try:
            dtlib.from_numpy_dtype(dtype)
            known = True
        except (ValueError, KeyError, TypeError):
            known = False
        _mpi_knows[dtype] = known
    return known
