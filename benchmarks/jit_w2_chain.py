"""W2 compiled: a chain of 100 ops (add, mul, tanh alternating) on 16 floats, forward and
backward, as one labkit.jit.compile program, per op, against the same 100 ops in plain numpy,
forward only, in one interleaved run (target: compiled <= 1.6x numpy). Here every op costs
its call overhead: the program is straight-line numpy calls writing into buffers it owns.
"""
import time

import labkit
from labkit import jit
from timing import compare, report
from w2_op_chain import A, B, N_OPS, X, numpy_forward


def make_chain():
    x = labkit.from_numpy(X.copy()).requires_grad_()
    a, b = labkit.from_numpy(A), labkit.from_numpy(B)

    def chain():
        x.grad = None
        y = x
        for i in range(N_OPS):
            k = i % 3
            y = y + a if k == 0 else y * b if k == 1 else y.tanh()
        y.sum().backward()
        return x.grad        # observable: the compiled program must compute it
    return chain


def main():
    compiled = jit.compile(make_chain())
    t0 = time.perf_counter()
    compiled()
    first = time.perf_counter() - t0
    entry = compiled.last
    med = compare({"numpy forward only": numpy_forward, "labkit compiled fwd+bwd": compiled,
                   "labkit eager fwd+bwd": make_chain()}, rounds=41, number=10)
    report(f"W2 chain of {N_OPS} ops on 16 floats, per op:", med, "numpy forward only",
           per=N_OPS)
    print(f"trace {entry.trace_time * 1e3:.1f} ms, optimise + codegen "
          f"{entry.compile_time * 1e3:.1f} ms, first call {first * 1e3:.1f} ms; program of "
          f"{entry.program.source.count(chr(10))} lines, {entry.program.n_buffers} buffers")
    ratio = med["labkit compiled fwd+bwd"] / med["numpy forward only"]
    print(f"W2 compiled fwd+bwd / numpy fwd = {ratio:.2f}x  (target <= 1.6x)")


if __name__ == "__main__":
    main()
