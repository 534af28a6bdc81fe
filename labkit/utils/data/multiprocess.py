"""The DataLoader iterator with worker processes: they load batches while the main process
trains.

Each worker has its own index queue (tasks in) and result channel (batches out). Task k goes
to the next worker in turn, and each worker serves its tasks in order, so batch k is simply
the next result of the worker that got task k: batches arrive in the sampler's order without
any reordering. Waiting for a batch also watches that worker's process: a worker that dies is
reported at once, a worker that hangs after `timeout` seconds, and either way every worker is
stopped. Stopping (end of epoch, break, error, del) joins the workers, then terminates any
that do not exit, so no process is left behind.
"""
import io
import itertools
import multiprocessing
import os
import signal
import sys
import time
import types
from multiprocessing.connection import wait
from multiprocessing.reduction import ForkingPickler

from . import transport  # noqa: F401  (tensors in datasets and batches can be pickled)
from .channel import channel
from .pin_memory import pin_memory
from .worker import ExceptionWrapper, IterableEnd, worker_loop

_JOIN_S = 1.0      # how long stopping waits for workers to exit before terminating them
_NO_MORE = object()  # the sampler has no more batches this epoch


def _context(spec):
    """fork where the platform has it (Linux, macOS): workers inherit the dataset, even one
    defined in a notebook cell, with nothing pickled. spawn elsewhere (Windows)."""
    if spec is None:
        spec = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    if isinstance(spec, str):
        try:
            return multiprocessing.get_context(spec)
        except ValueError:
            raise ValueError(f"DataLoader: multiprocessing_context={spec!r} is not available "
                             "here; choose one of "
                             f"{multiprocessing.get_all_start_methods()}.") from None
    return spec


class _DefinedInMain(Exception):
    pass


class _MainFinder(ForkingPickler):
    """Pickles as multiprocessing does, but stops at a class or function defined in an
    interactive __main__ (a notebook), which a new process cannot import."""

    def reducer_override(self, obj):
        if isinstance(obj, (type, types.FunctionType)) and obj.__module__ == "__main__":
            raise _DefinedInMain(obj.__qualname__)
        return NotImplemented


def _check_picklable(parts, method):
    """With spawn/forkserver the workers get the dataset by pickling: fail early, clearly."""
    interactive = not hasattr(sys.modules.get("__main__"), "__file__")
    start = (f"DataLoader(num_workers > 0) starts its workers with '{method}', which sends "
             "them the dataset by pickling")
    for name, obj in parts:
        try:
            (_MainFinder if interactive else ForkingPickler)(io.BytesIO()).dump(obj)
        except _DefinedInMain as e:
            raise RuntimeError(
                f"{start}, but {name} uses {e}, defined in this notebook (__main__), which a new "
                f"process cannot import. Fix: move {e} into a .py file next to the notebook "
                "and import it from there; or pass multiprocessing_context='fork' where the "
                "platform has fork; or use num_workers=0.") from None
        except Exception as e:
            raise RuntimeError(
                f"{start}, but {name} cannot be pickled ({type(e).__name__}: {e}). Fix: define "
                "its classes and functions at the top level of a module (no lambdas, no local "
                "functions), or use num_workers=0.") from None


def _death(w, p, method):
    p.join(0.1)
    code = p.exitcode
    if code is not None and code < 0:
        how = f"was killed by signal {signal.Signals(-code).name}"
        if -code == signal.SIGKILL:
            how += " (often the out-of-memory killer: lower batch_size or num_workers)"
    else:
        how = f"exited unexpectedly with exit code {code}"
    hint = (" On macOS a forked worker can crash inside system libraries (e.g. Accelerate): "
            "try multiprocessing_context='spawn', with the dataset in a .py file."
            if sys.platform == "darwin" and method == "fork" else "")
    return (f"DataLoader worker {w} (pid {p.pid}) {how}, so its batch was lost. Run with "
            f"num_workers=0 to see the failure in the main process.{hint}")


class MultiProcessIter:
    """One epoch of batches from worker processes (several epochs with persistent workers)."""

    def __init__(self, loader):
        ctx = _context(loader.multiprocessing_context)
        fetch_args = loader._fetch_args()
        self._method = method = ctx.get_start_method()
        if method != "fork":
            _check_picklable((("the dataset", fetch_args.dataset),
                              ("collate_fn", fetch_args.collate_fn),
                              ("worker_init_fn", loader.worker_init_fn)), method)
        self._n, self._prefetch = loader.num_workers, loader.prefetch_factor
        self._timeout, self._pin = loader.timeout, loader.pin_memory
        self._persistent = loader.persistent_workers
        self._control = ctx.Value("q", 0, lock=False)   # current epoch; -1 tells workers to stop
        self._workers, self._index_queues, self._result_queues = [], [], []
        self.closed = False
        base_seed = loader._base_seed()
        try:
            for w in range(self._n):
                iq, (receiver, sender) = ctx.Queue(), channel(ctx)
                self._index_queues.append(iq)
                self._result_queues.append(receiver)
                p = ctx.Process(target=worker_loop, name=f"DataLoader worker {w}", daemon=True,
                                args=(w, self._n, base_seed, fetch_args, loader.worker_init_fn,
                                      iq, sender, self._control, os.getpid()))
                p.start()
                sender.close()            # the worker's end: the worker has its own copy
                self._workers.append(p)
        except BaseException:
            self._shutdown()
            raise
        self._epoch = 0
        self.reset(loader)

    def reset(self, loader):
        """Start an epoch: results of unfinished tasks from the last one are dropped."""
        self._epoch += 1
        self._control.value = self._epoch
        self._tasks = loader._tasks()
        self._sent = self._received = 0
        self._owner = {}                  # task number -> worker
        self._active = [True] * self._n   # False once a worker's stream has ended
        self._turn = itertools.cycle(range(self._n))
        for _ in range(self._prefetch * self._n):
            self._send_task()

    def _send_task(self):
        if not any(self._active):
            return
        indices = next(self._tasks, _NO_MORE)
        if indices is _NO_MORE:
            return
        w = next(w for w in self._turn if self._active[w])
        # Pickled here, so that a sampler's unpicklable output fails loudly in this process.
        self._index_queues[w].put(bytes(ForkingPickler.dumps((self._epoch, self._sent, indices))))
        self._owner[self._sent] = w
        self._sent += 1

    def __iter__(self):
        return self

    def __next__(self):
        try:
            return self._next_batch()
        except StopIteration:
            raise
        except BaseException:             # worker error, death, timeout, Ctrl-C: stop all
            self._shutdown()
            raise

    def _next_batch(self):
        while not self.closed:
            if self._received == self._sent:
                if not self._persistent:
                    self._shutdown()
                break
            w = self._owner.pop(self._received)
            data = self._result(w)
            self._received += 1
            if isinstance(data, IterableEnd):
                self._active[w] = False
            self._send_task()
            if isinstance(data, IterableEnd):
                continue
            if isinstance(data, ExceptionWrapper):
                data.reraise()
            return pin_memory(data) if self._pin else data
        raise StopIteration

    def _result(self, w):
        """The next result of worker w for this epoch, watching the worker while waiting."""
        q, p = self._result_queues[w], self._workers[w]
        deadline = time.monotonic() + self._timeout if self._timeout else None
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready = wait([q, p.sentinel], left)   # a batch, or the worker's exit
            if q in ready:
                try:
                    payload = q.recv_bytes()
                except EOFError:          # the worker's end closed: it exited
                    raise RuntimeError(_death(w, p, self._method)) from None
                epoch, _, data = ForkingPickler.loads(payload)
                if epoch == self._epoch:
                    return data
                continue                  # from an abandoned epoch (persistent workers)
            if ready:
                raise RuntimeError(_death(w, p, self._method))
            raise RuntimeError(
                f"DataLoader timed out after {self._timeout} s waiting for batch "
                f"{self._received} from worker {w} (pid {p.pid}), which is still running: "
                "its dataset code may be stuck (a lock, a network read) or slower than the "
                "timeout. Raise timeout=, or find the slow sample with num_workers=0.")

    def _shutdown(self):
        if self.closed:
            return
        self.closed = True
        self._control.value = -1
        for q in self._index_queues:
            q.put(None)                   # wakes a worker waiting for a task
        deadline = time.monotonic() + _JOIN_S
        for p in self._workers:
            p.join(max(0.0, deadline - time.monotonic()))
        for p in self._workers:
            if p.exitcode is None:
                p.terminate()
                p.join(_JOIN_S)
            if p.exitcode is None:
                p.kill()
                p.join()
            p.close()
        for q in self._index_queues:
            q.cancel_join_thread()
            q.close()
        for q in self._result_queues:
            q.close()

    def __del__(self):
        if hasattr(self, "closed"):
            self._shutdown()
