"""Counting classes: bincount and one_hot. Both take non-negative int64 tensors and give
results that carry no gradient (bincount's weighted form is not differentiable in torch)."""
from ..function import Function
from ..tensor import Tensor, tensor_method


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


class Bincount(Function):
    @staticmethod
    def forward(ctx, x, weights, minlength):
        xp = x.device.xp
        n = max(int(x._data.max()) + 1 if x._data.size else 0, minlength)
        if weights is None:
            out = xp.zeros(n, "int64")
            xp.add.at(out, x._data, 1)
            return out
        w = weights._data
        out = xp.zeros(n, w.dtype if w.dtype.kind == "f" else "float64")
        xp.add.at(out, x._data, w)
        return out


@tensor_method("bincount")
def bincount(input, weights=None, minlength=0):
    """How often each value 0..max occurs in a 1-D int tensor (summing weights instead of 1)."""
    if input._data.ndim != 1:
        raise RuntimeError(f"bincount only supports 1-d non-negative integral inputs, got shape "
                           f"{tuple(input.shape)}.")
    _labels("bincount", input)
    if minlength < 0:
        raise RuntimeError(f"bincount: minlength should be >= 0, got {minlength}.")
    if weights is not None and tuple(weights.shape) != tuple(input.shape):
        raise RuntimeError(f"bincount: weights {tuple(weights.shape)} should have the same "
                           f"shape as input {tuple(input.shape)}.")
    return Bincount.apply(input, weights, int(minlength))


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
