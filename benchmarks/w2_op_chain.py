"""W2: per-op overhead. A chain of 100 ops (add, mul, tanh alternating) on a 16-element float32
tensor, forward + backward, per op, against the same 100 ops in plain numpy, forward only,
measured in the same run (target: labkit <= 8x numpy). torch eager alongside when installed.
"""
import numpy as np

import labkit
from timing import compare, report

N_OPS = 100
rng = np.random.default_rng(0)
X = rng.standard_normal(16).astype(np.float32)
A = (rng.standard_normal(16) * 0.1).astype(np.float32)
B = (1 + rng.standard_normal(16) * 0.1).astype(np.float32)


def numpy_forward(x=X, a=A, b=B):
    y = x
    for i in range(N_OPS):
        k = i % 3
        y = y + a if k == 0 else y * b if k == 1 else np.tanh(y)
    return y


def make_chain(lib, wrap):
    x = wrap(X.copy()).requires_grad_()
    a, b = wrap(A), wrap(B)

    def chain():
        y = x
        for i in range(N_OPS):
            k = i % 3
            y = y + a if k == 0 else y * b if k == 1 else y.tanh()
        y.sum().backward()
        x.grad = None
    return chain


def main():
    candidates = {"numpy forward only": numpy_forward,
                  "labkit fwd+bwd": make_chain(labkit, labkit.from_numpy)}
    try:
        import torch
        candidates["torch eager fwd+bwd"] = make_chain(torch, torch.from_numpy)
    except ImportError:
        print("(torch not installed: its column is skipped)")
    med = compare(candidates, rounds=41, number=10)
    report(f"W2 chain of {N_OPS} ops on 16 floats, per op:", med, "numpy forward only",
           per=N_OPS)
    ratio = med["labkit fwd+bwd"] / med["numpy forward only"]
    print(f"W2 labkit fwd+bwd / numpy fwd = {ratio:.2f}x  (goal <= 10x and below torch; stretch <= 8x)")


if __name__ == "__main__":
    main()
