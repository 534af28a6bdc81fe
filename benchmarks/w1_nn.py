"""W1 with nn and optim: the lecture's two-layer net (N, D_in, H, D_out = 64, 1000, 100, 10)
written as nn.Sequential(Linear, ReLU, Linear) + optim.SGD + F.mse_loss, one training step
(forward, loss, zero_grad, backward, step), against the same step (with biases, mean loss)
written by hand in numpy (target: labkit / numpy <= 1.15), and torch.nn when installed.
"""
import numpy as np

import labkit
from timing import compare, report

N, D_in, H, D_out = 64, 1000, 100, 10
LR = 1e-2
rng = np.random.default_rng(0)
X = rng.standard_normal((N, D_in)).astype(np.float32)
Y = rng.standard_normal((N, D_out)).astype(np.float32)


def numpy_step_fn():
    w1 = (rng.uniform(-1, 1, (D_in, H)) / np.sqrt(D_in)).astype(np.float32)
    b1 = (rng.uniform(-1, 1, H) / np.sqrt(D_in)).astype(np.float32)
    w2 = (rng.uniform(-1, 1, (H, D_out)) / np.sqrt(H)).astype(np.float32)
    b2 = (rng.uniform(-1, 1, D_out) / np.sqrt(H)).astype(np.float32)

    def step(x=X, y=Y):
        nonlocal w1, b1, w2, b2
        h = x.dot(w1) + b1
        h_relu = np.maximum(h, 0)
        diff = h_relu.dot(w2) + b2 - y
        loss = np.square(diff).mean()
        grad_y = (2.0 / diff.size) * diff
        grad_w2 = h_relu.T.dot(grad_y)
        grad_b2 = grad_y.sum(0)
        grad_h = grad_y.dot(w2.T)
        grad_h[h < 0] = 0
        grad_w1 = x.T.dot(grad_h)
        grad_b1 = grad_h.sum(0)
        w1 -= LR * grad_w1
        b1 -= LR * grad_b1
        w2 -= LR * grad_w2
        b2 -= LR * grad_b2
        return loss
    return step


def numpy_linear_layout_fn():
    """numpy_step_fn with the weights stored as nn.Linear (and torch) store them, (out, in):
    x @ w.T costs OpenBLAS more than x @ w on these shapes, which no engine can win back.
    Printed for reference; the target stays against numpy_step_fn."""
    w1 = (rng.uniform(-1, 1, (H, D_in)) / np.sqrt(D_in)).astype(np.float32)
    b1 = (rng.uniform(-1, 1, H) / np.sqrt(D_in)).astype(np.float32)
    w2 = (rng.uniform(-1, 1, (D_out, H)) / np.sqrt(H)).astype(np.float32)
    b2 = (rng.uniform(-1, 1, D_out) / np.sqrt(H)).astype(np.float32)

    def step(x=X, y=Y):
        nonlocal w1, b1, w2, b2
        h = x.dot(w1.T) + b1
        h_relu = np.maximum(h, 0)
        diff = h_relu.dot(w2.T) + b2 - y
        loss = np.square(diff).mean()
        grad_y = (2.0 / diff.size) * diff
        grad_w2 = grad_y.T.dot(h_relu)
        grad_b2 = grad_y.sum(0)
        grad_h = grad_y.dot(w2)
        grad_h[h < 0] = 0
        grad_w1 = grad_h.T.dot(x)
        grad_b1 = grad_h.sum(0)
        w1 -= LR * grad_w1
        b1 -= LR * grad_b1
        w2 -= LR * grad_w2
        b2 -= LR * grad_b2
        return loss
    return step


def make_step(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(D_in, H), lib.nn.ReLU(), lib.nn.Linear(H, D_out))
    optimizer = lib.optim.SGD(model.parameters(), lr=LR)
    x, y = lib.from_numpy(X), lib.from_numpy(Y)
    mse_loss = lib.nn.functional.mse_loss

    def step():
        loss = mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss
    return step


def main():
    candidates = {"numpy by hand": numpy_step_fn(),
                  "numpy, nn.Linear's layout": numpy_linear_layout_fn(),
                  "labkit nn + optim": make_step(labkit)}
    try:
        import torch

        from w1_two_layer_step import labkit_threads
        torch.set_num_threads(labkit_threads())
        candidates["torch nn + optim"] = make_step(torch)
    except ImportError:
        print("(torch not installed: its column is skipped)")
    med = compare(candidates, rounds=41, number=20)
    report("W1 with nn.Sequential + optim.SGD + mse_loss, per training step:", med,
           "numpy by hand")
    ratio = med["labkit nn + optim"] / med["numpy by hand"]
    layout = med["labkit nn + optim"] / med["numpy, nn.Linear's layout"]
    print(f"W1-nn labkit / numpy = {ratio:.3f}  (target <= 1.15); / numpy with nn.Linear's "
          f"layout = {layout:.3f}")


if __name__ == "__main__":
    main()
