"""Tensor.unfold(dimension, size, step): sliding windows along one dimension, the windows as a
new last dimension (time-series windows, 1-D patches). Built on index_select, so gradients
flow back (overlapping windows add up); unlike torch the result is a copy, not a view."""
from ..creation import arange
from ..tensor import Tensor, tensor_method


@tensor_method("unfold")
def unfold(self: Tensor, dimension, size, step):
    if self.dim() == 0:
        if size != 1 or step <= 0:
            raise RuntimeError(f"unfold: a 0-d tensor has windows of size 1 only, got size {size}, "
                               f"step {step}")
        return self.reshape(1)
    ndim = self.dim()
    if not -ndim <= dimension < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                         f"{ndim - 1}], but got {dimension})")
    d = dimension % ndim
    n = self.shape[d]
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    count = (n - size) // step + 1
    index = (arange(count, device=self.device)[:, None] * step
             + arange(size, device=self.device)[None, :]).reshape(-1)
    out = self.index_select(d, index)
    out = out.reshape(tuple(self.shape[:d]) + (count, size) + tuple(self.shape[d + 1:]))
    return out.movedim(d + 1, -1)
