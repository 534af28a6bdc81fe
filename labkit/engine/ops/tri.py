"""Triangles of (batches of) matrices: tril keeps the lower part, triu the upper part. The
gradient is masked the same way."""
from ..function import Function
from ..tensor import tensor_method


class Tril(Function):
    node_name = "TrilBackward0"
    fn = "tril"

    @classmethod
    def forward(cls, ctx, x, diagonal):
        if x._data.ndim < 2:
            raise RuntimeError(f"{cls.fn}: input tensor must have at least 2 dimensions, got "
                               f"shape {tuple(x.shape)}.")
        ctx.diagonal = diagonal
        return getattr(x.device.xp, cls.fn)(x._data, diagonal)

    @classmethod
    def backward(cls, ctx, grad):
        return cls.apply(grad, ctx.diagonal), None


class Triu(Tril):
    node_name = "TriuBackward0"
    fn = "triu"


@tensor_method("tril")
def tril(input, diagonal=0):
    """Zero above the `diagonal`-th diagonal (0 the main one, >0 above, <0 below)."""
    return Tril.apply(input, int(diagonal))


@tensor_method("triu")
def triu(input, diagonal=0):
    """Zero below the `diagonal`-th diagonal."""
    return Triu.apply(input, int(diagonal))


@tensor_method("tril_")
def tril_(input, diagonal=0):
    from .inplace import inplace
    return inplace(input, "tril_", lambda d: d.__setitem__(..., input.device.xp.tril(d, diagonal)),
                   Tril, int(diagonal))


@tensor_method("triu_")
def triu_(input, diagonal=0):
    from .inplace import inplace
    return inplace(input, "triu_", lambda d: d.__setitem__(..., input.device.xp.triu(d, diagonal)),
                   Triu, int(diagonal))
