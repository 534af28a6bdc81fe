"""Run by tests/test_distributed.py under `mpiexec -n N` (one launch, many checks): every
collective of labkit.distributed against numpy, for several dtypes and shapes, contiguous and
not, sync and async; then the errors a rank can provoke without ending the job.

Every rank can compute every rank's input (seeded by rank), so each checks its result against
numpy on its own. A failed check raises, which ends the job non-zero with this rank's traceback.
Prints `rank R: N checks passed` at the end. `python dist_checks.py quick` runs fewer dtypes and
shapes (for 4 ranks sharing 2 cores).
"""
import gc
import os
import pathlib
import sys

if os.environ.get("LABKIT_FAKE_CUDA") == "1":
    sys.path.insert(0, str(pathlib.Path(__file__).with_name("fake_cupy")))

import numpy as np  # noqa: E402

import labkit  # noqa: E402
import labkit.distributed as dist  # noqa: E402
from labkit.distributed import ReduceOp  # noqa: E402

CHECKS = 0
# mpiexec (hydra) tells each process its rank and the size; init_process_group must agree
R, N = int(os.environ.get("PMI_RANK", 0)), int(os.environ.get("PMI_SIZE", 1))
DTYPES = ["float32", "float64", "float16", "int64", "int32", "int8", "uint8", "bool"]
SHAPES = [(), (0,), (1,), (5,), (3, 4), (2, 3, 2)]


def check(cond, what):
    global CHECKS
    CHECKS += 1
    if not cond:
        raise AssertionError(f"rank {R}: {what}")


def same(t, expected, what):
    got = t.cpu().numpy()
    check(got.dtype == expected.dtype and got.shape == expected.shape
          and np.array_equal(got, expected), f"{what}: got {got!r}, expected {expected!r}")


def raises(exc, words, fn, what):
    try:
        fn()
    except exc as e:
        msg = str(e)
        check(all(w in msg for w in words), f"{what}: message {msg!r} lacks {words}")
        return msg
    check(False, f"{what}: no {exc.__name__} raised")


def data(r, case, shape, dtype, op=None):
    """Rank r's input for a case: small integers, so every reduction is exact in every dtype."""
    rng = np.random.default_rng([case, r])
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if op is ReduceOp.PRODUCT:
        vals = [-2, -1, 1, 2] if dtype != "uint8" else [1, 2]
        return rng.choice(vals, size=shape).astype(dtype)
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) or dtype == "uint8":
        return rng.integers(0, 8, size=shape).astype(dtype)
    return rng.integers(-3, 4, size=shape).astype(dtype)


def expected_reduce(op, arrs, dtype):
    st = np.stack(arrs)
    if dtype == "bool":
        f = {"SUM": np.logical_or, "MAX": np.logical_or, "BOR": np.logical_or,
             "PRODUCT": np.logical_and, "MIN": np.logical_and, "BAND": np.logical_and,
             "BXOR": np.logical_xor}[op.name]
        return f.reduce(st, axis=0)
    if op is ReduceOp.AVG:
        return (np.add.reduce(st, axis=0) / len(arrs)).astype(dtype)
    f = {"SUM": np.add, "PRODUCT": np.multiply, "MIN": np.minimum, "MAX": np.maximum,
         "BAND": np.bitwise_and, "BOR": np.bitwise_or, "BXOR": np.bitwise_xor}[op.name]
    return f.reduce(st, axis=0).astype(dtype)


def ops_for(dtype):
    ops = [ReduceOp.SUM, ReduceOp.PRODUCT, ReduceOp.MIN, ReduceOp.MAX]
    if dtype.startswith("float"):
        ops.append(ReduceOp.AVG)
    if dtype.startswith(("int", "uint")) or dtype == "bool":
        ops += [ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR]
    return ops


def make(arr, device, layout):
    """A tensor holding `arr`: contiguous, or a permuted (non-contiguous) view of another."""
    if layout == "contiguous" or arr.ndim < 2:
        return labkit.tensor(arr, device=device)
    base = labkit.tensor(np.ascontiguousarray(arr.transpose()), device=device)
    view = base.permute(*reversed(range(arr.ndim)))
    check(not view.is_contiguous(), "permuted view is not contiguous")
    return view


def run(work, async_op, what):
    if async_op:
        check(isinstance(work, dist.Work), f"{what}: async_op=True returns a Work")
        check(work.wait() is True, f"{what}: wait() returns True")
        check(work.is_completed() and work.is_success(), f"{what}: completed after wait")
    else:
        check(work is None, f"{what}: a synchronous call returns None")


def layouts(shape):
    return ("contiguous", "permuted") if len(shape) >= 2 else ("contiguous",)


def collectives(device):
    case = 0
    for dtype in DTYPES:
        for shape in SHAPES:
            for layout in layouts(shape):
                for async_op in (False, True):
                    case += 1
                    tag = f"[{device} {dtype} {shape} {layout} async={async_op}]"
                    for op in ops_for(dtype):
                        case += 1
                        arrs = [data(r, case, shape, dtype, op) for r in range(N)]
                        t = make(arrs[R], device, layout)
                        own, v0 = t._data, t._version
                        run(dist.all_reduce(t, op=op, async_op=async_op), async_op,
                            f"all_reduce {op.name} {tag}")
                        same(t, expected_reduce(op, arrs, dtype), f"all_reduce {op.name} {tag}")
                        check(t._version > v0, f"all_reduce {tag} bumps the version")
                        if device == "cpu" and layout == "contiguous":
                            check(t._data is own, f"all_reduce {tag} reduces in place, zero-copy")
                    one_of_each(device, dtype, shape, layout, async_op, case, tag)


def one_of_each(device, dtype, shape, layout, async_op, case, tag):
    arrs = [data(r, case, shape, dtype) for r in range(N)]
    src = case % N
    t = make(arrs[R], device, layout)
    run(dist.broadcast(t, src=src, async_op=async_op), async_op, f"broadcast {tag}")
    same(t, arrs[src], f"broadcast src={src} {tag}")

    op = ReduceOp.SUM if dtype != "bool" else ReduceOp.MAX
    t = make(arrs[R], device, layout)
    run(dist.reduce(t, dst=src, op=op, async_op=async_op), async_op, f"reduce {tag}")
    same(t, expected_reduce(op, arrs, dtype) if R == src else arrs[R],
         f"reduce dst={src} {tag} (others unchanged)")

    outs = [labkit.zeros(*shape, dtype=getattr(labkit, dtype), device=device) for _ in range(N)]
    run(dist.all_gather(outs, make(arrs[R], device, layout), async_op=async_op), async_op,
        f"all_gather {tag}")
    for r in range(N):
        same(outs[r], arrs[r], f"all_gather [{r}] {tag}")

    for stacked in (False, True):
        big = (N,) + shape if stacked or not shape else (N * shape[0],) + shape[1:]
        out = labkit.zeros(*big, dtype=getattr(labkit, dtype), device=device)
        run(dist.all_gather_into_tensor(out, make(arrs[R], device, layout), async_op=async_op),
            async_op, f"all_gather_into_tensor {tag}")
        same(out, np.stack(arrs).reshape(big), f"all_gather_into_tensor stacked={stacked} {tag}")

        ins = [data(r, case + 7, big, dtype) for r in range(N)]
        out = labkit.zeros(*shape, dtype=getattr(labkit, dtype), device=device)
        run(dist.reduce_scatter_tensor(out, make(ins[R], device, layout), op=op,
                                       async_op=async_op), async_op,
            f"reduce_scatter_tensor {tag}")
        full = expected_reduce(op, ins, dtype).reshape((N,) + shape)
        same(out, full[R], f"reduce_scatter_tensor stacked={stacked} {tag}")

    parts = [data(r, case + 11, shape, dtype) for r in range(N)]
    out = make(np.zeros(shape, dtype), device, layout)
    lst = [labkit.tensor(p, device=device) for p in parts] if R == src else None
    run(dist.scatter(out, lst, src=src, async_op=async_op), async_op, f"scatter {tag}")
    same(out, parts[R], f"scatter src={src} {tag}")

    lst = [labkit.zeros(*shape, dtype=getattr(labkit, dtype), device=device)
           for _ in range(N)] if R == src else None
    run(dist.gather(make(arrs[R], device, layout), lst, dst=src, async_op=async_op), async_op,
        f"gather {tag}")
    if R == src:
        for r in range(N):
            same(lst[r], arrs[r], f"gather [{r}] dst={src} {tag}")

    point_to_point(device, dtype, shape, layout, async_op, arrs, tag)


def point_to_point(device, dtype, shape, layout, async_op, arrs, tag):
    """A ring: each rank sends its tensor to the next and receives the previous one's."""
    nxt, prev = (R + 1) % N, (R - 1) % N
    out = make(np.zeros(shape, dtype), device, layout)
    if async_op:
        ws = [dist.isend(make(arrs[R], device, layout), nxt), dist.irecv(out, prev)]
        for w in ws:
            run(w, True, f"isend/irecv {tag}")
        check(ws[1].source_rank() == prev, f"irecv {tag} source_rank")
        out2 = make(np.zeros(shape, dtype), device, layout)
        ws = dist.batch_isend_irecv([dist.P2POp(dist.irecv, out2, nxt, tag=3),
                                     dist.P2POp(dist.isend, make(arrs[R], device, layout),
                                                prev, tag=3)])
        for w in ws:
            w.wait()
        same(out2, arrs[nxt], f"batch_isend_irecv {tag}")
    elif R % 2 == 0:
        dist.send(make(arrs[R], device, layout), nxt)
        check(dist.recv(out, None) == prev, f"recv {tag} returns the sender")
    else:
        check(dist.recv(out, prev) == prev, f"recv {tag} returns the sender")
        dist.send(make(arrs[R], device, layout), nxt)
    same(out, arrs[prev], f"send/recv {tag}")


def barrier():
    dist.barrier()
    w = dist.barrier(async_op=True)
    check(w.wait() and w.is_completed(), "async barrier completes")


def errors_before_init():
    check(dist.is_available() and not dist.is_initialized(), "is_available, not initialized")
    raises(ValueError, ["not been initialized", "all_reduce"],
           lambda: dist.all_reduce(labkit.ones(2)), "collective before init")
    raises(ValueError, ["not been initialized"], dist.get_rank, "get_rank before init")
    raises(ValueError, ["world_size=", f"started {N}"],
           lambda: dist.init_process_group("mpi", world_size=N + 1), "init with a wrong size")
    check(not dist.is_initialized(), "a refused init leaves no group")


def futures():
    t = labkit.full((3,), float(R + 1))
    work = dist.all_reduce(t, async_op=True)
    doubled = work.get_future().then(lambda fut: fut.value()[0] * 2)
    total = float(sum(range(1, N + 1)))
    same(doubled.wait(), np.full(3, 2 * total, np.float32), "Future.then on an all_reduce")
    check(work.result()[0] is t, "Work.result() gives the output tensors")


def errors_after_init():
    raises(ValueError, ["twice"], lambda: dist.init_process_group("mpi"), "init twice")
    if N == 1 or os.environ.get("LABKIT_DISTRIBUTED_DEBUG") == "OFF":
        return
    # ranks that disagree: every rank gets the same error naming the op and the shapes
    msg = raises(RuntimeError, ["all_reduce", "(3,)", "(4,)", "rank 1:"],
                 lambda: dist.all_reduce(labkit.ones(3 + (R == 1))), "mismatched shapes")
    check("float32 tensor of shape (3,)" in msg, f"shape named: {msg}")
    raises(RuntimeError, ["all_reduce(", "broadcast(", "not making the same collective call"],
           lambda: dist.all_reduce(labkit.ones(2)) if R == 0 else
           dist.broadcast(labkit.ones(2), src=0), "a collective called on rank 0 only")
    raises(RuntimeError, ["float32", "float64"],
           lambda: dist.all_reduce(labkit.ones(2, dtype=labkit.float64 if R else None)),
           "mismatched dtypes")
    raises(RuntimeError, ["ReduceOp.SUM", "ReduceOp.MAX"],
           lambda: dist.all_reduce(labkit.ones(2), op=ReduceOp.MAX if R else ReduceOp.SUM),
           "mismatched ReduceOp")
    raises(RuntimeError, ["src=0", "src=1"],
           lambda: dist.broadcast(labkit.ones(2), src=min(R, 1)), "mismatched src")
    # an async call returns at once; its check fails on wait(), before any data moved
    w = dist.all_reduce(labkit.ones(2 + R), async_op=True)
    raises(RuntimeError, ["all_reduce", f"({2 + N - 1},)"], w.wait, "async mismatch")
    check(w.is_completed() and not w.is_success() and w.exception() is not None,
          "a failed async check leaves a completed, failed Work")
    # async calls queue in call order; a synchronous call starts the ones before it first
    a, b = labkit.full((3,), float(R)), labkit.full((2, 2), float(R + 1))
    wa = dist.all_reduce(a, async_op=True)
    wb = dist.broadcast(b, src=N - 1, async_op=True)
    c = labkit.ones(1)
    dist.all_reduce(c)
    for w in (wb, wa):
        w.wait()
    same(a, np.full(3, sum(range(N)), np.float32), "queued async all_reduce")
    same(b, np.full((2, 2), N, np.float32), "queued async broadcast")
    same(c, np.full(1, N, np.float32), "sync all_reduce behind async ones")
    w = dist.barrier(async_op=True)
    while not w.is_completed():
        pass
    check(w.is_success(), "async barrier completes by polling is_completed()")
    t = labkit.ones(2)
    dist.all_reduce(t)                       # the group still works after those errors
    same(t, np.full(2, N, np.float32), "all_reduce after caught errors")
    # mistakes every rank makes alike: a local error before any data moves
    raises(RuntimeError, ["broadcast", "invalid root rank"],
           lambda: dist.broadcast(labkit.ones(2), src=N), "src out of range")
    raises(RuntimeError, ["all_gather", "one tensor per rank"],
           lambda: dist.all_gather([labkit.ones(2)], labkit.ones(2)), "all_gather list length")
    raises(RuntimeError, ["all_gather", "tensor_list[1]", "(3,)", "(2,)"],
           lambda: dist.all_gather([labkit.ones(2)] + [labkit.ones(3)] * (N - 1),
                                   labkit.ones(2)), "all_gather list shapes")
    raises(RuntimeError, ["all_gather_into_tensor", f"({2 * N},)", f"({N}, 2)"],
           lambda: dist.all_gather_into_tensor(labkit.zeros(5), labkit.ones(2)),
           "all_gather_into_tensor output shape")
    raises(RuntimeError, ["reduce_scatter_tensor", "input"],
           lambda: dist.reduce_scatter_tensor(labkit.zeros(2), labkit.ones(2 * N + 1)),
           "reduce_scatter_tensor input shape")
    raises((ValueError, RuntimeError), ["scatter"],
           lambda: dist.scatter(labkit.zeros(2), [labkit.ones(2)], src=0),
           "scatter_list wrong length on src, present elsewhere")
    raises((ValueError, RuntimeError), ["gather"],
           lambda: dist.gather(labkit.zeros(2), [labkit.ones(2)], dst=0),
           "gather_list wrong length on dst, present elsewhere")
    raises(RuntimeError, ["ReduceOp.AVG", "int64"],
           lambda: dist.all_reduce(labkit.ones(2, dtype=labkit.int64), op=ReduceOp.AVG),
           "AVG of integers")
    raises(TypeError, ["ReduceOp"], lambda: dist.all_reduce(labkit.ones(2), op="sum"),
           "op not a ReduceOp")
    raises(TypeError, ["all_reduce", "Tensor", "ndarray"],
           lambda: dist.all_reduce(np.ones(2)), "numpy array instead of a tensor")
    raises(RuntimeError, ["read-only", "clone()"],
           lambda: dist.all_reduce(labkit.ones(3).expand(2, 3)), "expanded output")
    raises(RuntimeError, ["ReduceOp.BAND", "float32"],
           lambda: dist.all_reduce(labkit.ones(2), op=ReduceOp.BAND), "bitwise op on floats")
    raises(ValueError, ["gather_list", "must be specified on destination rank"],
           lambda: dist.gather(labkit.ones(2), None, dst=R), "gather without a list on dst")
    raises(ValueError, ["should not be the same as the rank of the current process"],
           lambda: dist.send(labkit.ones(2), R), "send to itself")
    # a receive whose tensor differs from the message: an error naming both sizes
    if R == 0:
        dist.send(labkit.ones(3), 1, tag=7)
        dist.send(labkit.ones(3), 1, tag=8)
    elif R == 1:
        raises(RuntimeError, ["recv", "(4,)", "16 bytes", "12 bytes"],
               lambda: dist.recv(labkit.zeros(4), 0, tag=7), "recv into a larger tensor")
        raises(RuntimeError, ["recv", "(2,)", "larger than the tensor"],
               lambda: dist.recv(labkit.zeros(2), 0, tag=8), "recv into a smaller tensor")
    dist.barrier()


def restart():
    t = labkit.ones(1000)
    dist.all_reduce(t, async_op=True)        # its Work dropped: the group keeps it alive
    gc.collect()
    dist.destroy_process_group()             # ... and finishes it
    same(t, np.full(1000, N, np.float32), "an async call nobody waited for, done at destroy")
    check(not dist.is_initialized(), "destroy_process_group ends the group")
    raises(ValueError, ["not been initialized", "broadcast"],
           lambda: dist.broadcast(labkit.ones(2), 0), "collective after destroy")
    dist.init_process_group(backend="mpi")
    t = labkit.tensor([float(R)])
    dist.all_reduce(t, op=ReduceOp.MAX)
    same(t, np.array([N - 1], np.float32), "all_reduce after a new init_process_group")


if __name__ == "__main__":
    if sys.argv[1:] == ["quick"]:            # 4 ranks on 2 cores: fewer cases, same kinds
        DTYPES = ["float32", "float16", "int8", "bool"]
        SHAPES = [(), (0,), (5,), (2, 3, 2)]
    errors_before_init()
    dist.init_process_group(backend="mpi")
    check((dist.get_rank(), dist.get_world_size()) == (R, N), "rank and size from MPI")
    check(dist.get_backend() == "mpi" and dist.group.WORLD is not None, "backend, group.WORLD")
    check(int(os.environ.get("RANK", R)) == R, "RANK matches get_rank()")
    devices = ["cpu"] + (["cuda"] if labkit.cuda.is_available() else [])
    for device in devices:
        collectives(device)
    barrier()
    futures()
    errors_after_init()
    restart()
    dist.destroy_process_group()
    print(f"rank {R}: {CHECKS} checks passed on {'+'.join(devices)}", flush=True)
