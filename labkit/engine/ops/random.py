"""Drawing random numbers as an op (uniform or normal), used while labkit.jit traces.

An op takes no tensor input and has no gradient; being a Function, it is recorded, so a
compiled step draws fresh numbers on every call (a dropout mask is not frozen into the graph),
from the same generator and in the same order as the eager code would.
"""
import numpy as np

from ..function import Function


class Random(Function):
    random = True   # never merged with an identical-looking draw, never computed ahead

    @staticmethod
    def forward(ctx, kind, shape, np_dtype, generator):
        rng = generator.rng             # read now: manual_seed() replaces it
        if kind == "uniform":
            return rng.random(shape, dtype=np.float64).astype(np_dtype)
        return rng.standard_normal(shape).astype(np_dtype)
