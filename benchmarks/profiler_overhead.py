"""What profiling costs: one small training step (MLP, batch 64) with no profiler, inside
profile() (CPU), and with record_shapes + profile_memory + with_stack, labkit and torch in
one interleaved run. Off, labkit's profiler installs nothing (tests/test_profiler.py checks
that the engine's functions are the originals), so "off" is the plain step.
"""
import one_thread  # noqa: F401  (first: one BLAS and torch thread)

import labkit
from labkit import profiler
from timing import compare


def setup(m):
    m.manual_seed(0)
    net = m.nn.Sequential(m.nn.Linear(64, 64), m.nn.ReLU(), m.nn.Linear(64, 64), m.nn.ReLU(),
                          m.nn.Linear(64, 10))
    opt = m.optim.SGD(net.parameters(), lr=0.01)
    x, y = m.randn(64, 64), m.randint(0, 10, (64,))

    def step():
        opt.zero_grad()
        m.nn.functional.cross_entropy(net(x), y).backward()
        opt.step()
    return step


def profiled(prof_mod, step, **kw):
    def run():
        with prof_mod.profile(activities=[prof_mod.ProfilerActivity.CPU], **kw):
            for _ in range(5):
                step()
    return run


def main():
    cands = {}
    mods = [(labkit, profiler)]
    try:
        import torch
        import torch.profiler
        mods.append((torch, torch.profiler))
    except ImportError:
        pass
    for m, prof_mod in mods:
        step = setup(m)
        name = m.__name__
        cands[f"{name} off"] = lambda step=step: [step() for _ in range(5)]
        cands[f"{name} profile()"] = profiled(prof_mod, step)
        cands[f"{name} +shapes,memory,stack"] = profiled(prof_mod, step, record_shapes=True,
                                                         profile_memory=True, with_stack=True)
    med = compare(cands, rounds=9, number=1)
    print("5 training steps (MLP 64-64-64-10, batch 64), per block of 5:")
    for name, t in med.items():
        base = med[name.split()[0] + " off"]
        print(f"  {name:<30s} {t * 1e3:8.2f} ms   overhead {t / base:5.2f}x")


if __name__ == "__main__":
    main()
