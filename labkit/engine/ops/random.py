"""Drawing random numbers as an op (uniform, normal, or a bernoulli(p) mask such as dropout's),
used while labkit.jit traces.

An op takes no tensor input and has no gradient; being a Function, it is recorded, so a
compiled step draws fresh numbers on every call (a dropout mask is not frozen into the graph),
from the same generator and in the same order as the eager code would.
"""
from .. import distributions as _dist
from ..function import Function


class Random(Function):
    random = True   # never merged with an identical-looking draw, never computed ahead
    source = True   # takes no tensor input, by design

    @staticmethod
    def forward(ctx, kind, shape, np_dtype, generator, p=None):
        if kind == "uniform":
            return _dist.uniform(generator, shape, np_dtype)
        if kind == "bernoulli":
            return _dist.bernoulli_scalar(generator, shape, p).astype(np_dtype)
        return _dist.normal(generator, shape, np_dtype)
