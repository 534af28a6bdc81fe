"""Tensor.unfold(dimension, size, step): sliding windows along one dimension, the windows as a
new last dimension (time-series windows, 1-D patches). As in torch the result is a view (a
strided window over the same memory: writes through it reach the input and the reverse);
its gradient adds every window back where it came from (overlapping windows add up)."""
from ..creation import arange
from ..function import Function
from ..tensor import Tensor, tensor_method
from .gather import IndexAddNew
from .index import IndexPut
from .shape import _as_view


def _strided(xp, arr, shape, strides):
    if xp.__name__ == "numpy":
        return xp.lib.stride_tricks.as_strided(arr, shape, strides)
    return xp.lib.stride_tricks.as_strided(arr, shape=shape, strides=strides)


def _positions(device, n_windows, size, step):
    """The flat positions along the unfolded dim, window after window."""
    return (arange(n_windows, device=device)[:, None] * step
            + arange(size, device=device)[None, :]).reshape(-1)


class Unfold(Function):
    node_name = "UnfoldBackward0"

    @staticmethod
    def forward(ctx, x, d, size, step):
        a = x._data
        ctx.shape, ctx.args = a.shape, (d, size, step)
        count = (a.shape[d] - size) // step + 1
        shape = a.shape[:d] + (count,) + a.shape[d + 1:] + (size,)
        strides = a.strides[:d] + (a.strides[d] * step,) + a.strides[d + 1:] + (a.strides[d],)
        return _strided(x.device.xp, a, shape, strides)

    @staticmethod
    def backward(ctx, grad):
        d, size, step = ctx.args
        g = _flat_windows(grad, d)
        pos = _positions(grad.device, grad.shape[d], size, step)
        return IndexAddNew.apply(g, d, pos, ctx.shape), None, None, None

    @staticmethod
    def put_back(parent, new, d, size, step):
        """parent with its windows replaced by new (in-place changes through the view)."""
        pos = _positions(parent.device, new.shape[d], size, step)
        return IndexPut.apply(parent, (slice(None),) * d + (pos._data,), _flat_windows(new, d))


def _flat_windows(t, d):
    """(..., count, ..., size) -> (..., count * size, ...): the windows back along dim d."""
    t = t.movedim(-1, d + 1)
    return t.reshape(tuple(t.shape[:d]) + (t.shape[d] * t.shape[d + 1],) + tuple(t.shape[d + 2:]))


@tensor_method("unfold")
def unfold(self: Tensor, dimension, size, step):
    ndim = self.dim()
    lo, hi = -max(ndim, 1), max(ndim, 1) - 1
    if not lo <= dimension <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], "
                         f"but got {dimension})")
    d = dimension % ndim if ndim else 0
    n = self.shape[d] if ndim else 1         # a 0-d tensor unfolds as one element
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if ndim == 0:
        return self.reshape(1)[:size]
    args = (d, size, step)
    return _as_view(Unfold.apply(self, *args), self, Unfold, args)
