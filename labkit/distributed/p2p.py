"""Point-to-point: send/recv and their non-blocking isend/irecv (MPI Isend/Irecv), and
batch_isend_irecv. Waits are bounded by the group's timeout; a message whose size differs from
the receiving tensor's is an error naming both, never a silent partial fill."""
import numpy as np

from .buffers import HostBuffer, check_tensor, mpi_view
from .process_group import _default
from .work import Work


def _peer(op, g, peer, name):
    if peer is None and name == "src":
        return None
    if not isinstance(peer, (int, np.integer)) or not 0 <= peer < g.size():
        raise ValueError(f"{op}: invalid {name} rank {peer!r}: the ranks are 0..{g.size() - 1}.")
    if peer == g.rank():
        kind = "destination" if name == "dst" else "source"
        raise ValueError(f"Invalid {kind} rank: {kind} rank should not be the same as the rank "
                         f"of the current process. (labkit: {op} on rank {peer} names itself as "
                         f"{name}.)")
    return int(peer)


def _what(op, t, peer, tag, direction):
    a = t._data
    where = "any rank" if peer is None else f"rank {peer}"
    return (f"{op} {direction} {where} (tag {tag}) of a {a.dtype} tensor of shape "
            f"{tuple(a.shape)} ({a.nbytes} bytes)")


def isend(tensor, dst, group=None, tag=0):
    """Start sending `tensor` to rank `dst`; the returned Work's wait() says it has left."""
    g = _default("isend", group)
    check_tensor("isend", tensor)
    dst = _peer("isend", g, dst, "dst")
    b = HostBuffer("isend", tensor, write=False)
    req = _mpi(g, lambda: g.comm.Isend(mpi_view(b.arr), dst, tag), "isend")
    return Work(g, req, _what("isend", tensor, dst, tag, "to"),
                finish=lambda _status, keep=b: None)


def irecv(tensor, src=None, group=None, tag=0):
    """Start receiving into `tensor` from rank `src` (None: any rank); wait() fills it."""
    g = _default("irecv", group)
    check_tensor("irecv", tensor)
    src = _peer("irecv", g, src, "src")
    b = HostBuffer("irecv", tensor, read=False)
    what = _what("irecv", tensor, src, tag, "from")
    MPI = g.MPI
    req = _mpi(g, lambda: g.comm.Irecv(mpi_view(b.arr), MPI.ANY_SOURCE if src is None else src,
                                       tag), "irecv")

    def finish(status):
        got = status.Get_count(MPI.BYTE)
        if got != b.arr.nbytes:
            raise RuntimeError(f"{what}: the message from rank {status.Get_source()} has {got} "
                               "bytes; sender and receiver must use tensors of the same shape "
                               "and dtype.")
        b.commit()
    return _Recv(g, req, what, finish, [tensor], status=MPI.Status())


class _Recv(Work):
    """A receive: MPI's 'message truncated' becomes an error naming the receiving tensor."""

    def _guard(self, call):
        try:
            return call()
        except self._group.MPI.Exception as e:
            self._done, self._req = True, None
            self._group.active.pop(self, None)
            self._exc = RuntimeError(f"{self._what}: the message is larger than the tensor "
                                     f"(MPI: {e.Get_error_string().strip()}); sender and "
                                     "receiver must use tensors of the same shape and dtype.")
            raise self._exc from None

    def is_completed(self):
        return self._guard(super().is_completed)

    def wait(self, timeout=None):
        return self._guard(lambda: super(_Recv, self).wait(timeout))


def send(tensor, dst, group=None, tag=0):
    """Send `tensor` to rank `dst` (returns once the data has left this tensor)."""
    isend(tensor, dst, group, tag).wait()


def recv(tensor, src=None, group=None, tag=0):
    """Receive into `tensor` from rank `src` (None: any rank); returns the sender's rank."""
    work = irecv(tensor, src, group, tag)
    work.wait()
    return work.source_rank()


class P2POp:
    """One send or receive for batch_isend_irecv: P2POp(isend, tensor, peer) or (irecv, ...)."""

    def __init__(self, op, tensor, peer=None, group=None, tag=0):
        if op not in (isend, irecv):
            raise ValueError("P2POp: op must be labkit.distributed.isend or irecv, got "
                             f"{op!r}.")
        self.op, self.tensor, self.peer, self.group, self.tag = op, tensor, peer, group, tag


def batch_isend_irecv(p2p_op_list):
    """Start every send and receive of the list; returns their Works (wait on each)."""
    return [p.op(p.tensor, p.peer, p.group, p.tag) for p in p2p_op_list]


def _mpi(g, call, op):
    try:
        return call()
    except g.MPI.Exception as e:
        raise RuntimeError(f"{op}: MPI refused the call: {e.Get_error_string().strip()}") from None
