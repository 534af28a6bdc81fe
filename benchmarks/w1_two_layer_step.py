"""W1: one training step of the lecture's two-layer ReLU net (N, D_in, H, D_out = 64, 1000,
100, 10): forward, L2 loss, backward, SGD update. labkit eager vs the same step written by
hand in numpy (target: labkit / numpy <= 1.10), and torch eager when it is installed.
"""
import statistics
import time

import numpy as np

import labkit
from timing import compare, report

N, D_in, H, D_out = 64, 1000, 100, 10
LR = 1e-6
rng = np.random.default_rng(0)
X = rng.standard_normal((N, D_in)).astype(np.float32)
Y = rng.standard_normal((N, D_out)).astype(np.float32)
W1 = rng.standard_normal((D_in, H)).astype(np.float32)
W2 = rng.standard_normal((H, D_out)).astype(np.float32)


def numpy_step(x=X, y=Y, w1=W1.copy(), w2=W2.copy()):
    h = x.dot(w1)
    h_relu = np.maximum(h, 0)
    y_pred = h_relu.dot(w2)
    loss = np.square(y_pred - y).sum()
    grad_y_pred = 2.0 * (y_pred - y)
    grad_w2 = h_relu.T.dot(grad_y_pred)
    grad_h = grad_y_pred.dot(w2.T)
    grad_h[h < 0] = 0
    grad_w1 = x.T.dot(grad_h)
    w1 -= LR * grad_w1
    w2 -= LR * grad_w2
    return loss


def numpy_phases(x=X, y=Y, w1=W1.copy(), w2=W2.copy(), clock=time.perf_counter):
    """numpy_step, returning the seconds of (forward + loss, backward, update)."""
    t0 = clock()
    h = x.dot(w1)
    h_relu = np.maximum(h, 0)
    y_pred = h_relu.dot(w2)
    np.square(y_pred - y).sum()
    t1 = clock()
    grad_y_pred = 2.0 * (y_pred - y)
    grad_w2 = h_relu.T.dot(grad_y_pred)
    grad_h = grad_y_pred.dot(w2.T)
    grad_h[h < 0] = 0
    grad_w1 = x.T.dot(grad_h)
    t2 = clock()
    w1 -= LR * grad_w1
    w2 -= LR * grad_w2
    return t1 - t0, t2 - t1, clock() - t2


def make_phases(lib, wrap, clock=time.perf_counter):
    """make_step's step, returning the seconds of (forward + loss, backward, update)."""
    x, y = wrap(X), wrap(Y)
    w1 = wrap(W1.copy()).requires_grad_()
    w2 = wrap(W2.copy()).requires_grad_()

    def step():
        nonlocal w1, w2
        t0 = clock()
        y_pred = x.mm(w1).clamp(min=0).mm(w2)
        loss = (y_pred - y).pow(2).sum()
        t1 = clock()
        loss.backward()
        t2 = clock()
        with lib.no_grad():
            w1 -= LR * w1.grad
            w2 -= LR * w2.grad
            w1.grad = None
            w2.grad = None
        return t1 - t0, t2 - t1, clock() - t2
    return step


def phases(rounds=400):
    """Where the time goes: each phase's median over interleaved steps, labkit minus numpy."""
    steps = {"numpy by hand": numpy_phases, "labkit eager": make_phases(labkit, labkit.from_numpy)}
    samples = {n: [] for n in steps}
    for r in range(rounds + 20):
        for n, fn in (steps.items() if r % 2 else reversed(steps.items())):
            if r >= 20:
                samples[n].append(fn())
            else:
                fn()
    print("per phase (median us): numpy by hand, labkit eager, labkit - numpy")
    for i, phase in enumerate(("forward + loss", "backward", "SGD update")):
        a, b = (statistics.median(s[i] for s in samples[n]) * 1e6 for n in steps)
        print(f"  {phase:<16s} {a:9.1f} {b:9.1f} {b - a:+8.1f}")


def make_step(lib, wrap):
    x, y = wrap(X), wrap(Y)
    w1 = wrap(W1.copy()).requires_grad_()
    w2 = wrap(W2.copy()).requires_grad_()

    def step():
        nonlocal w1, w2
        y_pred = x.mm(w1).clamp(min=0).mm(w2)
        loss = (y_pred - y).pow(2).sum()
        loss.backward()
        with lib.no_grad():
            w1 -= LR * w1.grad
            w2 -= LR * w2.grad
            w1.grad = None
            w2.grad = None
        return loss
    return step


def main():
    candidates = {"numpy by hand": numpy_step,
                  "labkit eager": make_step(labkit, labkit.from_numpy)}
    try:
        import torch
        torch.set_num_threads(labkit_threads())
        candidates["torch eager"] = make_step(torch, torch.from_numpy)
    except ImportError:
        print("(torch not installed: its column is skipped)")
    med = compare(candidates, rounds=41, number=20)
    report("W1 two-layer step (forward + backward + SGD), per step:", med, "numpy by hand")
    ratio = med["labkit eager"] / med["numpy by hand"]
    print(f"W1 labkit / numpy = {ratio:.3f}  (target <= 1.10)")
    phases()


def labkit_threads():
    """The threads numpy's BLAS uses (OPENBLAS_NUM_THREADS, else one per core): torch gets
    as many, so that both matmul libraries run alike (with 1, torch's threads would otherwise
    spin on the cores numpy is timed on)."""
    import os
    return int(os.environ.get("OPENBLAS_NUM_THREADS") or len(os.sched_getaffinity(0)))


if __name__ == "__main__":
    main()
