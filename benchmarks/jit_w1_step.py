"""W1 compiled: the two-layer net's whole training step (forward, L2 loss, backward, SGD update)
as one labkit.jit.compile program, against the same step written by hand in numpy, in one
interleaved run (target: compiled / numpy <= 0.92, compile time <= 0.5 s). Eager labkit
alongside. The compiled step replays one array program: no Tensor or Node per op.
"""
import time

import numpy as np

import labkit
from labkit import jit
from timing import compare, report
from w1_two_layer_step import LR, W1, W2, X, Y, numpy_step


def make_step():
    x, y = labkit.from_numpy(X), labkit.from_numpy(Y)
    w1 = labkit.from_numpy(W1.copy()).requires_grad_()
    w2 = labkit.from_numpy(W2.copy()).requires_grad_()

    def step():
        nonlocal w1, w2
        y_pred = x.mm(w1).clamp(min=0).mm(w2)
        loss = (y_pred - y).pow(2).sum()
        loss.backward()
        with labkit.no_grad():
            w1 -= LR * w1.grad
            w2 -= LR * w2.grad
            w1.grad = None
            w2.grad = None
        return loss
    return step


def main():
    compiled = jit.compile(make_step())
    t0 = time.perf_counter()
    compiled()                       # the first call traces, optimises and generates code
    first = time.perf_counter() - t0
    entry = compiled.last
    med = compare({"numpy by hand": numpy_step, "labkit compiled": compiled,
                   "labkit eager": make_step()}, rounds=41, number=20)
    report("W1 compiled training step (forward + backward + SGD), per step:", med,
           "numpy by hand")
    print(f"trace {entry.trace_time * 1e3:.1f} ms, optimise + codegen "
          f"{entry.compile_time * 1e3:.1f} ms, first call {first * 1e3:.1f} ms "
          f"(target <= 500 ms); {compiled.traces} trace(s)")
    ratio = med["labkit compiled"] / med["numpy by hand"]
    print(f"W1 compiled / numpy = {ratio:.3f}  (target <= 0.92)")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
