"""Collectives on tensors, with torch.distributed's names and semantics, each one MPI call.

Results land in the tensors in place, as in torch; `async_op=True` starts MPI's non-blocking
version (Iallreduce, Ibcast, ...) and returns a Work whose wait() finishes it. Every rank must
make the same calls in the same order (checked: see fingerprint.py).
"""
import numpy as np

from .buffers import HostBuffer, check_tensor, mpi_knows, mpi_view, reducible
from .process_group import _default
from .reduce_op import ReduceOp, mpi_op
from .watchdog import bounded
from .work import Work


def _run(g, async_op, what, blocking, nonblocking, finish, outputs, check=None):
    """Run the blocking MPI call now, or hand back the Work of the non-blocking one (started
    at once, or once `check`, the async call comparison, has passed)."""
    if async_op:
        return Work(g, None, what, lambda _status: finish(), outputs, start=nonblocking,
                    check=check)
    if check is None:
        bounded(g.timeout, lambda: _late(what, g), blocking)
    else:                                    # the check, then the data (see fingerprint.py)
        g.settle(check, nonblocking, what)
    finish()
    return None


def _late(what, g):
    return f"{what} on rank {g.rank()} did not complete within {g.timeout:g} s: not every " \
           "rank made this call."


def _root(op, g, root, name):
    if not isinstance(root, (int, np.integer)) or not 0 <= root < g.size():
        raise RuntimeError(f"{op}: invalid root rank: {root!r} ({name}; the ranks are "
                           f"0..{g.size() - 1}).")
    return int(root)


def _average(op, arr, n):
    if op is ReduceOp.AVG:
        np.divide(arr, n, out=arr)


def _same(op, t, ref, name, ref_name):
    check_tensor(op, t, name)
    if t._data.shape != ref._data.shape or t._data.dtype != ref._data.dtype:
        raise RuntimeError(f"{op}: {name} is a {t._data.dtype} tensor of shape "
                           f"{tuple(t._data.shape)}, but {ref_name} is {ref._data.dtype} "
                           f"{tuple(ref._data.shape)}: they must match.")


def _list(op, tensors, n, name, ref, ref_name):
    if not isinstance(tensors, (list, tuple)) or len(tensors) != n:
        got = len(tensors) if isinstance(tensors, (list, tuple)) else type(tensors).__name__
        raise RuntimeError(f"{op}: {name} must be a list with one tensor per rank ({n}), "
                           f"got {got}.")
    for i, t in enumerate(tensors):
        _same(op, t, ref, f"{name}[{i}]", ref_name)


def _stacked_or_cat(op, big, small, n, big_name, small_name):
    """`big` must hold n `small`s: stacked (n, *s) or concatenated along dim 0 (n*s0, ...)."""
    s = tuple(small._data.shape)
    cat = (n * s[0],) + s[1:] if s else (n,)
    if tuple(big._data.shape) not in (cat, (n,) + s) or big._data.dtype != small._data.dtype:
        raise RuntimeError(f"{op}: {big_name} is {big._data.dtype} {tuple(big._data.shape)}, "
                           f"but with {n} ranks and a {small_name} of {small._data.dtype} {s} it "
                           f"must be {small._data.dtype} {cat} (concatenated) or {(n,) + s} "
                           "(stacked).")


def _host(t):
    return t._data if isinstance(t._data, np.ndarray) else t._data.get()


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Combine `tensor` across ranks with `op`; every rank gets the result, in place."""
    g = _default("all_reduce", group)
    check_tensor("all_reduce", tensor)
    a = tensor._data
    mop = mpi_op(g.MPI, op, a.dtype, "all_reduce")
    check = g.agree("all_reduce", tensor, op, async_op=async_op, data=True)
    if not async_op and type(a) is np.ndarray and a.flags.c_contiguous and a.flags.writeable \
            and mpi_knows(a.dtype):      # the common case, lean: MPI works in the tensor itself
        if check is None:
            bounded(g.timeout, lambda: _late("all_reduce", g), g.comm.Allreduce,
                    g.MPI.IN_PLACE, a, mop)
        else:
            g.settle(check, lambda: g.comm.Iallreduce(g.MPI.IN_PLACE, a, mop), "all_reduce")
        _average(op, a, g.size())
        tensor._bump_version()
        return None
    b = HostBuffer("all_reduce", tensor)
    red, IN = reducible(b.arr), g.MPI.IN_PLACE

    def finish():
        _average(op, red, g.size())
        b.commit(red)
    return _run(g, async_op, "all_reduce", lambda: g.comm.Allreduce(IN, red, mop),
                lambda: g.comm.Iallreduce(IN, red, mop), finish, [tensor], check=check)


def broadcast(tensor, src, group=None, async_op=False):
    """Copy rank `src`'s tensor into every rank's `tensor`."""
    g = _default("broadcast", group)
    check_tensor("broadcast", tensor)
    src = _root("broadcast", g, src, "src")
    check = g.agree("broadcast", tensor, root=src, async_op=async_op, data=True)
    receiving = g.rank() != src
    b = HostBuffer("broadcast", tensor, write=receiving)
    view = mpi_view(b.arr)

    def finish():
        if receiving:
            b.commit()
    return _run(g, async_op, "broadcast", lambda: g.comm.Bcast(view, root=src),
                lambda: g.comm.Ibcast(view, root=src), finish, [tensor], check=check)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, async_op=False):
    """Combine `tensor` across ranks into rank `dst`'s tensor; the others' stay as they were."""
    g = _default("reduce", group)
    check_tensor("reduce", tensor)
    dst = _root("reduce", g, dst, "dst")
    mop = mpi_op(g.MPI, op, tensor._data.dtype, "reduce")
    check = g.agree("reduce", tensor, op, root=dst, async_op=async_op, data=True)
    mine = g.rank() == dst
    b = HostBuffer("reduce", tensor, write=mine)
    red = reducible(b.arr)
    send, recv = (g.MPI.IN_PLACE, red) if mine else (red, None)

    def finish():
        if mine:
            _average(op, red, g.size())
            b.commit(red)
    return _run(g, async_op, "reduce", lambda: g.comm.Reduce(send, recv, mop, root=dst),
                lambda: g.comm.Ireduce(send, recv, mop, root=dst), finish, [tensor], check=check)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Every rank gets every rank's tensor: tensor_list[r] = rank r's `tensor`."""
    g = _default("all_gather", group)
    check_tensor("all_gather", tensor)
    _list("all_gather", tensor_list, g.size(), "tensor_list", tensor, "the input tensor")
    check = g.agree("all_gather", tensor, async_op=async_op, data=True)
    outs = [HostBuffer("all_gather", t, f"tensor_list[{i}]", read=False)
            for i, t in enumerate(tensor_list)]
    send = mpi_view(HostBuffer("all_gather", tensor, write=False).arr)
    got = np.empty((g.size(),) + tuple(tensor._data.shape), tensor._data.dtype)
    recv = mpi_view(got)

    def finish():
        for r, out in enumerate(outs):
            out.commit(got[r])
    return _run(g, async_op, "all_gather", lambda: g.comm.Allgather(send, recv),
                lambda: g.comm.Iallgather(send, recv), finish, list(tensor_list), check=check)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """All ranks' `input_tensor`s, in rank order, into one `output_tensor`: concatenated along
    dim 0 (shape (world_size * n, ...)) or stacked (shape (world_size, n, ...))."""
    g = _default("all_gather_into_tensor", group)
    check_tensor("all_gather_into_tensor", output_tensor, "output_tensor")
    check_tensor("all_gather_into_tensor", input_tensor, "input_tensor")
    _stacked_or_cat("all_gather_into_tensor", output_tensor, input_tensor, g.size(),
                    "output_tensor", "input_tensor")
    check = g.agree("all_gather_into_tensor", input_tensor, async_op=async_op, data=True)
    send = mpi_view(HostBuffer("all_gather_into_tensor", input_tensor, "input_tensor",
                               write=False).arr)
    out = HostBuffer("all_gather_into_tensor", output_tensor, "output_tensor", read=False)
    recv = mpi_view(out.arr)
    return _run(g, async_op, "all_gather_into_tensor", lambda: g.comm.Allgather(send, recv),
                lambda: g.comm.Iallgather(send, recv), out.commit, [output_tensor], check=check)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce `input` (world_size blocks, concatenated along dim 0 or stacked) across ranks and
    give rank r block r of the result, in `output`."""
    g = _default("reduce_scatter_tensor", group)
    check_tensor("reduce_scatter_tensor", output, "output")
    check_tensor("reduce_scatter_tensor", input, "input")
    _stacked_or_cat("reduce_scatter_tensor", input, output, g.size(), "input", "output")
    mop = mpi_op(g.MPI, op, output._data.dtype, "reduce_scatter_tensor")
    check = g.agree("reduce_scatter_tensor", output, op, async_op=async_op, data=True)
    rin = reducible(HostBuffer("reduce_scatter_tensor", input, "input", write=False).arr)
    out = HostBuffer("reduce_scatter_tensor", output, "output", read=False)
    rout = out.arr if rin.dtype == out.arr.dtype else np.empty(out.arr.shape, rin.dtype)

    def finish():
        _average(op, rout, g.size())
        out.commit(rout)
    return _run(g, async_op, "reduce_scatter_tensor",
                lambda: g.comm.Reduce_scatter_block(rin, rout, mop),
                lambda: g.comm.Ireduce_scatter_block(rin, rout, mop), finish, [output], check=check)


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False):
    """Rank r's `tensor` gets rank `src`'s scatter_list[r] (scatter_list is given on src only)."""
    g = _default("scatter", group)
    check_tensor("scatter", tensor)
    src = _root("scatter", g, src, "src")
    if g.rank() == src:
        if scatter_list is None:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank. "
                             f"(labkit: scatter: rank src={src} passes one tensor per rank.)")
        _list("scatter", scatter_list, g.size(), "scatter_list", tensor, "the output tensor")
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks. "
                         f"(labkit: scatter: only rank src={src} passes the list.)")
    check = g.agree("scatter", tensor, root=src, async_op=async_op, data=True)
    out = HostBuffer("scatter", tensor, read=False)
    send = mpi_view(np.stack([_host(t) for t in scatter_list])) if g.rank() == src else None
    recv = mpi_view(out.arr)
    return _run(g, async_op, "scatter", lambda: g.comm.Scatter(send, recv, root=src),
                lambda: g.comm.Iscatter(send, recv, root=src), out.commit, [tensor], check=check)


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False):
    """Rank `dst` gets every rank's tensor: gather_list[r] = rank r's `tensor` (on dst only)."""
    g = _default("gather", group)
    check_tensor("gather", tensor)
    dst = _root("gather", g, dst, "dst")
    mine = g.rank() == dst
    if mine:
        if gather_list is None:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank. "
                             f"(labkit: gather: rank dst={dst} passes one tensor per rank.)")
        _list("gather", gather_list, g.size(), "gather_list", tensor, "the input tensor")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination "
                         f"ranks. (labkit: gather: only rank dst={dst} passes the list.)")
    check = g.agree("gather", tensor, root=dst, async_op=async_op, data=True)
    send = mpi_view(HostBuffer("gather", tensor, write=False).arr)
    if mine:
        outs = [HostBuffer("gather", t, f"gather_list[{i}]", read=False)
                for i, t in enumerate(gather_list)]
        got = np.empty((g.size(),) + tuple(tensor._data.shape), tensor._data.dtype)
    recv = mpi_view(got) if mine else None

    def finish():
        if mine:
            for r, out in enumerate(outs):
                out.commit(got[r])
    return _run(g, async_op, "gather", lambda: g.comm.Gather(send, recv, root=dst),
                lambda: g.comm.Igather(send, recv, root=dst), finish,
                list(gather_list) if mine else [], check=check)
