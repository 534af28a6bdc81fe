"""Every rank compares its collective call with the others' before any data moves.

MPI requires all ranks to make the same collective calls in the same order with matching
buffers; when they do not (a collective inside `if rank == 0:`, a shape that depends on the rank)
MPI hangs or fails with a message about counts. Before each collective, labkit all-gathers a
16-number fingerprint of the call (op, ReduceOp, root, dtype, shape) on a separate communicator
and raises, on every rank, an error that lists what each rank called. It is torch's
TORCH_DISTRIBUTED_DEBUG=DETAIL collective check, on by default because it costs one small
all-gather per collective (one small-message latency; benchmarks/dist_allreduce.py measures it),
which is little next to a large message and buys an error instead of a hang.
LABKIT_DISTRIBUTED_DEBUG=OFF turns it off. The wait is bounded by the group's timeout
(watchdog.py), so a rank that never arrives ends the job with a message instead of a hang.
"""
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
    """The call check of one process group (its own duplicated communicator)."""

    def __init__(self, comm, timeout):
        self.comm, self.timeout = comm, timeout
        self.mine = np.empty(_WIDTH, np.int64)
        self.all = np.empty((comm.Get_size(), _WIDTH), np.int64)

    def agree(self, op, tensor=None, redop=None, root=-1):
        """Raise RuntimeError on every rank if the ranks are not all making this same call."""
        sig = _sign(self.mine, op, tensor, redop, root)
        bounded(self.timeout, lambda: self._late(sig), self.comm.Allgather, sig, self.all)
        _verify(self.all, op)

    def start(self, op, tensor=None, redop=None, root=-1):
        """The same comparison for an async call, started without waiting (MPI_Iallgather)."""
        sig = _sign(np.empty(_WIDTH, np.int64), op, tensor, redop, root)
        table = np.empty((self.comm.Get_size(), _WIDTH), np.int64)
        return PendingCheck(self.comm.Iallgather(sig, table), sig, table, op)

    def finish(self, check):
        """Wait for a started comparison and raise as agree() does."""
        bounded(self.timeout, lambda: self._late(check.sig), check.req.Wait)
        _verify(check.table, check.op)

    def _late(self, sig):
        me, op = self.comm.Get_rank(), OPS[sig[0]]
        return (f"{op}: rank {me} waited {self.timeout:g} s for the other ranks to reach this "
                f"call ({_describe(sig)}), and not all of them did. A rank may be stuck, "
                "or skipped this collective (e.g. it is inside `if rank == 0:`): every rank must "
                "make the same collective calls in the same order. (The timeout is "
                "init_process_group(timeout=...) or $LABKIT_DISTRIBUTED_TIMEOUT.)")


class PendingCheck:
    __slots__ = ("req", "sig", "table", "op")

    def __init__(self, req, sig, table, op):
        self.req, self.sig, self.table, self.op = req, sig, table, op


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


def _verify(table, op):
    if (table != table[0]).any():
        rows = {}
        for r, sig in enumerate(table):
            rows.setdefault(_describe(sig), []).append(r)
        lines = "\n".join(f"  rank{'s' if len(rs) > 1 else ''} {','.join(map(str, rs))}: {text}"
                          for text, rs in rows.items())
        raise RuntimeError(
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
