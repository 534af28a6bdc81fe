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
from w1_two_layer_step import make_step as make_eager_step, numpy_step


def make_step():
    """The eager step of benchmarks/w1_two_layer_step.py, on fresh copies of the weights."""
    return make_eager_step(labkit, labkit.from_numpy)


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
