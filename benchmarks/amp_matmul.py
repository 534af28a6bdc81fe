"""Mixed precision on this machine: float16 / bfloat16 against float32, for a matmul and for
one training step of an MLP under autocast, labkit and torch side by side in one interleaved
run; and the activation bytes autocast saves, measured with the saved-tensor meter.

Read it honestly: numpy has no float16 or bfloat16 matmul kernel on a CPU (it converts and
loops, or goes through float32), so low precision is *slower* here; the gain lives on GPUs
with tensor cores (on a GPU run: the cuda rows). What a CPU does show is memory: activations
kept for backward take half the bytes.
"""
import one_thread  # noqa: F401  (first: one BLAS and torch thread)

import numpy as np

import labkit
from labkit.autograd.graph import SavedTensorMeter
from timing import compare, report

N = 256


def matmuls():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((N, N)).astype(np.float32)
    cands = {}
    for name in ("float32", "float16", "bfloat16"):
        x = labkit.tensor(a).to(getattr(labkit, name))
        cands[f"labkit {name}"] = lambda x=x: x @ x
    try:
        import torch
        for name in ("float32", "float16", "bfloat16"):
            t = torch.tensor(a).to(getattr(torch, name))
            cands[f"torch  {name}"] = lambda t=t: t @ t
    except ImportError:
        pass
    med = compare(cands, rounds=9, number=3)
    report(f"matmul {N}x{N} @ {N}x{N} on the CPU, per call:", med, "labkit float32", unit="ms")
    return med


def _mlp(m, width=256, depth=4):
    m.manual_seed(0)
    layers = []
    for _ in range(depth):
        layers += [m.nn.Linear(width, width), m.nn.ReLU()]
    return m.nn.Sequential(*layers, m.nn.Linear(width, 10))


def steps():
    cands = {}
    for modname in ("labkit", "torch"):
        try:
            m = labkit if modname == "labkit" else __import__("torch")
        except ImportError:
            continue
        net = _mlp(m)
        opt = m.optim.SGD(net.parameters(), lr=0.01)
        x, y = m.randn(128, 256), m.randint(0, 10, (128,))
        for dtype in (None, "bfloat16", "float16"):
            def step(m=m, net=net, opt=opt, x=x, y=y, dtype=dtype):
                opt.zero_grad()
                if dtype is None:
                    loss = m.nn.functional.cross_entropy(net(x), y)
                else:
                    with m.autocast("cpu", dtype=getattr(m, dtype)):
                        loss = m.nn.functional.cross_entropy(net(x), y)
                loss.backward()
                opt.step()
            cands[f"{modname:6s} {dtype or 'float32'}"] = step
    med = compare(cands, rounds=7, number=2)
    report("one training step (MLP 256x4, batch 128), autocast on the CPU:", med,
           "labkit float32", unit="ms")
    return med


def activation_bytes(batch=2048):
    """Autocast keeps low-precision activations (half the bytes) but also the low-precision
    copy of each weight it cast (a fixed cost per layer, torch's autocast cache too): at a
    large batch activations dominate and the total nears half."""
    net = _mlp(labkit)
    x, y = labkit.randn(batch, 256), labkit.randint(0, 10, (batch,))
    out = {}
    for dtype in (None, labkit.bfloat16, labkit.float16):
        with SavedTensorMeter() as meter:
            if dtype is None:
                loss = labkit.nn.functional.cross_entropy(net(x), y)
            else:
                with labkit.autocast("cpu", dtype=dtype):
                    loss = labkit.nn.functional.cross_entropy(net(x), y)
            loss.backward()
        out[str(dtype or labkit.float32)] = meter.peak_bytes
    base = out["labkit.float32"]
    copies = sum(p.numel() * 2 for p in net.parameters() if p.ndim == 2)
    print(f"bytes held for backward at the peak, batch {batch} (parameters themselves not "
          f"counted; the 16-bit weight copies, {copies / 1024:.0f} KiB, are):")
    for k, v in out.items():
        print(f"  {k:<16s} {v / 1024:9.1f} KiB   ratio {v / base:5.2f}x")
    return out


def gpu():
    if not labkit.cuda.is_available():
        print("(no GPU here: the tensor-core speed-up of float16/bfloat16 is not measured)")
        return
    from labkit.bench import timeit
    a = labkit.randn(4096, 4096, device="cuda")
    res = {}
    for name in ("float32", "float16", "bfloat16"):
        x = a.to(getattr(labkit, name))
        res[name] = timeit(lambda x=x: x @ x, device="cuda", repeat=10).median
    print("GPU matmul 4096^3:")
    for k, v in res.items():
        print(f"  {k:<9s} {v * 1e3:8.2f} ms   {2 * 4096 ** 3 / v / 1e12:6.1f} TFLOP/s   "
              f"speed-up {res['float32'] / v:5.2f}x")


if __name__ == "__main__":
    matmuls()
    steps()
    activation_bytes()
    gpu()
