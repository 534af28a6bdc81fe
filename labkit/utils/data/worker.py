"""What runs inside a DataLoader worker process, and get_worker_info() for datasets.

A worker is a separate process with its own copy of the dataset. It takes tasks (the indices
of one batch) from its index queue, fetches and collates them, and puts the batch on its
result queue. Before the first task it seeds every random stream a dataset might use (labkit's,
numpy's global one, Python's `random`) with base_seed + worker_id, so workers never repeat each
other's random augmentations, and the same labkit.manual_seed reproduces them all.
"""
import os
import pickle
import queue
import random
import signal
import sys
import threading
import traceback

import numpy as np

_WATCHDOG_S = 1.0      # how often an idle worker checks that the main process still exists
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


class WorkerInfo:
    """Who am I? id (0 .. num_workers-1), num_workers, seed, and this worker's dataset copy."""
    __slots__ = ("id", "num_workers", "seed", "dataset")

    def __init__(self, id, num_workers, seed, dataset):
        for name, value in zip(self.__slots__, (id, num_workers, seed, dataset)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"WorkerInfo is read-only (tried to set {name}).")

    def __repr__(self):
        return (f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed}, "
                f"dataset={type(self.dataset).__name__})")


_worker_info = None


def get_worker_info():
    """Inside a DataLoader worker: its WorkerInfo. In the main process: None.

    An IterableDataset uses it in __iter__ to read only its own share of the stream, e.g.
    every num_workers-th item starting at id."""
    return _worker_info


class ExceptionWrapper:
    """An exception raised in a worker, carried to the main process with its traceback."""

    def __init__(self, exc_info, where):
        self.exc_type = exc_info[0]
        self.traceback = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = (f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.traceback}")
        if self.exc_type is KeyError:
            msg = _PlainMessage(msg)
        try:
            exc = self.exc_type(msg)
        except Exception:      # an exception type that needs other arguments
            exc = RuntimeError(msg)
        raise exc


class _PlainMessage(str):
    """KeyError shows repr(message); this keeps the traceback readable."""

    def __repr__(self):
        return str(self)


class IterableEnd:
    """A worker's answer once its share of an IterableDataset is used up."""


def _send(result_queue, epoch, idx, data, where):
    """Pickle here rather than in the channel's background thread, which could only drop an
    unpicklable batch, leaving the main process waiting forever."""
    from multiprocessing.reduction import ForkingPickler
    try:
        payload = ForkingPickler.dumps((epoch, idx, data))
    except Exception:
        error = ExceptionWrapper(sys.exc_info(), where + " (sending the batch back)")
        try:
            payload = ForkingPickler.dumps((epoch, idx, error))
        except Exception:         # the exception's own class cannot be pickled
            error.exc_type = RuntimeError
            payload = ForkingPickler.dumps((epoch, idx, error))
    result_queue.put(bytes(payload))


def _seed_everything(seed):
    from ...engine.creation import manual_seed
    manual_seed(seed)
    random.seed(seed)
    np.random.seed(np.random.SeedSequence(seed).generate_state(4))


def _die_with_parent(parent_pid):
    """Have the kernel SIGKILL this worker when the main process dies (Linux's parent-death
    signal, prctl(PR_SET_PDEATHSIG)), so a worker stuck in __getitem__ cannot outlive a main
    process killed with SIGKILL; the idle watchdog in worker_loop covers waiting workers
    everywhere else. The signal follows the *thread* that started the worker, so it is set
    only for workers started from the main thread (a loader iterated in a short-lived thread
    would otherwise lose its workers when that thread ends)."""
    if not sys.platform.startswith("linux") or os.getppid() != parent_pid:
        return                        # not Linux, or the parent is gone already (watchdog)
    if threading.current_thread().name != "MainThread":
        return                        # forked from another thread: see above
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent_pid:    # the parent died just before prctl took effect
        os._exit(0)


def worker_loop(worker_id, num_workers, base_seed, fetch_args, worker_init_fn, index_queue,
                result_queue, control, parent_pid):
    """Serve pickled tasks (epoch, task_idx, indices) until told to stop: a None task, or
    control set to -1. Tasks from an epoch other than control's current one are skipped.
    fetch_args is a fetch.FetchArgs; results go out through a channel.Sender."""
    from . import transport  # noqa: F401  (lets labkit tensors travel back to the main process)
    from .fetch import create_fetcher
    global _worker_info
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
    _die_with_parent(parent_pid)
    seed = base_seed + worker_id
    _seed_everything(seed)
    dataset, iterable = fetch_args.dataset, fetch_args.iterable
    _worker_info = WorkerInfo(worker_id, num_workers, seed, dataset)
    where = f"in DataLoader worker process {worker_id}"
    init_error, fetcher, fetcher_epoch = None, None, None
    try:
        if worker_init_fn is not None:
            worker_init_fn(worker_id)
    except Exception:
        init_error = ExceptionWrapper(sys.exc_info(), where + " (in worker_init_fn)")
    while control.value >= 0:
        try:
            task = index_queue.get(timeout=_WATCHDOG_S)
        except queue.Empty:
            if os.getppid() != parent_pid:   # the main process died: do not linger
                break
            continue
        if task is None or control.value < 0:
            break
        epoch, idx, indices = pickle.loads(task)
        if epoch != control.value:
            continue
        if init_error is not None:
            _send(result_queue, epoch, idx, init_error, where)
            continue
        try:
            if fetcher is None or (iterable and fetcher_epoch != epoch):
                fetcher, fetcher_epoch = None, epoch
                fetcher = create_fetcher(*fetch_args)
            data = fetcher.fetch(indices)
        except Exception as e:
            ended = iterable and isinstance(e, StopIteration)
            data = IterableEnd() if ended else ExceptionWrapper(sys.exc_info(), where)
        _send(result_queue, epoch, idx, data, where)
        del data
    result_queue.close()   # exits even if the main process reads no more batches
