"""All-reduce bandwidth vs message size, 2 ranks: labkit.distributed.all_reduce on a float32
tensor against raw mpi4py (comm.Allreduce in place on the numpy buffer), 1 KiB .. 64 MiB, and
torch.distributed on gloo alongside when torch is installed.
Target: labkit / raw >= 0.95 (throughput) for messages >= 1 MiB. labkit is timed as shipped
(with the call check, see labkit/distributed/fingerprint.py) and with the check off, so the
check's cost is measured too. Then the alpha-beta model t(m) = alpha + m / beta is fitted to the
measured points and printed: latency alpha and bandwidth beta.

Run it plainly (`python benchmarks/dist_allreduce.py`): it starts itself under the mpich
wheel's mpiexec with 2 ranks. On this 2-core machine both ranks share the cores, and "the
network" is shared memory: the numbers are a laptop's, not a cluster's.
"""
import os
import statistics
import sys
import time

import numpy as np

import labkit
import labkit.distributed as dist

SIZES = [2 ** k for k in range(10, 27)]      # bytes: 1 KiB .. 64 MiB
GLOO_SIZES = SIZES[::4]


def relaunch():
    from labkit.distributed.run import find_mpiexec
    cmd = [find_mpiexec(), "-n", "2", sys.executable, os.path.abspath(__file__)]
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.execv(cmd[0], cmd)


def paired(candidates, rounds, number, warmup=2):
    """{name: [seconds per call, one per round]}: each round times every candidate back to back
    (rotating the order), so per-round ratios cancel the machine's slow drifts in load. Every
    rank runs the same sequence, as collectives require."""
    names = list(candidates)
    for fn in candidates.values():
        for _ in range(warmup):
            fn()
    samples = {n: [] for n in names}
    for r in range(rounds):
        for n in names[r % len(names):] + names[:r % len(names)]:
            fn = candidates[n]
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            samples[n].append((time.perf_counter() - t0) / number)
    return samples


def fit_alpha_beta(sizes, seconds):
    """Least squares on relative error (small and large messages weigh alike): t = a + m / b."""
    m, t = np.asarray(sizes, float), np.asarray(seconds, float)
    A = np.stack([np.ones_like(m), m], axis=1) / t[:, None]
    (alpha, inv_beta), *_ = np.linalg.lstsq(A, np.ones_like(t), rcond=None)
    return alpha, 1 / inv_beta


def torch_gloo(rank, n):
    """torch.distributed on gloo (TCP over localhost), when torch is installed."""
    try:
        import torch
        import torch.distributed as tdist
    except ImportError:
        return None
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(29500 + os.getppid() % 2000))  # ranks share a parent
    tdist.init_process_group("gloo", rank=rank, world_size=n)
    return torch, tdist


def main():
    dist.init_process_group("mpi")
    rank, n = dist.get_rank(), dist.get_world_size()
    gloo = torch_gloo(rank, n)
    group = dist.group.WORLD
    comm, MPI, check = group.comm, group.MPI, group.fingerprint
    rows = []
    for size in SIZES:
        t = labkit.zeros(size // 4)
        raw = np.zeros(size // 4, np.float32)

        def unchecked():
            group.fingerprint = None
            dist.all_reduce(t)
            group.fingerprint = check

        candidates = {"raw mpi4py": lambda: comm.Allreduce(MPI.IN_PLACE, raw, op=MPI.SUM),
                      "labkit": lambda: dist.all_reduce(t),
                      "labkit, check off": unchecked}
        number = max(1, min(200, (1 << 22) // size))
        rows.append((size, paired(candidates, rounds=31 if size < (1 << 24) else 11,
                                  number=number)))
        if gloo is not None and size in GLOO_SIZES:     # gloo is slow here: a few sizes, few runs
            tt = gloo[0].zeros(size // 4)
            rows[-1][1]["torch gloo"] = paired({"gloo": lambda: gloo[1].all_reduce(tt)},
                                               rounds=5, number=max(1, number // 10))["gloo"]
        if rank == 0:
            print(f"  measured {size} bytes", file=sys.stderr, flush=True)
    if rank == 0:
        report(rows, n)
    dist.destroy_process_group()
    if gloo is not None:
        gloo[1].destroy_process_group()


def report(rows, n):
    print(f"all_reduce (SUM, float32, in place) on {n} ranks, median per call; ratio = raw "
          "time / labkit time (throughput ratio, >= 0.95 wanted from 1 MiB)")
    print(f"{'bytes':>10} {'raw us':>10} {'labkit us':>10} {'no-check us':>12} "
          f"{'ratio':>6} {'no-check':>9} {'algbw GB/s':>11} {'busbw GB/s':>11} "
          f"{'torch gloo us':>14}")
    ratios, small = {}, []
    for size, s in rows:
        raw, lk, off = (statistics.median(s[k]) for k in ("raw mpi4py", "labkit",
                                                          "labkit, check off"))
        ratio = statistics.median(a / b for a, b in zip(s["raw mpi4py"], s["labkit"]))
        ratio_off = statistics.median(a / b for a, b in zip(s["raw mpi4py"],
                                                            s["labkit, check off"]))
        ratios[size] = ratio
        if size <= 1 << 14:
            small.append(statistics.median(a - b for a, b in zip(s["labkit"],
                                                                 s["labkit, check off"])))
        alg = size / lk / 1e9
        gloo = statistics.median(s["torch gloo"]) if "torch gloo" in s else float("nan")
        print(f"{size:>10} {raw * 1e6:>10.1f} {lk * 1e6:>10.1f} {off * 1e6:>12.1f} "
              f"{ratio:>6.2f} {ratio_off:>9.2f} {alg:>11.2f} {alg * 2 * (n - 1) / n:>11.2f} "
              f"{gloo * 1e6:>14.1f}")
    big = [r for size, r in ratios.items() if size >= 1 << 20]
    print(f"labkit / raw for >= 1 MiB (median of per-round ratios): min {min(big):.2f}, median "
          f"{np.median(big):.2f} (goal >= 0.95): {'met' if min(big) >= 0.95 else 'NOT met'}")
    print(f"cost of the call check (labkit - labkit with check off, messages <= 16 KiB): "
          f"median {np.median(small) * 1e6:.1f} us per collective")
    for name in ("raw mpi4py", "labkit"):
        alpha, beta = fit_alpha_beta([size for size, _ in rows],
                                     [statistics.median(s[name]) for _, s in rows])
        print(f"alpha-beta model fitted to {name}: t(m) = {alpha * 1e6:.1f} us + m / "
              f"{beta / 1e9:.2f} GB/s   (latency alpha, bandwidth beta)")


if __name__ == "__main__":
    if "PMI_RANK" not in os.environ:
        relaunch()
    main()
