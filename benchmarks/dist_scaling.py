"""Data-parallel scaling: samples/s of DDP training at 1 and 2 ranks on this machine (measured),
then the alpha-beta model's prediction for 8, 64 and 512 GPUs with published interconnect
figures (course/data/interconnect.json): a MODEL, not a measurement.

This machine has 2 cores: 2 ranks = 2 processes with one core each (one BLAS thread per
rank, also for the 1-rank run, so the comparison is one core vs two). Communication here is
shared-memory copies done by those same cores, and other work on the machine competes, so
2-rank efficiency below 100% is expected; 2 is also the most ranks this machine can show.
    python benchmarks/dist_scaling.py
"""
import json
import re
from pathlib import Path

from dist_ddp_launch import relaunch, under_mpi

WIDTH, DEPTH, BATCH, STEPS = 512, 4, 128, 30
LINKS = Path(__file__).resolve().parents[1] / "course" / "data" / "interconnect.json"


def worker():
    import statistics
    import time

    import labkit
    import labkit.distributed as dist
    from labkit import nn
    from labkit.nn.parallel import DistributedDataParallel as DDP

    dist.init_process_group("mpi")
    labkit.manual_seed(0)
    model = DDP(nn.Sequential(*[m for _ in range(DEPTH)
                                for m in (nn.Linear(WIDTH, WIDTH), nn.ReLU())]))
    opt = labkit.optim.SGD(model.parameters(), lr=1e-3)
    x, y = labkit.randn(BATCH, WIDTH), labkit.randn(BATCH, WIDTH)
    times = []
    for i in range(STEPS + 5):
        dist.barrier()
        t0 = time.perf_counter()
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        if i >= 5:
            times.append(time.perf_counter() - t0)
    if dist.get_rank() == 0:
        print(f"STEP {statistics.median(times)!r}")
    dist.destroy_process_group()


def measure(n):
    return float(re.search(r"STEP (\S+)", relaunch(n, __file__, capture=True)).group(1))


def ring_allreduce_s(nbytes, p, alpha_s, bytes_per_s):
    """2(p-1) steps, each one message of nbytes/p per rank: alpha-beta cost of a ring."""
    return 2 * (p - 1) * alpha_s + 2 * (p - 1) / p * nbytes / bytes_per_s


def model_table():
    links = {row["label"].split(" (")[0]: row for row in json.loads(LINKS.read_text())["links"]}
    nvlink, ib = links["NVLink 4"], links["InfiniBand NDR 400 Gb/s"]
    params, grad_bytes = 124e6, 2                   # GPT-2 small, bf16 gradients
    tokens = 8 * 1024                               # per GPU per step
    t_compute = 6 * params * tokens / (0.40 * 989e12)   # H100 dense bf16 at 40% utilization
    print("\nMODEL (alpha-beta, not a measurement): GPT-2 small (124M parameters, bf16 "
          f"gradients = {params * grad_bytes / 1e6:.0f} MB), 8 x 1024 tokens per GPU, H100 at "
          f"40% of 989 TFLOP/s -> compute {t_compute * 1e3:.1f} ms/step; one flat ring "
          "all-reduce (NCCL also uses trees and hierarchy, which cut the latency term).")
    print(f"  {'GPUs':>5s} {'slowest link':<26s} {'all-reduce':>11s} {'eff. no overlap':>16s} "
          f"{'eff. overlapped':>16s} {'samples/s (overlap)':>20s}")
    for p in (8, 64, 512):
        link = nvlink if p <= 8 else ib
        t_comm = ring_allreduce_s(params * grad_bytes, p, link["alpha_us"] * 1e-6,
                                  link["gb_s"] * 1e9)
        exposed = max(0.0, t_comm - 2 / 3 * t_compute)    # backward is ~2/3 of the compute
        print(f"  {p:5d} {link['label'].split(' (')[0]:<26s} {t_comm * 1e3:8.1f} ms "
              f"{t_compute / (t_compute + t_comm):15.0%} {t_compute / (t_compute + exposed):16.0%}"
              f" {p * 8 / (t_compute + exposed):20,.0f}")


def main():
    t1, t2 = measure(1), measure(2)
    s1, s2 = BATCH / t1, 2 * BATCH / t2
    print(f"MEASURED here: DDP MLP {DEPTH} x Linear({WIDTH}, {WIDTH}), batch {BATCH} per rank, "
          "float32, SGD (weak scaling: the per-rank batch stays fixed)")
    print(f"  1 rank : {t1 * 1e3:7.2f} ms/step {s1:9.0f} samples/s")
    print(f"  2 ranks: {t2 * 1e3:7.2f} ms/step {s2:9.0f} samples/s")
    print(f"dist_scaling samples/s 2 ranks / 1 rank = {s2 / s1:.2f} (ideal 2.00; 2 cores, "
          "shared with everything else on this machine)")
    model_table()


if __name__ == "__main__":
    if under_mpi():
        worker()
    else:
        main()
