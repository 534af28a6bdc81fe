"""Every rank compares its collective call with the others', so that a mismatch is an error
that names the calls instead of a hang.

MPI requires all ranks to make the same collective calls in the same order with matching
buffers; when they do not (a collective inside `if rank == 0:`, a shape that depends on the rank)
MPI hangs, or fails with a message about counts, or quietly computes garbage. With each
collective, labkit compares a fingerprint of the call (op, ReduceOp, root, dtype, shape) across
ranks on a separate communicator and raises, on every rank, an error that lists what each rank
called. It is torch's TORCH_DISTRIBUTED_DEBUG=DETAIL collective check, on by default because it
is cheap: the call is hashed once per distinct (op, dtype, shape, ...), the ranks all-gather the
8-byte hashes (comparing them is one bytes comparison), and only when they differ does a second
all-gather (on a third communicator) fetch every rank's full description for the message.

Every call waits for its check before any data moves (an async call's transfer starts once
its check has passed, process_group.flush): MPI given mismatched calls (counts, types, roots)
is free to write past a buffer, and starting the transfer together with the check, to save a
round trip, corrupted the heap now and then when a test provoked a mismatch.
LABKIT_DISTRIBUTED_DEBUG=OFF turns the check off. Every wait is bounded by the group's timeout
(watchdog.py), so a rank that never arrives ends the job with a message instead of a hang.
"""
import hashlib

import numpy as np

from .watchdog import bounded

EXIT = "exit"
OPS = ("barrier", "all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor",
       "reduce_scatter_tensor", "scatter", "gather", "destroy_process_group", EXIT)
DTYPES = ("float16", "float32", "float64", "int8", "uint8", "int16", "int32", "int64", "bool",
          "bfloat16", "uint16", "uint32", "uint64", "complex64", "complex128")
_MAXDIM = 10
_WIDTH = 6 + _MAXDIM            # op, redop, root, dtype, ndim, numel, then the sizes


class Fingerprint:
    """The call check of one process group (its own duplicated communicators)."""

    def __init__(self, comm, timeout):
        self.comm, self.timeout = comm, timeout
        self.explain_comm = comm.Dup()       # the full descriptions, only after a mismatch
        self.n = comm.Get_size()
        self.calls = {}                      # (op, redop, root, dtype, shape) -> _Call

    def agree(self, op, tensor=None, redop=None, root=-1):
        """Raise RuntimeError on every rank if the ranks are not all making this same call."""
        self.finish(self.start(op, tensor, redop, root))

    def start(self, op, tensor=None, redop=None, root=-1):
        """The same comparison, started without waiting. Always MPI_Iallgather, also when the
        caller waits at once: MPI never pairs a blocking collective with a non-blocking one,
        and one rank may be checking a blocking call while another checks an async one."""
        call = self._call(op, tensor, redop, root)
        got = np.empty(self.n, np.int64)
        return PendingCheck(self.comm.Iallgather(call.hash, got), call, got)

    def passed(self, check):
        """Wait for a started comparison: True when every rank makes the same call."""
        bounded(self.timeout, lambda: self._late(check.call.sig), check.req.Wait)
        return check.got.tobytes() == check.call.agreed

    def finish(self, check):
        """Wait for a started comparison and raise as agree() does."""
        if not self.passed(check):
            raise self.mismatch(check.call)

    def _call(self, op, tensor, redop, root):
        if tensor is None:
            k = (op, redop, root)
        else:
            a = tensor._data
            k = (op, redop, root, a.dtype, a.shape)
        call = self.calls.get(k)
        if call is None:
            if len(self.calls) > 4096:       # a program with ever-new shapes: start over
                self.calls.clear()
            sig = _sign(np.empty(_WIDTH, np.int64), op, tensor, redop, root)
            call = self.calls[k] = _Call(sig, self.n)
        return call

    def mismatch(self, call):
        """The hashes differ: gather every rank's full description (every rank gets here,
        since all of them saw the same hashes) and return the error to raise."""
        table = np.empty((self.n, _WIDTH), np.int64)
        bounded(self.timeout, lambda: self._late(call.sig), self.explain_comm.Allgather,
                call.sig, table)
        return _error(table, OPS[call.sig[0]])

    def free(self):
        self.explain_comm.Free()
        self.comm.Free()

    def _late(self, sig):
        me, op = self.comm.Get_rank(), OPS[sig[0]]
        return (f"{op}: rank {me} waited {self.timeout:g} s for the other ranks to reach this "
                f"call ({_describe(sig)}), and not all of them did. A rank may be stuck, "
                "or skipped this collective (e.g. it is inside `if rank == 0:`): every rank must "
                "make the same collective calls in the same order. (The timeout is "
                "init_process_group(timeout=...) or $LABKIT_DISTRIBUTED_TIMEOUT.)")


class PendingCheck:
    __slots__ = ("req", "call", "got")

    def __init__(self, req, call, got):
        self.req, self.call, self.got = req, call, got


class _Call:
    """One kind of call, prepared once: its description `sig`, its 8-byte `hash`, and
    `agreed`, the bytes the all-gather of hashes returns when every rank makes this call."""
    __slots__ = ("sig", "hash", "agreed")

    def __init__(self, sig, n):
        h = hashlib.blake2b(sig.tobytes(), digest_size=8).digest()
        self.sig, self.hash = sig, np.frombuffer(h, np.int64)
        sig.flags.writeable = False
        self.agreed = h * n


def _sign(sig, op, tensor, redop, root):
    sig.fill(-1)
    sig[0] = OPS.index(op)
    sig[1] = -1 if redop is None else redop.value
    sig[2] = root
    if tensor is not None:
        a = tensor._data
        name = a.dtype.name
        sig[3] = DTYPES.index(name) if name in DTYPES else 1000 + a.dtype.num
        sig[4], sig[5] = a.ndim, a.size
        sig[6:6 + min(a.ndim, _MAXDIM)] = a.shape[:_MAXDIM]
    return sig


def _error(table, op):
    rows = {}
    for r, sig in enumerate(table):
        rows.setdefault(_describe(sig), []).append(r)
    lines = "\n".join(f"  rank{'s' if len(rs) > 1 else ''} {','.join(map(str, rs))}: {text}"
                      for text, rs in rows.items())
    return RuntimeError(
        f"{op}: the ranks are not making the same collective call:\n{lines}\n"
        "Every rank must call the same collectives in the same order, with tensors of "
        "the same shape and dtype (and the same op and src/dst); a collective inside "
        "`if rank == ...:` or a shape that depends on the rank are the usual causes.")


def _describe(sig):
    op = OPS[sig[0]]
    if op == EXIT:
        return "has finished its script (it makes no more collective calls)"
    if op in ("barrier", "destroy_process_group"):
        return f"{op}()"
    code, ndim = int(sig[3]), int(sig[4])
    dtype = DTYPES[code] if code < len(DTYPES) else f"dtype#{code - 1000}"
    shape = tuple(int(s) for s in sig[6:6 + min(ndim, _MAXDIM)])
    text = f"{dtype} tensor of shape {shape}" if ndim <= _MAXDIM else \
        f"{dtype} tensor with {ndim} dims starting {shape} ({int(sig[5])} elements)"
    if sig[1] >= 0:
        from .reduce_op import ReduceOp
        text += f", op=ReduceOp.{ReduceOp(int(sig[1])).name}"
    if sig[2] >= 0:
        text += f", {'dst' if op in ('reduce', 'gather') else 'src'}={int(sig[2])}"
    return f"{op}({text})"
