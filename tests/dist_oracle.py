"""Run by tests/test_distributed.py under `mpiexec -n N`: the same collective programs on
torch.distributed (gloo, over localhost TCP) and on labkit.distributed (MPI), side by side in
each rank; every result must be equal, dtype and shape included. Prints `rank R: N equal`.
"""
import os
import sys

import numpy as np
import torch
import torch.distributed as tdist

import labkit
import labkit.distributed as ldist

R, N = int(os.environ["PMI_RANK"]), int(os.environ["PMI_SIZE"])
EQUAL = 0


def both(program, *arrays):
    """program(dist, module, *tensors) on torch and on labkit; its returned tensors must match."""
    global EQUAL
    got = []
    for dist, mod in ((tdist, torch), (ldist, labkit)):
        ts = [mod.tensor(a) for a in arrays]
        out = program(dist, mod, *ts)
        got.append([_np(t) for t in out])
    for t, lk in zip(*got):
        if t.dtype != lk.dtype or t.shape != lk.shape or not np.array_equal(t, lk):
            raise AssertionError(f"rank {R}: {program.__name__} {[a.shape for a in arrays]}: "
                                 f"torch {t!r} vs labkit {lk!r}")
        EQUAL += 1


def _np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else t.cpu().numpy()


def data(case, shape, dtype):
    rng = np.random.default_rng([case, R])
    if dtype == "bool":
        return rng.random(shape) < 0.5
    return rng.integers(-3, 4, size=shape).astype(dtype)


def all_reduce(op, async_op):
    def program(dist, mod, t):
        w = dist.all_reduce(t, op=getattr(dist.ReduceOp, op), async_op=async_op)
        if async_op:
            w.wait()
        return [t]
    program.__name__ = f"all_reduce {op} async={async_op}"
    return program


def broadcast(dist, mod, t):
    dist.broadcast(t, src=N - 1)
    return [t]


def reduce_to_0(dist, mod, t):
    dist.reduce(t, dst=0, op=dist.ReduceOp.MAX)
    return [t] if R == 0 else []           # gloo leaves other ranks' tensors unspecified


def all_gather(dist, mod, t):
    outs = [mod.zeros_like(t) for _ in range(N)]
    dist.all_gather(outs, t)
    return outs


def all_gather_into_tensor(dist, mod, t):
    cat = mod.zeros((N * t.shape[0],) + tuple(t.shape[1:]), dtype=t.dtype)
    dist.all_gather_into_tensor(cat, t)          # gloo has the concatenated form only
    return [cat]


def reduce_scatter_tensor(dist, mod, t):
    out = mod.zeros((t.shape[0] // N,) + tuple(t.shape[1:]), dtype=t.dtype)
    dist.reduce_scatter_tensor(out, t)
    return [out]


def scatter_gather(dist, mod, t):
    out = mod.zeros_like(t)
    dist.scatter(out, [t + r for r in range(N)] if R == 0 else None, src=0)
    got = [mod.zeros_like(t) for _ in range(N)] if R == N - 1 else None
    dist.gather(out, got, dst=N - 1)
    return [out] + (got or [])


def ring(dist, mod, t):
    out = mod.zeros_like(t)
    ws = [dist.isend(t, (R + 1) % N), dist.irecv(out, (R - 1) % N)]
    for w in ws:
        w.wait()
    return [out]


def main():
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=sys.argv[1])
    tdist.init_process_group("gloo", rank=R, world_size=N)
    ldist.init_process_group("mpi")
    case = 0
    for dtype in ("float32", "float64", "int64", "int32"):
        for shape in ((), (1,), (6,), (4, 3)):
            case += 1
            for op in ("SUM", "PRODUCT", "MIN", "MAX"):
                for async_op in (False, True):
                    both(all_reduce(op, async_op), data(case, shape, dtype))
            for program in (broadcast, reduce_to_0, all_gather, scatter_gather, ring):
                both(program, data(case, shape, dtype))
            if shape:
                both(all_gather_into_tensor, data(case, shape, dtype))
                both(reduce_scatter_tensor, data(case, (N * shape[0],) + shape[1:], dtype))
    for op in ("SUM", "MAX", "MIN", "PRODUCT"):
        both(all_reduce(op, False), data(99, (5,), "bool"))
    ldist.destroy_process_group()
    tdist.destroy_process_group()
    print(f"rank {R}: {EQUAL} equal", flush=True)


if __name__ == "__main__":
    main()
