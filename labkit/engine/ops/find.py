"""Finding elements: nonzero / argwhere / where(condition), masked_select,
count_nonzero, isclose.
Their shapes depend on the data (one device sync on a GPU); only masked_select carries a
gradient (it is x[mask], indexing with a broadcast mask)."""
import numpy as np

from ..function import Function
from ..tensor import Tensor, tensor_method
from .common import data


class Nonzero(Function):
    @staticmethod
    def forward(ctx, x, as_tuple):
        xp, d = x.device.xp, x._data
        if d.ndim == 0:                    # torch: one 0-dim "index" per nonzero element
            n = int(bool(d))
            return (xp.zeros(n, "int64"),) if as_tuple else xp.zeros((n, 0), "int64")
        found = tuple(i.astype("int64") for i in xp.nonzero(d))
        return found if as_tuple else xp.stack(found, axis=1)


@tensor_method("nonzero")
def nonzero(input, *, as_tuple=False):
    """Indices of the nonzero elements: an (n, ndim) int64 tensor, or one tensor per dim."""
    return Nonzero.apply(input, bool(as_tuple))


@tensor_method("argwhere")
def argwhere(input):
    return Nonzero.apply(input, False)


@tensor_method("masked_select")
def masked_select(input, mask):
    """The elements of input where mask (broadcast against it) is True, as a 1-D tensor."""
    if not isinstance(mask, Tensor) or mask._data.dtype.kind != "b":
        raise RuntimeError(f"masked_select: expected a bool mask, got "
                           f"{mask.dtype if isinstance(mask, Tensor) else type(mask).__name__}.")
    try:
        shape = np.broadcast_shapes(input._data.shape, mask._data.shape)
    except ValueError:
        raise RuntimeError(f"masked_select: the mask {tuple(mask.shape)} and the input "
                           f"{tuple(input.shape)} cannot be broadcast together.") from None
    return input.expand(shape)[mask.expand(shape)]


class CountNonzero(Function):
    @staticmethod
    def forward(ctx, x, dim):
        return x.device.xp.asarray((x._data != 0).sum(axis=dim)).astype("int64")


@tensor_method("count_nonzero")
def count_nonzero(input, dim=None):
    return CountNonzero.apply(input, tuple(dim) if isinstance(dim, list) else dim)


class IsClose(Function):
    @staticmethod
    def forward(ctx, a, b, rtol, atol, equal_nan):
        return a.device.xp.isclose(a._data, data(b), rtol=rtol, atol=atol, equal_nan=equal_nan)


@tensor_method("isclose")
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise |input - other| <= atol + rtol * |other| (a bool tensor)."""
    if isinstance(other, Tensor) and other._data.dtype != input._data.dtype:
        raise RuntimeError(f"isclose: {input.dtype} and {other.dtype} differ; convert one first "
                           "(torch requires the same dtype).")
    return IsClose.apply(input, other, rtol, atol, bool(equal_nan))


def where(condition, input=None, other=None):
    """where(condition, input, other) chooses elementwise; where(condition) alone is
    nonzero(condition, as_tuple=True), as torch."""
    from .select import where as choose
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    return choose(condition, input, other)
