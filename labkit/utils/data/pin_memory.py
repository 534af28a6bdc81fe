"""pin_memory: batches in page-locked host memory, so their copy to the GPU is faster.

A GPU copies from host memory by DMA, which needs pages the operating system promises not to
move or swap out ("pinned"). From ordinary (pageable) memory the driver first copies into a
pinned staging buffer, then to the GPU; a batch that is already pinned skips that step, and
its transfer can overlap with computation. Without a CUDA GPU there is nothing to pin for:
pin_memory=True then returns the batch unchanged (a documented no-op), so one script runs on
both kinds of machine.
"""
import collections.abc

from ...engine.device import cpu, cuda_available
from ...engine.tensor import Tensor


def pin_memory(data):
    """The batch with every cpu tensor copied into pinned memory (unchanged without CUDA)."""
    if not cuda_available():
        return data
    return _pin(data)


def _pin(data):
    if isinstance(data, Tensor):
        return data.pin_memory() if data.device is cpu else data
    if isinstance(data, collections.abc.Mapping):
        return type(data)({k: _pin(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(_pin(d) for d in data))
    if isinstance(data, (tuple, list)):
        return type(data)(_pin(d) for d in data)
    return data
