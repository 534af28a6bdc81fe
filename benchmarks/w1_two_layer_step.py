"""W1: one training step of the lecture's two-layer ReLU net (N, D_in, H, D_out = 64, 1000,
100, 10): forward, L2 loss, backward, SGD update. labkit eager vs the same step written by
hand in numpy (target: labkit / numpy <= 1.10), and torch eager when it is installed.
"""
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


def labkit_threads():
    import os
    return len(os.sched_getaffinity(0))


if __name__ == "__main__":
    main()
