"""The GPU reference run: what lecture 08 shows to students who have no GPU.

On a CUDA machine this measures, with labkit.bench (warm-up, synchronize, median):
  matmul   n x n float32, n = 256 .. 8192: GFLOP/s of labkit on cuda, raw CuPy, labkit on cpu
           (target: labkit cuda >= 0.95x raw CuPy for n >= 2048, where Python overhead is noise)
  w1       the two-layer step of benchmarks/w1_two_layer_step.py on cpu and on cuda
  w3       one training step of a 3-layer MLP (batch 512, 1024-2048-2048-10, ReLU,
           cross-entropy, Adam) on cpu and on cuda
  h2d      host-to-device copies of 256 MiB: pageable, pinned, pinned + non_blocking, raw CuPy
and writes them, with the GPU model, date and versions, to course/data/gpu_reference.json
(a labkit.bench.Table). Without a GPU it says so and writes nothing.

    python benchmarks/gpu_reference.py [--out PATH] [--quick]
"""
import argparse
import datetime
import os
import pathlib
import platform
import statistics
import sys

import numpy as np

import labkit
from labkit import bench, nn, optim

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from w1_two_layer_step import X as W1_X, make_step  # noqa: E402


def interleaved(fns, flops=None, nbytes=None, rounds=5, repeat=5, device="cuda"):
    """{label: fn} timed in alternating rounds on one device; one Timing per label whose
    times pool every round (so slow drift hits all candidates alike)."""
    times = {k: [] for k in fns}
    for r in range(rounds):
        for k, fn in fns.items():
            t = bench.timeit(fn, warmup=2 if r == 0 else 0, repeat=repeat, device=device)
            times[k] += t.times
    return {k: bench.Timing(v, label=k, device=device, flops=flops, nbytes=nbytes)
            for k, v in times.items()}


def matmul_rows(table, sizes, cpu_max):
    import cupy as cp
    for n in sizes:
        rng = np.random.default_rng(n)
        a_h, b_h = (rng.standard_normal((n, n), dtype=np.float32) for _ in range(2))
        a, b = labkit.from_numpy(a_h).cuda(), labkit.from_numpy(b_h).cuda()
        a_c, b_c = cp.asarray(a_h), cp.asarray(b_h)
        res = interleaved({"labkit cuda": lambda: a @ b, "cupy": lambda: a_c @ b_c},
                          flops=2 * n ** 3)
        for t in res.values():
            table.add(t, bench="matmul", size=n)
        if n <= cpu_max:
            a_cpu, b_cpu = labkit.from_numpy(a_h), labkit.from_numpy(b_h)
            t = bench.timeit(lambda: a_cpu @ b_cpu, warmup=1, repeat=3, device="cpu",
                             flops=2 * n ** 3, label="labkit cpu")
            table.add(t, bench="matmul", size=n)
        print(f"matmul n={n:5d}: " + "  ".join(
            f"{r['label']} {r['gflops']:9.1f}" for r in table.where(bench="matmul", size=n).rows)
            + " GFLOP/s", flush=True)


def w3_step(device):
    """One training step of a 3-layer MLP (the compute-bound workload W3) on `device`."""
    labkit.manual_seed(0)
    model = nn.Sequential(nn.Linear(1024, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(),
                          nn.Linear(2048, 10)).to(device)
    opt = optim.Adam(model.parameters(), lr=1e-3)
    x = labkit.randn(512, 1024).to(device)
    y = labkit.randint(0, 10, (512,)).to(device)
    w3_flops = 3 * 2 * 512 * (1024 * 2048 + 2048 * 2048 + 2048 * 10)   # forward + 2x backward

    def step():
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step, w3_flops


def workload_rows(table):
    for dev in ("cpu", "cuda"):
        step = make_step(labkit, lambda a, dev=dev: labkit.from_numpy(a).to(dev))
        t = bench.timeit(step, warmup=5, repeat=50, device=dev, label=f"labkit {dev}")
        table.add(t, bench="w1", batch=W1_X.shape[0])
        step3, fl = w3_step(dev)
        t3 = bench.timeit(step3, warmup=2, repeat=10 if dev == "cpu" else 50, device=dev,
                          label=f"labkit {dev}", flops=fl)
        table.add(t3, bench="w3", batch=512)
    for b in ("w1", "w3"):
        cpu_ms, gpu_ms = (table.where(bench=b, label=f"labkit {d}").rows[0]["median_ms"]
                          for d in ("cpu", "cuda"))
        print(f"{b}: cpu {cpu_ms:.3f} ms, cuda {gpu_ms:.3f} ms per step "
              f"(speed-up on cuda: {cpu_ms / gpu_ms:.2f}x)", flush=True)


def h2d_rows(table, mib):
    import cupy as cp
    nbytes = mib << 20
    host = labkit.from_numpy(np.ones(nbytes // 4, np.float32))
    pinned = host.pin_memory()
    host_np = host.numpy()
    res = interleaved({
        "pageable": lambda: host.to("cuda"),
        "pinned": lambda: pinned.to("cuda"),
        "pinned, non_blocking": lambda: pinned.to("cuda", non_blocking=True),
        "cupy.asarray (pageable)": lambda: cp.asarray(host_np),
    }, nbytes=nbytes, rounds=3, repeat=5)
    for t in res.values():
        table.add(t, bench="h2d", nbytes=nbytes)
        print(f"h2d {mib} MiB {t.label:24s} {t.bytes_per_s / 1e9:6.1f} GB/s", flush=True)


def meta():
    import cupy as cp
    rt = cp.cuda.runtime
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                if line.startswith("model name")), platform.processor())
    return {"what": "measured with benchmarks/gpu_reference.py (labkit.bench: warm-up, "
                    "synchronize, median of repeats)",
            "gpu": labkit.cuda.get_device_name(), "gpus": labkit.cuda.device_count(),
            "cpu": f"{cpu} ({os.cpu_count()} logical cores)",
            "date": datetime.date.today().isoformat(),
            "labkit": labkit.__version__, "cupy": cp.__version__, "numpy": np.__version__,
            "cuda_runtime": rt.runtimeGetVersion(), "cuda_driver": rt.driverGetVersion(),
            "python": platform.python_version()}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=str(ROOT / "course" / "data" / "gpu_reference.json"))
    p.add_argument("--quick", action="store_true", help="small sizes only (a smoke test)")
    args = p.parse_args()
    if not labkit.cuda.is_available():
        print("gpu_reference: no CUDA GPU here (labkit.cuda.is_available() is False): nothing "
              "to measure, nothing written. Run this on a GPU machine.")
        return
    table = bench.Table(meta=meta())
    print(table.meta, flush=True)
    sizes = [256, 512] if args.quick else [256, 512, 1024, 2048, 4096, 8192]
    matmul_rows(table, sizes, cpu_max=512 if args.quick else 8192)
    if not args.quick:
        workload_rows(table)
    h2d_rows(table, 8 if args.quick else 256)
    big = [r for r in table.where(bench="matmul").rows if r["size"] >= 2048]
    if big:
        ratios = [r["gflops"] / table.where(bench="matmul", size=r["size"], label="cupy")
                  .rows[0]["gflops"] for r in big if r["label"] == "labkit cuda"]
        print(f"labkit cuda / raw cupy at n >= 2048: median {statistics.median(ratios):.3f} "
              f"(min {min(ratios):.3f}; target >= 0.95)")
    table.to_json(args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
