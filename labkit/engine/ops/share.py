"""Tensor.share_memory_ / is_shared: a tensor's values in memory that forked processes share.

Hogwild training (pytorch/examples mnist_hogwild) calls model.share_memory() and then starts
worker processes that all update the same parameters. Here the values move into an anonymous
shared mapping (mmap, MAP_SHARED): a process forked afterwards writes into the same pages, so
its updates are seen by the parent. The tensor stays the same object; views taken *before*
share_memory_() keep the old memory (take them after it). CUDA tensors are shared already.
"""
import mmap

import numpy as np

from ..tensor import tensor_method


def _root(arr):
    while isinstance(getattr(arr, "base", None), np.ndarray):
        arr = arr.base
    return arr


@tensor_method("is_shared")
def is_shared(x):
    """Whether x's memory is shared with processes forked from here (or x is on a GPU)."""
    if x.device.type == "cuda":
        return True
    owner = getattr(_root(x._data), "base", None)
    return isinstance(getattr(owner, "obj", owner), mmap.mmap)      # frombuffer: a memoryview


@tensor_method("share_memory_")
def share_memory_(x):
    """Move x's values into shared memory, in place (a no-op if they are there already)."""
    if x.device.type != "cpu" or is_shared(x):
        return x
    arr = x._data
    buf = mmap.mmap(-1, max(arr.nbytes, 1))
    shared = np.frombuffer(buf, dtype=arr.dtype, count=arr.size).reshape(arr.shape)
    shared[...] = arr
    x._data = shared
    return x
