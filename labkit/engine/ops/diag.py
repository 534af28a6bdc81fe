"""Diagonals: diagonal (a view of the offset-th diagonal of two dims), diag (a vector's
diagonal matrix, or a matrix's diagonal), diag_embed, trace. diagonal's gradient puts the
incoming gradient back on the diagonal (diag_embed), and diag_embed's takes the diagonal:
each is the other's backward, to any order."""
from ..function import Function
from ..tensor import Tensor, tensor_method
from .shape import _as_view, _norm_dim


class Diagonal(Function):
    node_name = "DiagonalBackward0"

    @staticmethod
    def forward(ctx, x, offset, d1, d2):
        ctx.shape, ctx.args = x._data.shape, (offset, d1, d2)
        return _writeable(x.device.xp.diagonal(x._data, offset, d1, d2))

    @staticmethod
    def backward(ctx, grad):
        return DiagonalScatter.apply(grad, ctx.shape, *ctx.args), None, None, None

    @staticmethod
    def put_back(parent, new, offset, d1, d2):
        """parent with its diagonal replaced by new (for in-place changes through the view):
        chosen element by element, so an inf or nan off the diagonal stays as it was (a blend
        parent * (1 - mask) + ... made inf * 0 = nan there)."""
        from .select import where
        xp = parent.device.xp
        mask = xp.zeros(parent._data.shape, bool)
        _writeable(xp.diagonal(mask, offset, d1, d2))[...] = True
        return where(Tensor._make(mask, parent.device),
                     DiagonalScatter.apply(new, parent._data.shape, offset, d1, d2), parent)


class DiagonalCopy(Diagonal):
    """diag() of a matrix: the diagonal as a new tensor (torch's diagonal_copy), not a view, so
    a later in-place change of the matrix does not show in it, nor a change of it in the
    matrix."""
    node_name = "DiagonalBackward0_copy"

    @staticmethod
    def forward(ctx, x, offset, d1, d2):
        ctx.shape, ctx.args = x._data.shape, (offset, d1, d2)
        return x.device.xp.diagonal(x._data, offset, d1, d2).copy()


def _writeable(view):
    """numpy hands out diagonals read-only; torch's diagonal is a view that can be written."""
    if hasattr(view, "flags") and hasattr(view.flags, "writeable") and not view.flags.writeable:
        view.flags.writeable = True
    return view


class DiagonalScatter(Function):
    """zeros(shape) with `src` on the offset-th diagonal of dims d1, d2."""
    node_name = "DiagonalBackwardBackward0"

    @staticmethod
    def forward(ctx, src, shape, offset, d1, d2):
        xp = src.device.xp
        out = xp.zeros(shape, src._data.dtype)
        _writeable(xp.diagonal(out, offset, d1, d2))[...] = src._data
        ctx.args = (offset, d1, d2)
        return out

    @staticmethod
    def backward(ctx, grad):
        return Diagonal.apply(grad, *ctx.args), None, None, None, None


@tensor_method("diagonal")
def diagonal(input, offset=0, dim1=0, dim2=1):
    """The offset-th diagonal of dims dim1 and dim2, as a new last dim (a view)."""
    nd = input._data.ndim       # as torch: each dim checked (IndexError), then that they differ
    d1, d2 = _norm_dim(dim1, nd, "diagonal"), _norm_dim(dim2, nd, "diagonal")
    if d1 == d2:
        raise RuntimeError(f"diagonal: dim1 and dim2 cannot be the same dimension ({dim1}).")
    args = (int(offset), d1, d2)
    return _as_view(Diagonal.apply(input, *args), input, Diagonal, args)



@tensor_method("diag_embed")
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices (in dims dim1, dim2 of the result) with input's last dim on their diagonal."""
    n = input._data.shape[-1] + abs(offset) if input._data.ndim else 1
    nd = input._data.ndim + 1
    d1, d2 = _norm_dim(dim1, nd, "diag_embed"), _norm_dim(dim2, nd, "diag_embed")
    batch = list(input._data.shape[:-1])
    shape = []
    for i in range(nd):
        shape.append(n if i in (d1, d2) else batch.pop(0))
    return DiagonalScatter.apply(input, tuple(shape), int(offset), d1, d2)


@tensor_method("diag")
def diag(input, diagonal=0):
    """1-D input: the square matrix with it on the diagonal-th diagonal. 2-D: that diagonal."""
    nd = input._data.ndim
    if nd == 1:
        return diag_embed(input, diagonal)
    if nd == 2:
        return DiagonalCopy.apply(input, int(diagonal), 0, 1)
    raise RuntimeError(f"diag: expected a 1-D or 2-D tensor, got shape {tuple(input.shape)}.")


@tensor_method("trace")
def trace(input):
    """Sum of the main diagonal of a 2-D tensor."""
    if input._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, got shape {tuple(input.shape)}.")
    return diagonal(input).sum()




@tensor_method("fill_diagonal_")
def fill_diagonal_(input, fill_value, wrap=False):
    """Set the main diagonal (all indices equal) to fill_value, in place. For a tall matrix,
    wrap=True starts the diagonal again every n_cols + 1 rows, as torch does."""
    from ..creation import arange
    shape = tuple(input.shape)
    if len(shape) < 2:
        raise RuntimeError(f"fill_diagonal_: dimensions must larger than 1 (got a {len(shape)}-d "
                           "tensor)")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError(f"fill_diagonal_: all dimensions of input must be of equal length "
                           f"(got shape {shape})")
    if len(shape) == 2 and wrap and shape[0] > shape[1]:
        pos = arange(0, shape[0] * shape[1], shape[1] + 1, device=input.device)
        index = (pos // shape[1], pos % shape[1])
    else:
        i = arange(min(shape), device=input.device)
        index = (i,) * len(shape)
    input[index] = fill_value
    return input
