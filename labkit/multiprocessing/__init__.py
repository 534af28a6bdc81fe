"""labkit.multiprocessing: Python's multiprocessing with what torch.multiprocessing adds.

Tensors sent to another process (Process args, a Queue) travel by value, except those in
shared memory (x.share_memory_(), model.share_memory()): those travel as their memory's
descriptor, so both processes read and write the same numbers (Hogwild training). spawn(fn,
args, nprocs) starts fn(i, *args) in nprocs processes and re-raises the first one's error.
"""
import multiprocessing
from multiprocessing import *  # noqa: F401,F403
from multiprocessing.reduction import ForkingPickler

from ..engine.ops.share import reduce_tensor
from ..engine.tensor import Tensor
from ..nn.parameter import Parameter
from .spawn import (ProcessContext, ProcessExitedException, ProcessRaisedException,  # noqa
                    spawn, start_processes)

for _cls in (Tensor, Parameter):         # (the pickler's table is keyed by exact class)
    ForkingPickler.register(_cls, reduce_tensor)

_STRATEGIES = ("file_descriptor", "file_system")
_strategy = ["file_descriptor"]


def get_all_sharing_strategies():
    return set(_STRATEGIES)


def get_sharing_strategy():
    return _strategy[0]


def set_sharing_strategy(new_strategy):
    """Accepted for torch's API; labkit always passes a shared tensor's file descriptor."""
    if new_strategy not in _STRATEGIES:
        raise ValueError(f"invalid sharing strategy {new_strategy!r}; one of {_STRATEGIES}")
    _strategy[0] = new_strategy


__all__ = multiprocessing.__all__ + ["spawn", "start_processes", "ProcessContext",
                                     "ProcessRaisedException", "ProcessExitedException",
                                     "get_all_sharing_strategies", "get_sharing_strategy",
                                     "set_sharing_strategy"]
