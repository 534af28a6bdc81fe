"""Ordering along a dim: sort, argsort, topk. The values' gradient goes back to the positions
they came from (a scatter by the returned indices). Ties keep their original order (stable),
and nan sorts as the largest value, as in torch."""

from ..function import Function
from ..tensor import tensor_method
from .gather import ScatterAddNew
from .scan import _one_dim

from .. import return_types as _rt


def _order(xp, d, dim, descending):
    """Stable argsort along dim; descending keeps equal values in their original order too."""
    if d.dtype.kind == "b":
        d = d.astype("int8")
    if not descending:
        return xp.argsort(d, axis=dim, kind="stable")
    n = d.shape[dim]
    rev = xp.flip(xp.argsort(xp.flip(d, axis=dim), axis=dim, kind="stable"), axis=dim)
    return (n - 1) - rev


class Sort(Function):
    node_name = "SortBackward0"

    @staticmethod
    def forward(ctx, x, dim, descending, k):
        xp = x.device.xp
        d = x._data if x._data.ndim else x._data.reshape(1)
        idx = _order(xp, d, dim, descending)
        if k is not None:
            idx = idx[(slice(None),) * dim + (slice(0, k),)]
        vals = xp.take_along_axis(d, idx, axis=dim)
        if x._data.ndim == 0:
            vals, idx = vals.reshape(()), idx.reshape(())
        idx = idx.astype("int64", copy=False)
        ctx.dim, ctx.shape = dim, x._data.shape
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        return vals, idx

    @staticmethod
    def backward(ctx, grad, _grad_idx):
        (idx,) = ctx.saved_tensors
        if not ctx.shape:
            return grad, None, None, None
        return ScatterAddNew.apply(grad, ctx.dim, idx, ctx.shape), None, None, None


class TopK(Sort):
    node_name = "TopkBackward0"
    op_name = "topk"


@tensor_method("sort")
def sort(input, dim=-1, descending=False, stable=False):
    """(values, indices): the elements along dim in order; input.gather(dim, indices) == values."""
    dim = _one_dim(dim, input._data.ndim, "sort")
    return _rt.sort(*Sort.apply(input, dim, bool(descending), None))


@tensor_method("msort")
def msort(input):
    """The values sorted along the first dim (torch.msort = sort(dim=0).values)."""
    return sort(input, 0).values


@tensor_method("argsort")
def argsort(input, dim=-1, descending=False, stable=False):
    return sort(input, dim, descending).indices


@tensor_method("topk")
def topk(input, k, dim=-1, largest=True, sorted=True):
    """The k largest (or smallest) elements along dim, with their indices, largest first."""
    dim = _one_dim(dim, input._data.ndim, "topk")
    if input._data.dtype.kind == "b":
        raise RuntimeError("topk does not support bool dtypes on CPU (as torch); convert "
                           "first: x.long().topk(...).")
    n = input._data.shape[dim] if input._data.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError(f"topk: k ({k}) is out of range for dimension {dim} of size {n} "
                           f"(shape {tuple(input.shape)}); k must be in 0..{n}.")
    # a 0-d input gives its element whatever k (0 or 1), as torch
    return _rt.topk(*TopK.apply(input, dim, bool(largest), int(k) if input._data.ndim else None))


