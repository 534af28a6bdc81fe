"""All-reduce bandwidth vs message size, 2 ranks: labkit.distributed.all_reduce on a float32
tensor against raw mpi4py (comm.Allreduce in place on the numpy buffer), 1 KiB .. 64 MiB.
Target: labkit / raw >= 0.95 (throughput) for messages >= 1 MiB. labkit is timed as shipped
(with the call check, see labkit/distributed/fingerprint.py) and with the check off, so the
check's cost is measured too. Then the alpha-beta model t(m) = alpha + m / beta is fitted to the
measured points and printed: latency alpha and bandwidth beta.

Run it plainly (`python benchmarks/dist_allreduce.py`): it starts itself under the mpich
wheel's mpiexec with 2 ranks. On this 2-core machine both ranks share the cores, and "the
network" is shared memory: the numbers are a laptop's, not a cluster's.
"""
import os
import sys

import numpy as np

import labkit
import labkit.distributed as dist
from timing import compare

SIZES = [2 ** k for k in range(10, 27)]      # bytes: 1 KiB .. 64 MiB


def relaunch():
    from labkit.distributed.run import find_mpiexec
    cmd = [find_mpiexec(), "-n", "2", sys.executable, os.path.abspath(__file__)]
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.execv(cmd[0], cmd)


def fit_alpha_beta(sizes, seconds):
    """Least squares on relative error (small and large messages weigh alike): t = a + m / b."""
    m, t = np.asarray(sizes, float), np.asarray(seconds, float)
    A = np.stack([np.ones_like(m), m], axis=1) / t[:, None]
    (alpha, inv_beta), *_ = np.linalg.lstsq(A, np.ones_like(t), rcond=None)
    return alpha, 1 / inv_beta


def main():
    dist.init_process_group("mpi")
    rank, n = dist.get_rank(), dist.get_world_size()
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
        rounds = 21 if size < (1 << 24) else 9
        rows.append((size, compare(candidates, rounds=rounds, number=number, warmup=2)))
    if rank == 0:
        report(rows, n)
    dist.destroy_process_group()


def report(rows, n):
    print(f"all_reduce (SUM, float32, in place) on {n} ranks, median per call; ratio = raw "
          "time / labkit time (throughput ratio, >= 0.95 wanted from 1 MiB)")
    print(f"{'bytes':>10} {'raw us':>10} {'labkit us':>10} {'no-check us':>12} "
          f"{'ratio':>6} {'no-check':>9} {'algbw GB/s':>11} {'busbw GB/s':>11}")
    for size, med in rows:
        raw, lk, off = med["raw mpi4py"], med["labkit"], med["labkit, check off"]
        alg = size / lk / 1e9
        print(f"{size:>10} {raw * 1e6:>10.1f} {lk * 1e6:>10.1f} {off * 1e6:>12.1f} "
              f"{raw / lk:>6.2f} {raw / off:>9.2f} {alg:>11.2f} {alg * 2 * (n - 1) / n:>11.2f}")
    big = [raw / lk for size, med in rows if size >= 1 << 20
           for raw, lk in [(med["raw mpi4py"], med["labkit"])]]
    print(f"labkit / raw for >= 1 MiB: min {min(big):.2f}, median {np.median(big):.2f} "
          f"(goal >= 0.95): {'met' if min(big) >= 0.95 else 'NOT met'}")
    small = [med["labkit"] - med["labkit, check off"] for size, med in rows if size <= 1 << 14]
    print(f"cost of the call check (labkit - labkit with check off, messages <= 16 KiB): "
          f"median {np.median(small) * 1e6:.1f} us per collective")
    for name in ("raw mpi4py", "labkit"):
        alpha, beta = fit_alpha_beta([s for s, _ in rows], [med[name] for _, med in rows])
        print(f"alpha-beta model fitted to {name}: t(m) = {alpha * 1e6:.1f} us + m / "
              f"{beta / 1e9:.2f} GB/s   (latency alpha, bandwidth beta)")


if __name__ == "__main__":
    if "PMI_RANK" not in os.environ:
        relaunch()
    main()
