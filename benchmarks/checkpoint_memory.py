"""Activation checkpointing on a deep MLP (n = 16 Linear+Tanh layers): peak bytes held for
backward and the time of one forward+backward, with no checkpointing and with 1, 2, sqrt(n)=4,
8 and n segments (checkpoint_sequential), labkit and torch in one interleaved run.

The memory law: k segments keep k segment inputs, and during backward one segment's n/k
activations: about k + n/k, least at k = sqrt(n). The price: each checkpointed segment's
forward runs twice (about one extra forward, at most ~1/3 more time per step).
"""
import one_thread  # noqa: F401  (first: one BLAS and torch thread)


import labkit
from labkit.autograd.graph import SavedTensorMeter
from labkit.utils.checkpoint import checkpoint_sequential
from timing import compare

N, WIDTH, BATCH = 16, 256, 256
SEGMENTS = (0, 1, 2, 4, 8, 16)          # 0: no checkpointing


def mlp(m):
    m.manual_seed(0)
    return m.nn.Sequential(*[layer for _ in range(N) for layer in
                             (m.nn.Linear(WIDTH, WIDTH), m.nn.Tanh())])


def run(m, net, x, k):
    if k == 0:
        out = net(x)
    elif m is labkit:
        out = checkpoint_sequential(net, k, x, use_reentrant=False)
    else:
        import torch.utils.checkpoint as tc
        out = tc.checkpoint_sequential(net, k, x, use_reentrant=False)
    out.sum().backward()


def peaks():
    net = mlp(labkit)
    x = labkit.randn(BATCH, WIDTH)
    act = BATCH * WIDTH * 4
    res = {}
    for k in SEGMENTS:
        with SavedTensorMeter() as meter:
            run(labkit, net, x, k)
        res[k] = meter.peak_bytes
    print(f"peak bytes saved for backward ({N} layers, one activation = {act // 1024} KiB):")
    for k, b in res.items():
        label = "none" if k == 0 else f"{k:>2d} segments"
        print(f"  {label:<12s} {b / 2 ** 20:7.2f} MiB = {b / act:5.1f} activations"
              f"   ratio {b / res[0]:5.2f}x")
    return res


def times():
    cands = {}
    mods = [labkit]
    try:
        import torch
        mods.append(torch)
    except ImportError:
        pass
    for m in mods:
        net = mlp(m)
        x = m.randn(BATCH, WIDTH)
        for k in (0, 4, 16):
            name = f"{m.__name__:6s} " + ("none" if k == 0 else f"{k} seg")
            cands[name] = lambda m=m, net=net, x=x, k=k: run(m, net, x, k)
    med = compare(cands, rounds=7, number=1)
    print("time per forward+backward:")
    for name, t in med.items():
        base = med[name.split()[0].ljust(6) + " none"]
        print(f"  {name:<18s} {t * 1e3:8.2f} ms   vs no checkpointing {t / base:5.2f}x")
    return med


if __name__ == "__main__":
    peaks()
    times()
