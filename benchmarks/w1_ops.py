"""W1 op by op: each forward op and each backward formula of the two W1 steps
(w1_two_layer_step.py, w1_nn.py) against the numpy lines that do the same work by hand, in
one interleaved run (medians), with labkit - numpy per op. What a row costs above numpy is
the op's own work (its checks, what it saves, its array calls) plus the engine's per-op
cost (dispatch, recording, the Node), which benchmarks/op_cost.py splits further.

A backward row calls the node's formula alone (no engine loop), as backward() does when
nothing records (the op's backward_arrays). Run with OPENBLAS_NUM_THREADS=1:
times are this thread's CPU time (time.thread_time), so that on a shared machine the time
the process waits for a core does not count (one BLAS thread runs in this thread).
"""
import statistics
import time

import numpy as np

import labkit
from labkit.engine.grad_mode import mode

N, D_in, H, D_out = 64, 1000, 100, 10
LR = 1e-6
rng = np.random.default_rng(0)
X = rng.standard_normal((N, D_in)).astype(np.float32)
Y = rng.standard_normal((N, D_out)).astype(np.float32)
W1 = rng.standard_normal((D_in, H)).astype(np.float32)
W2 = rng.standard_normal((H, D_out)).astype(np.float32)


clock = time.thread_time


def timed(rows, rounds=41, number=100):
    """{name: (numpy us, labkit us)}: the two candidates of a row alternate, in turn first."""
    out = {}
    for name, (a, b) in rows.items():
        sa, sb = [], []
        for r in range(rounds):
            for f, s in ((a, sa), (b, sb)) if r % 2 else ((b, sb), (a, sa)):
                t0 = clock()
                for _ in range(number):
                    f()
                s.append((clock() - t0) / number * 1e6)
        out[name] = statistics.median(sa), statistics.median(sb)
    return out


def backward_of(t, grad):
    """t's node's backward formula, called as the engine calls it when nothing records: its
    backward_arrays on the gradient's array where the op has one, else backward."""
    node = t.grad_fn
    fast = getattr(node._fn, "backward_arrays", None)
    if fast is not None:
        g = grad._data
        return lambda: fast(node, g)

    def run():
        mode.enabled = False
        try:
            return node._fn.backward(node, grad)
        finally:
            mode.enabled = True
    return run


def w1_rows():
    x, y = labkit.from_numpy(X), labkit.from_numpy(Y)
    w1 = labkit.from_numpy(W1.copy()).requires_grad_()
    w2 = labkit.from_numpy(W2.copy()).requires_grad_()
    h = x.mm(w1)
    hr = h.clamp(min=0)
    yp = hr.mm(w2)
    d = yp - y
    p = d.pow(2)
    loss = p.sum()
    Hn = X.dot(W1)
    HR = np.maximum(Hn, 0)
    YP = HR.dot(W2)
    D = YP - Y
    S = np.square(D)
    GD = 2.0 * D
    GH = GD.dot(W2.T)
    gd, gh = labkit.from_numpy(GD.copy()), labkit.from_numpy(GH.copy())
    gs = labkit.from_numpy(np.ones_like(S))
    w2.grad = labkit.from_numpy(HR.T.dot(GD))
    W2u, G2 = W2.copy(), w2.grad._data.copy()

    def np_update():
        W2u.__isub__(LR * G2)

    def lk_update():
        with labkit.no_grad():
            w2.__isub__(LR * w2.grad)

    return {
        "x.mm(w1)": (lambda: X.dot(W1), lambda: x.mm(w1)),
        "h.clamp(min=0)": (lambda: np.maximum(Hn, 0), lambda: h.clamp(min=0)),
        "hr.mm(w2)": (lambda: HR.dot(W2), lambda: hr.mm(w2)),
        "yp - y": (lambda: YP - Y, lambda: yp - y),
        "d.pow(2)": (lambda: np.square(D), lambda: d.pow(2)),
        "p.sum()": (lambda: S.sum(), lambda: p.sum()),
        "SumBackward0 | -": (lambda: None, backward_of(loss, labkit.ones(()))),
        "PowBackward0 | 2.0 * (yp - y)": (lambda: 2.0 * (YP - Y), backward_of(p, gs)),
        "SubBackward0 | -": (lambda: None, backward_of(d, gd)),
        "MmBackward0 (hr, w2) | 2 dots": (lambda: (HR.T.dot(GD), GD.dot(W2.T)),
                                          backward_of(yp, gd)),
        "ClampBackward1 | grad_h[h < 0] = 0": (lambda: GH.copy().__setitem__(Hn < 0, 0),
                                               backward_of(hr, gh)),
        "MmBackward0 (x, w1) | x.T.dot(grad_h)": (lambda: X.T.dot(GH), backward_of(h, gh)),
        "w2 -= lr * w2.grad (no_grad)": (np_update, lk_update),
    }


def nn_rows():
    labkit.manual_seed(0)
    model = labkit.nn.Sequential(labkit.nn.Linear(D_in, H), labkit.nn.ReLU(),
                                 labkit.nn.Linear(H, D_out))
    opt = labkit.optim.SGD(model.parameters(), lr=LR)
    x, y = labkit.from_numpy(X), labkit.from_numpy(Y)
    l1, relu, l2 = model[0], model[1], model[2]
    h = l1(x)
    hr = relu(h)
    out = l2(hr)
    loss = labkit.nn.functional.mse_loss(out, y)
    w1, b1 = W1.copy(), l1.bias._data.copy()
    w2, b2 = W2.copy(), l2.bias._data.copy()
    Hn = X.dot(w1) + b1
    HR = np.maximum(Hn, 0)
    O = HR.dot(w2) + b2
    DIFF = O - Y
    GY = (2.0 / DIFF.size) * DIFF
    GH = GY.dot(w2.T)
    gy, gh = labkit.from_numpy(GY.copy()), labkit.from_numpy(GH.copy())
    loss.backward(retain_graph=True)
    grads = [p.grad._data.copy() for p in model.parameters()]
    arrays = [w1.T.copy(), b1.copy(), w2.T.copy(), b2.copy()]

    def np_step():
        for a, g in zip(arrays, grads):
            a -= LR * g

    def np_mse():
        diff = O - Y
        return np.square(diff).mean()

    return {
        "Linear(1000, 100)(x)": (lambda: X.dot(w1) + b1, lambda: l1(x)),
        "ReLU()(h)": (lambda: np.maximum(Hn, 0), lambda: relu(h)),
        "Linear(100, 10)(hr)": (lambda: HR.dot(w2) + b2, lambda: l2(hr)),
        "mse_loss(out, y)": (np_mse, lambda: labkit.nn.functional.mse_loss(out, y)),
        "MseLossBackward0 | (2 / n) * diff": (lambda: (2.0 / DIFF.size) * (O - Y),
                                              backward_of(loss, labkit.ones(()))),
        "AddmmBackward0 (layer 2) | 2 dots, sum": (
            lambda: (HR.T.dot(GY), GY.sum(0), GY.dot(w2.T)), backward_of(out, gy)),
        "ReluBackward0 | grad_h[h < 0] = 0": (lambda: GH.copy().__setitem__(Hn < 0, 0),
                                              backward_of(hr, gh)),
        "AddmmBackward0 (layer 1) | dot, sum": (lambda: (X.T.dot(GH), GH.sum(0)),
                                                backward_of(h, gh)),
        "optimizer.step() | 4 updates": (np_step, opt.step),
    }


def report(title, rows):
    print(title)
    print(f"  {'op | numpy by hand':<44s} {'numpy':>8s} {'labkit':>8s} {'labkit-numpy':>13s}")
    total = 0.0
    for name, (a, b) in rows.items():
        total += b - a
        print(f"  {name:<44s} {a:8.2f} {b:8.2f} {b - a:+13.2f}")
    print(f"  {'sum of the differences':<44s} {'':8s} {'':8s} {total:+13.2f}")


def main():
    report("W1 two-layer step, op by op (median us, interleaved):", timed(w1_rows()))
    report("W1 with nn + optim.SGD, op by op (median us, interleaved):", timed(nn_rows()))


if __name__ == "__main__":
    main()
