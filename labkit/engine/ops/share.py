"""Tensor.share_memory_ / is_shared: a tensor's values in memory that other processes share.

Hogwild training (pytorch/examples mnist_hogwild) calls model.share_memory() and then starts
worker processes that all update the same parameters. Here the values move into a shared
memory file (Linux's memfd: memory with a file descriptor, no name on disk). A process forked
afterwards writes into the same pages; a process started with spawn receives the tensor through
multiprocessing (a Queue, Process args), which sends the descriptor instead of the values
(`reduce_tensor`, registered by labkit.multiprocessing as torch.multiprocessing does; like
torch's, it first moves any cpu tensor it sends into shared memory), so its updates are seen
by the parent too. The tensor stays the same object; views taken *before*
share_memory_() keep the old memory (take them after it). CUDA tensors are shared already.
"""
import mmap
import os
import weakref

import numpy as np

from ..device import cpu
from ..tensor import Tensor, tensor_method


class SharedBlock(mmap.mmap):
    """A mapping of a shared memory file that keeps its descriptor, to pass it on."""

    @classmethod
    def create(cls, nbytes):
        fd = os.memfd_create("labkit-shared-tensor") if hasattr(os, "memfd_create") else -1
        if fd < 0:                        # (not Linux: anonymous memory, shared on fork only)
            block = cls(-1, nbytes)
            block.fd = None
            return block
        os.ftruncate(fd, nbytes)
        return cls.attach(fd, nbytes)

    @classmethod
    def attach(cls, fd, nbytes):
        block = cls(fd, nbytes)
        block.fd = fd
        weakref.finalize(block, os.close, fd)    # the mapping keeps the memory; the fd goes
        return block


def _root(arr):
    while isinstance(getattr(arr, "base", None), np.ndarray):
        arr = arr.base
    return arr


def _block(x):
    owner = getattr(_root(x._data), "base", None)
    owner = getattr(owner, "obj", owner)          # np.frombuffer keeps a memoryview
    return owner if isinstance(owner, mmap.mmap) else None


@tensor_method("is_shared")
def is_shared(x):
    """Whether x's memory is shared with other processes (or x is on a GPU)."""
    return x.device.type == "cuda" or _block(x) is not None


@tensor_method("share_memory_")
def share_memory_(x):
    """Move x's values into shared memory, in place (a no-op if they are there already)."""
    if x.device.type != "cpu" or is_shared(x):
        return x
    arr = x._data
    block = SharedBlock.create(max(arr.nbytes, 1))
    shared = np.frombuffer(block, dtype=arr.dtype, count=arr.size).reshape(arr.shape)
    shared[...] = arr
    x._data = shared
    return x


def reduce_tensor(t):
    """How multiprocessing sends a tensor to another process, as torch: a cpu tensor moves
    into shared memory (share_memory_) and travels as its memory's descriptor, so both
    processes then read and write the same pages; others travel by value."""
    from multiprocessing.reduction import DupFd
    if t.requires_grad and t.grad_fn is not None:
        raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, "
                           "since autograd does not support crossing process boundaries. If you "
                           "just want to transfer the data, call detach() on the tensor before "
                           "serializing (e.g., putting it on the queue).")
    if t.device.type == "cpu":
        share_memory_(t)
    block = _block(t) if t.device.type == "cpu" else None
    root = _root(t._data)
    if block is None or getattr(block, "fd", None) is None:
        return _rebuild, (type(t), t.detach().cpu().numpy().copy(), t.requires_grad, None)
    start = t._data.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    where = (DupFd(block.fd), len(block), root.dtype.str, start, t._data.shape,
             t._data.strides)
    return _rebuild, (type(t), None, t.requires_grad, where)


def _rebuild(cls, values, requires_grad, where):
    if where is not None:
        dupfd, nbytes, dtype, start, shape, strides = where
        block = SharedBlock.attach(dupfd.detach(), nbytes)
        base = np.frombuffer(block, dtype=np.dtype(dtype))
        values = np.ndarray(shape, base.dtype, buffer=base, offset=start, strides=strides)
    t = Tensor._make(values, cpu)
    if cls is not Tensor:                 # a Parameter stays a Parameter
        t = cls(t, requires_grad) if _is_parameter(cls) else t
    return t.requires_grad_(requires_grad) if requires_grad and not t.requires_grad else t


def _is_parameter(cls):
    return getattr(cls, "__name__", "") in ("Parameter", "Buffer")
