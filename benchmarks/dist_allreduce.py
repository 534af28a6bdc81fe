"""All-reduce bandwidth vs message size, 2 ranks: labkit.distributed.all_reduce on a float32
tensor against raw mpi4py (comm.Allreduce in place on the numpy buffer), 1 KiB .. 64 MiB, and
torch.distributed on gloo alongside when torch is installed.
Target: labkit / raw >= 0.95 (throughput) for messages >= 1 MiB. labkit is timed as shipped
(with the call check, see labkit/distributed/fingerprint.py: one all-gather of an 8-byte hash of
the call before the data moves) and with the check off, so the check's cost is measured too.
Candidates are interleaved call by call for large messages (rotating order, many rounds); the
ratio is the median of the per-round ratios (with its quartiles: the spread the shared machine
adds), and "best" is the ratio of the fastest calls. Then the alpha-beta model
t(m) = alpha + m / beta is fitted to the measured points and printed: latency alpha and bandwidth
beta.

Run it plainly (`python benchmarks/dist_allreduce.py [--min-bytes N]`): it starts itself under
the mpich wheel's mpiexec with 2 ranks. On this 2-core machine both ranks share the cores, and "the
network" is shared memory: the numbers are a laptop's, not a cluster's.
"""
import os
import statistics
import sys

import numpy as np

import labkit
import labkit.distributed as dist

from timing import per_round as paired   # per-round samples, interleaved

SIZES = [2 ** k for k in range(10, 27)]      # bytes: 1 KiB .. 64 MiB
GLOO_SIZES = SIZES[::4]


def relaunch():
    from labkit.distributed.run import find_mpiexec
    cmd = [find_mpiexec(), "-n", "2", sys.executable, os.path.abspath(__file__), *sys.argv[1:]]
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.execv(cmd[0], cmd)


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
    low = int(sys.argv[sys.argv.index("--min-bytes") + 1]) if "--min-bytes" in sys.argv else 0
    for size in [s for s in SIZES if s >= low]:
        t = labkit.zeros(size // 4)
        raw = np.zeros(size // 4, np.float32)
        raw2 = np.zeros(size // 4, np.float32)

        def unchecked():
            group.fingerprint = None
            dist.all_reduce(t)
            group.fingerprint = check

        candidates = {"raw mpi4py": lambda: comm.Allreduce(MPI.IN_PLACE, raw, op=MPI.SUM),
                      "labkit": lambda: dist.all_reduce(t),
                      "labkit, check off": unchecked,
                      "raw again": lambda: comm.Allreduce(MPI.IN_PLACE, raw2, op=MPI.SUM)}
        # a round is short (<= ~100 us of transfer per candidate, one call from 1 MiB), so the
        # machine's load changes little within it; more rounds for the bigger, noisier sizes
        number = max(1, min(100, (1 << 18) // size))
        rounds = 41 if size < 1 << 20 else 61 if size < 1 << 23 else 31 if size < 1 << 25 else 15
        rows.append((size, paired(candidates, rounds=rounds, number=number)))
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


def quartiles(xs):
    q = statistics.quantiles(xs, n=4)
    return q[0], statistics.median(xs), q[2]


def report(rows, n):
    load = os.getloadavg()
    print(f"all_reduce (SUM, float32, in place) on {n} ranks; load average {load[0]:.2f} "
          f"{load[1]:.2f} {load[2]:.2f}. ratio = raw time / labkit time per round (median, "
          "quartiles); best = fastest raw / fastest labkit; >= 0.95 wanted from 1 MiB;\n"
          "raw/raw: the same raw call again, a control (how far apart two identical "
          "candidates land on this machine now)")
    print(f"{'bytes':>10} {'raw us':>9} {'labkit us':>10} {'no-check us':>11} "
          f"{'ratio [quartiles]':>19} {'best':>5} {'no-check':>8} {'best':>5} "
          f"{'raw/raw':>7} {'busbw GB/s':>10} {'gloo us':>9}")
    ratios, small = {}, []
    for size, s in rows:
        raw, lk, off = (statistics.median(s[k]) for k in ("raw mpi4py", "labkit",
                                                          "labkit, check off"))
        lo, ratio, hi = quartiles([a / b for a, b in zip(s["raw mpi4py"], s["labkit"])])
        ratio_off = statistics.median(a / b for a, b in zip(s["raw mpi4py"],
                                                            s["labkit, check off"]))
        best, best_off = (min(s["raw mpi4py"]) / min(s[k]) for k in ("labkit",
                                                                     "labkit, check off"))
        control = statistics.median(a / b for a, b in zip(s["raw mpi4py"], s["raw again"]))
        ratios[size] = ratio
        if size <= 1 << 14:
            small.append(statistics.median(a - b for a, b in zip(s["labkit"],
                                                                 s["labkit, check off"])))
        bus = size / raw / 1e9 * 2 * (n - 1) / n
        gloo = statistics.median(s["torch gloo"]) if "torch gloo" in s else float("nan")
        print(f"{size:>10} {raw * 1e6:>9.1f} {lk * 1e6:>10.1f} {off * 1e6:>11.1f} "
              f"{ratio:>6.2f} [{lo:.2f}, {hi:.2f}] {best:>5.2f} {ratio_off:>8.2f} "
              f"{best_off:>5.2f} {control:>7.2f} {bus:>10.2f} {gloo * 1e6:>9.1f}")
    big = [r for size, r in ratios.items() if size >= 1 << 20]
    if big:
        print(f"labkit / raw for >= 1 MiB (median of per-round ratios): min {min(big):.2f}, "
              f"median {np.median(big):.2f} (goal >= 0.95): "
              f"{'met' if min(big) >= 0.95 else 'NOT met'}")
    if small:
        print(f"cost of the call check (labkit - labkit with check off, messages <= 16 KiB): "
              f"median {np.median(small) * 1e6:.1f} us per collective")
    for name in ("raw mpi4py", "labkit", "labkit, check off"):
        alpha, beta = fit_alpha_beta([size for size, _ in rows],
                                     [statistics.median(s[name]) for _, s in rows])
        print(f"alpha-beta model fitted to {name + ':':<18} t(m) = {alpha * 1e6:6.1f} us + m / "
              f"{beta / 1e9:.2f} GB/s   (latency alpha, bandwidth beta)")


if __name__ == "__main__":
    if "PMI_RANK" not in os.environ:
        relaunch()
    main()
