"""The default process group on MPI: init_process_group, rank and size, barrier, and what keeps a
job from hanging (every rank's collective call is compared with the others' before data moves;
a rank that fails stops them all).

mpi4py is imported (and MPI initialised) only by init_process_group, so `import labkit.distributed`
stays cheap and works where MPI is not installed.
"""
import atexit
import collections
import datetime
import importlib.util
import os
import sys

from .fingerprint import EXIT, Fingerprint
from .watchdog import bounded

_NOT_INIT = ("Default process group has not been initialized, please make sure to call "
             "init_process_group.")


class ProcessGroup:
    """All the ranks of the job (MPI_COMM_WORLD): torch's default process group."""

    def __init__(self, MPI, timeout, check):
        self.MPI = MPI
        self.comm = MPI.COMM_WORLD.Dup()           # the data moves here
        self._rank, self._size = self.comm.Get_rank(), self.comm.Get_size()
        self.timeout = timeout
        # the call comparison talks on its own communicator, so it never pairs with data
        self.fingerprint = Fingerprint(self.comm.Dup(), timeout) if check and self._size > 1 \
            else None
        self.pending = collections.deque()        # async Works whose check is in flight
        self.active = {}                          # Works whose MPI request is in flight

    def rank(self):
        return self._rank

    def size(self):
        return self._size

    def name(self):
        return "mpi"

    def __repr__(self):
        return f"<labkit.distributed.ProcessGroup mpi rank={self._rank} size={self._size}>"

    def agree(self, op, tensor=None, redop=None, root=-1, async_op=False, data=False):
        """Check that every rank is making this same call (op, dtype, shape, ReduceOp, root);
        LABKIT_DISTRIBUTED_DEBUG=OFF turns it off (None is returned). A call without data
        (barrier, destroy) checks now. An async call only starts its check and returns it: its
        Work starts the data transfer once the check has passed (see flush), so the call itself
        never waits for the other ranks. A blocking call with data (`data=True`) also gets the
        started check back: settle() waits for it, then moves the data."""
        if self.fingerprint is None:
            return None
        if async_op:
            return self.fingerprint.start(op, tensor, redop, root)
        self.flush()
        if data:
            return self.fingerprint.start(op, tensor, redop, root)
        self.fingerprint.agree(op, tensor, redop, root)

    def settle(self, check, start, what):
        """Finish a blocking call: wait for its check, then start its transfer (`start()`, a
        non-blocking MPI call, as an async call's on another rank would be) and wait for it.
        When the ranks disagree nothing is started: MPI given mismatched calls may write past
        a buffer (a heap corruption found in CI), so no data moves before the check passes."""
        self.fingerprint.finish(check)
        req = start()
        bounded(self.timeout, lambda: f"{what} on rank {self._rank} did not complete within "
                f"{self.timeout:g} s.", req.Wait)

    def flush(self, upto=None, wait=True):
        """Start the transfers of pending async calls, in call order (the order MPI needs on
        every rank), whose check has passed: all of them (waiting for their checks), up to and
        including `upto`, or, with wait=False, only those whose check has already completed."""
        pending = self.pending
        while pending:
            work = pending[0]
            if not wait and not work._check.req.Test():
                return
            pending.popleft()
            work._begin()
            if work is upto:
                return

    def drain(self):
        """Finish every async call still in flight (MPI may still be using their buffers)."""
        self.flush()
        while self.active:
            next(iter(self.active)).wait()

    def free(self):
        if self.fingerprint is not None:
            self.fingerprint.free()
        self.comm.Free()


_group = None       # the default ProcessGroup once initialised
_exit_registered = False


def is_available():
    """True when labkit.distributed can run: mpi4py is installed (pip install 'labkit[dist]')."""
    return importlib.util.find_spec("mpi4py") is not None


def is_mpi_available():
    return is_available()


def is_gloo_available():
    return False


def is_nccl_available():
    return False


def is_initialized():
    return _group is not None


def is_torchelastic_launched():
    return False


def _default(op, group=None):
    """The group an op runs on, or torch's error when there is none."""
    if _group is None:
        raise ValueError(f"{_NOT_INIT} (labkit: {op} was called first; start the script with "
                         "`python -m labkit.distributed.run --nproc-per-node N script.py` or "
                         "`mpiexec -n N python script.py`, and call "
                         "labkit.distributed.init_process_group() before any collective.)")
    if group is not None and group is not _group:
        raise ValueError(f"{op}: labkit has only the default process group (group=None); "
                         f"got {group!r}.")
    return _group


def _seconds(timeout):
    if timeout is None:
        return float(os.environ.get("LABKIT_DISTRIBUTED_TIMEOUT", 600))
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds()
    return float(timeout)


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Join the job's ranks (started by mpiexec, or alone as a world of 1) as torch's default
    process group. Rank and world size come from MPI; `world_size`/`rank`, when given, must
    agree with it. `timeout` (timedelta or seconds, default 600 s or $LABKIT_DISTRIBUTED_TIMEOUT)
    bounds how long a rank waits for the others to reach the same collective."""
    global _group
    if _group is not None:
        raise ValueError("trying to initialize the default process group twice! (labkit: call "
                         "destroy_process_group() first if you mean to start again.)")
    if backend is not None and str(backend).lower() not in ("mpi", "gloo", "nccl", "cpu:gloo",
                                                              "cpu:gloo,cuda:nccl"):
        raise ValueError(f"init_process_group: unknown backend {backend!r}; labkit runs on MPI: "
                         "use backend='mpi'.")
    if not is_available():
        raise RuntimeError("init_process_group: labkit.distributed needs mpi4py and an MPI "
                           "library: pip install 'labkit[dist]' (mpi4py and the mpich wheel).")
    from mpi4py import MPI
    world = MPI.COMM_WORLD
    n, r = world.Get_size(), world.Get_rank()
    if world_size not in (-1, None) and int(world_size) != n:
        raise ValueError(f"init_process_group: world_size={world_size} but MPI started {n} "
                         f"process(es). Launch {world_size} with `mpiexec -n {world_size} python "
                         "script.py` (or the launcher's --nproc-per-node), or drop world_size.")
    if rank not in (-1, None) and int(rank) != r:
        raise ValueError(f"init_process_group: rank={rank} but MPI gave this process rank {r}; "
                         "under MPI the launcher assigns ranks: drop the rank argument.")
    check = os.environ.get("LABKIT_DISTRIBUTED_DEBUG", "DETAIL").upper() != "OFF"
    _group = ProcessGroup(MPI, _seconds(timeout), check)
    global _exit_registered
    if not _exit_registered:
        atexit.register(_at_exit)
        _exit_registered = True
    if n > 1:
        _install_fault_handlers()


def destroy_process_group(group=None):
    """Leave the group (every rank calls it). MPI itself stays up until the process exits."""
    global _group
    g = _default("destroy_process_group", group)
    try:
        g.drain()
        g.agree("destroy_process_group")
    finally:
        _group = None
        g.free()


def get_rank(group=None):
    return _default("get_rank", group).rank()


def get_world_size(group=None):
    return _default("get_world_size", group).size()


def get_backend(group=None):
    return _default("get_backend", group).name()


def barrier(group=None, async_op=False, device_ids=None):
    """Wait until every rank gets here. With the call check on, the check itself is the barrier."""
    from .work import Work
    g = _default("barrier", group)
    check = g.agree("barrier", async_op=async_op)
    if check is not None:                   # the check is the barrier: done when it is
        return Work(g, None, "barrier", check=check)
    if g.fingerprint is not None or g.size() == 1:
        return Work.done() if async_op else None
    if async_op:
        return Work(g, g.comm.Ibarrier(), "barrier")
    bounded(g.timeout, lambda: f"barrier on rank {g.rank()} waited {g.timeout:g} s: not every "
            "rank reached it.", g.comm.Barrier)


# --- a failing rank stops every rank ------------------------------------------------------
_installed = False


def _install_fault_handlers():
    """An uncaught exception on any rank prints its traceback and ends the whole job (mpiexec
    kills every rank and exits non-zero), instead of leaving the other ranks waiting forever in
    their next collective. A rank that ends its script while others still
    call collectives makes them fail with a message naming it (see Fingerprint)."""
    global _installed
    if _installed:
        return
    _installed = True
    previous = sys.excepthook

    def abort_all(kind, value, tb):
        previous(kind, value, tb)
        g = _group
        if g is None:
            return
        sys.stderr.write(f"labkit.distributed: rank {g.rank()} of {g.size()} failed with the "
                         "error above; stopping every rank.\n")
        _abort(g)

    sys.excepthook = abort_all


def _at_exit():
    """The script ended on this rank: tell ranks still making collective calls, then leave."""
    global _group
    g = _group
    if g is None:
        return
    try:
        g.drain()
        if g.fingerprint is not None:
            g.fingerprint.agree(EXIT)
    except RuntimeError as e:
        sys.stderr.write(f"{e}\nlabkit.distributed: rank {g.rank()} stops every rank.\n")
        _abort(g)
    _group = None
    g.free()


def _abort(g):
    """Leave at once with exit code 1, skipping MPI_Finalize and the exit handlers: mpiexec
    sees a rank end badly, forwards all it printed, kills every other rank and exits non-zero.
    (MPI_Abort would do the same but can lose the traceback still in the output pipe.)"""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(1)
