"""torch.unravel_index(indices, shape): flat positions (what argmax of a flattened tensor
gives) back into one coordinate tensor per dim, e.g. the row and column of a matrix's
largest element: unravel_index(x.argmax(), x.shape)."""
import math

from ..creation import tensor
from ..dtype import int64
from ..tensor import Tensor


def unravel_index(indices, shape):
    if not isinstance(indices, Tensor):
        raise TypeError(f"unravel_index: expected 'indices' to be a Tensor, got "
                        f"{type(indices).__name__}: wrap it, e.g. labkit.tensor({indices!r}).")
    if indices._data.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, bool) or not isinstance(shape, (int, tuple, list)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    for n in shape:
        if not isinstance(n, int) or isinstance(n, bool):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got "
                            f"{type(n)}")
    if any(n < 0 for n in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    # the flat step of each dim (row-major), then each coordinate is (i // step) % size
    steps = [math.prod(shape[k + 1:]) for k in range(len(shape))]
    steps = tensor(steps, dtype=int64, device=indices.device)
    sizes = tensor(list(shape), dtype=int64, device=indices.device)
    return (indices.unsqueeze(-1).floor_divide(steps) % sizes).unbind(-1)
