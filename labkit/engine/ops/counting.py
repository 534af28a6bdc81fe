"""one_hot: class indices (non-negative int64) to 0/1 columns; no gradient flows through it.
(bincount lives with the other counting statistics in stats.py.)"""
from ..function import Function
from ..tensor import Tensor


def _labels(name, x):
    if not isinstance(x, Tensor) or x._data.dtype.kind not in "iu":
        got = x.dtype if isinstance(x, Tensor) else type(x).__name__
        raise RuntimeError(f"{name}: expected an integer (int64) tensor of class indices, got "
                           f"{got}. Convert labels with .long().")
    d = x._data
    lo = int(d.min()) if d.size else 0
    if lo < 0:
        raise RuntimeError(f"{name}: class values must be non-negative, found {lo}.")
    return int(d.max()) if d.size else -1


class OneHot(Function):
    @staticmethod
    def forward(ctx, x, num_classes):
        xp = x.device.xp
        return (x._data[..., None] == xp.arange(num_classes)).astype("int64")


def one_hot(tensor, num_classes=-1):
    """int64 tensor with one more dim: out[..., c] = 1 where tensor == c."""
    top = _labels("one_hot", tensor)
    if num_classes == -1:
        if tensor._data.size == 0:
            raise RuntimeError("one_hot: can not infer the total number of classes from an "
                               "empty tensor; pass num_classes.")
        num_classes = top + 1
    elif top >= num_classes:
        raise RuntimeError(f"one_hot: class values must be smaller than num_classes "
                           f"({num_classes}), found {top}.")
    return OneHot.apply(tensor, int(num_classes))
