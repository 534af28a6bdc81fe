"""scatter_reduce: input with src reduced into it at index along dim, by "sum", "prod", "mean",
"amax" or "amin" (segment max for a per-node softmax, pooled readouts of graphs).
include_self=False leaves input's own value out of every position that index touches.

The backward is torch's (scatter_reduce_backward), written with Tensor ops: mean divides by
the count per position; amax/amin split the gradient evenly among the tied maxima; prod
divides the result by each factor, with zeros handled as torch does.
"""
import numpy as np

from ..function import _NULL, Function
from ..tensor import Tensor, tensor_method
from .gather import _check_index, _lead, _pad_to, _positions, gather, scatter, scatter_add
from .scan import _one_dim

REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _identity(reduce, dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    info = np.iinfo(dtype) if dtype.kind in "iu" else None
    if info is None:                     # bool
        return reduce == "amin"
    return info.min if reduce == "amax" else info.max


def _reduce_into(xp, out, dim, i, values, reduce, include_self):
    if out.ndim == 0:
        out, i, values = out.reshape(1), i.reshape(-1), values.reshape(-1)
    pos = _positions(xp, i, dim)
    if not include_self:
        out[pos] = _identity(reduce, out.dtype)
    ufunc = {"sum": xp.add, "mean": xp.add, "prod": xp.multiply, "amax": xp.maximum,
             "amin": xp.minimum}[reduce]
    ufunc.at(out, pos, values)
    if reduce == "mean":
        count = xp.full(out.shape, 1 if include_self else 0, dtype=np.int64)
        xp.add.at(count, pos, 1)
        count[count == 0] = 1
        if out.dtype.kind == "f":
            out /= count.astype(out.dtype)
        else:
            out //= count.astype(out.dtype)
    return out


class ScatterReduce(Function):
    node_name = "ScatterReduceBackward0"

    @staticmethod
    def forward(ctx, x, dim, index, src, reduce, include_self):
        out = x._data.copy()
        values = _lead(src._data, index._data.shape)
        res = _reduce_into(x.device.xp, out, dim, index._data, values, reduce, include_self)
        ctx.args = (dim, index, reduce, include_self)
        ctx.save_for_backward(x, src)
        return res.reshape(x._data.shape)

    @staticmethod
    def backward(ctx, grad):
        x, src = ctx.saved_tensors
        dim, index, reduce, include_self = ctx.args
        result = ScatterReduce.apply(x.detach(), dim, index, src.detach(), reduce, include_self)
        src_lead = src[tuple(slice(0, n) for n in index.shape)] if tuple(src.shape) != \
            tuple(index.shape) else src
        if reduce == "sum":
            g_self, g_src = grad, gather(grad, dim, index)
        elif reduce == "mean":
            n = x.new_ones(x.shape) if include_self else x.new_zeros(x.shape)
            n = scatter_add(n, dim, index, src_lead.new_ones(src_lead.shape))
            n = n.masked_fill(n == 0, 1)
            g_self = grad / n
            g_src = gather(g_self, dim, index)
        elif reduce in ("amax", "amin"):
            value = gather(result, dim, index)
            self_is = (x == result).to(grad.dtype)
            src_is = (src_lead == value).to(grad.dtype)
            share = grad / scatter_add(self_is, dim, index, src_is)
            g_self = self_is * share
            g_src = src_is * gather(share, dim, index)
        else:                                                      # prod
            masked_self = x.masked_fill(x == 0, 1)
            masked_result = ScatterReduce.apply(masked_self, dim, index, src_lead, reduce,
                                                include_self)
            g_self = grad * masked_result / masked_self
            src_zero = src_lead == 0
            zeros_there = gather(scatter_add(x.new_zeros(x.shape), dim, index,
                                             src_zero.to(x.dtype)), dim, index)
            single_zero = src_zero & (zeros_there == 1)
            masked_src_result = ScatterReduce.apply(x, dim, index,
                                                    src_lead.masked_fill(single_zero, 1),
                                                    reduce, include_self)
            from .select import where
            g_src = where(single_zero, gather(grad * masked_src_result, dim, index),
                          gather(grad * result, dim, index) / src_lead.masked_fill(src_zero, 1))
        if not include_self:
            g_self = scatter(g_self, dim, index, 0.0)
        need = ctx.needs_input_grad
        return (g_self if need[0] else None), None, None, \
            (_pad_to(g_src, tuple(src.shape)) if need[3] else None), None, None


def _args(name, input, dim, index, src, reduce):
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)     # torch takes both spellings
    if reduce not in REDUCTIONS:
        raise RuntimeError(f"{name}(): reduce argument must be either sum, prod, mean, amax or "
                           f"amin, got {reduce}")
    if not isinstance(src, Tensor):
        raise TypeError(f"{name}(): argument 'src' must be Tensor, not {type(src).__name__}")
    dim = _one_dim(dim, input._data.ndim, name)
    if src.device is not input.device:
        raise RuntimeError(f"{name}(): src is on {src.device} but input is on {input.device}; "
                           "move it first.")
    if src._data.dtype != input._data.dtype:
        raise RuntimeError(f"{name}(): expected src ({src.dtype}) to have the same dtype as "
                           f"self ({input.dtype}); convert it first.")
    _check_index(name, input, dim, index, src)
    return dim, reduce


@tensor_method("scatter_reduce")
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    dim, reduce = _args("scatter_reduce", input, dim, index, src, reduce)
    return ScatterReduce.apply(input, dim, index, src, reduce, bool(include_self))


@tensor_method("scatter_reduce_")
def scatter_reduce_(input, dim, index, src, reduce, *, include_self=True):
    from .inplace import inplace
    dim, reduce = _args("scatter_reduce_", input, dim, index, src, reduce)
    include_self = bool(include_self)

    def write(d):
        d[...] = ScatterReduce.forward(_NULL, Tensor._make(d, input.device), dim, index, src,
                                       reduce, include_self)
    return inplace(input, "scatter_reduce_", write, ScatterReduce, dim, index, src, reduce,
                   include_self)
