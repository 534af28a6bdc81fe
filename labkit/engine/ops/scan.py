"""Running and whole products and sums: cumsum and cumprod along a dim, and prod (all or along
a dim).

Integer and bool inputs give int64, as torch. prod's gradient is the product of the *other*
elements, computed without dividing by zero when some elements are zero.
"""
from ..autocast import autocast_op
from ..dtype import bool_
from ..function import Function
from ..promotion import check_grad_dtype
from ..tensor import tensor_method
from .reduce import _dims, _opmath


def _int64(d):
    return d.astype("int64") if d.dtype.kind in "iub" else d


def _one_dim(dim, ndim, name):
    if not isinstance(dim, int):
        raise TypeError(f"{name}: dim must be an int, got {dim!r}.")
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"{name}: dimension {dim} is out of range for a tensor with {ndim} "
                         f"dimension(s) (valid: {-n} to {n - 1}).")
    return dim % n


class CumSum(Function):
    node_name = "CumsumBackward0"
    op_name = "cumsum"

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        d = _int64(x._data)
        if d.ndim == 0:
            return d.copy()
        return x.device.xp.cumsum(_opmath(d), axis=dim).astype(d.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        if grad.ndim == 0:
            return grad, None
        return grad.flip(ctx.dim).cumsum(ctx.dim).flip(ctx.dim), None


@tensor_method("cumsum")
def cumsum(input, dim, dtype=None):
    """Running sums along dim: out[i] = input[0] + ... + input[i]."""
    if dtype is not None:
        if str(dtype).endswith("bool") and input.numel() and input.dim():   # as torch
            raise NotImplementedError("cumsum(dtype=bool): not implemented (as in torch); use an "
                                      "integer dtype, e.g. dtype=labkit.int64.")
        check_grad_dtype("cumsum", input, dtype)
        input = input.to(dtype)
    out = CumSum.apply(input, _one_dim(dim, input._data.ndim, "cumsum"))
    return out if dtype is None else out.to(dtype)   # dtype=int32 stays int32 (not int64)


class CumProd(Function):
    node_name = "CumprodBackward0"
    op_name = "cumprod"

    @staticmethod
    def forward(ctx, x, dim):
        d = _int64(x._data)
        y = d.copy() if d.ndim == 0 else \
            x.device.xp.cumprod(_opmath(d), axis=dim).astype(d.dtype, copy=False)
        ctx.save_for_backward(x, y)
        ctx.dim = dim
        return y

    @staticmethod
    def backward(ctx, grad):
        """dy_i/dx_k = prod_{j <= i, j != k} x_j for i >= k. Without zeros that is y_i / x_k,
        summed as a reversed cumsum; with zeros it is computed directly: row k of a matrix
        holds x with x_k set to 1, whose cumprod gives the products (O(n^2), zeros only)."""
        from .select import where
        x, y = ctx.saved_tensors
        if x.ndim == 0:
            return grad, None
        dim = ctx.dim
        if not bool((x._data == 0).any()):
            return (grad * y).flip(dim).cumsum(dim).flip(dim) / x, None
        from ..creation import eye
        xl, gl = x.movedim(dim, -1), grad.movedim(dim, -1)
        n = xl.shape[-1]
        diag = eye(n, dtype=bool_, device=x.device)
        others = where(diag, 1.0, xl.unsqueeze(-2)).cumprod(-1).triu()
        return (others * gl.unsqueeze(-2)).sum(-1).movedim(-1, dim), None


@tensor_method("cumprod")
def cumprod(input, dim, dtype=None):
    """Running products along dim: out[i] = input[0] * ... * input[i]."""
    if dtype is not None:
        if str(dtype).endswith("bool") and input.numel() and input.dim():   # as torch
            raise NotImplementedError("cumprod(dtype=bool): not implemented (as in torch); use an "
                                      "integer dtype, e.g. dtype=labkit.int64.")
        check_grad_dtype("cumprod", input, dtype)
        input = input.to(dtype)
    out = CumProd.apply(input, _one_dim(dim, input._data.ndim, "cumprod"))
    return out if dtype is None else out.to(dtype)


class Prod(Function):
    node_name = "ProdBackward1"

    @staticmethod
    def forward(ctx, x, dims, keepdim):
        ctx.save_for_backward(x)
        ctx.dims, ctx.keepdim = dims, keepdim
        return x.device.xp.asarray(_int64(x._data).prod(axis=dims, keepdims=keepdim))

    @staticmethod
    def backward(ctx, grad):
        """d prod / d x_i = product of the other elements. With no zero that is prod / x_i; with
        zeros it is written so that its own derivative is right too: the nonzero part P, times
        the zeros' product Z (value 0 or 1) for nonzero x_i; P times the other zero (when there
        are exactly two) or P alone (exactly one) for a zero x_i."""
        from .select import where
        (x,) = ctx.saved_tensors
        dims, keep = ctx.dims, ctx.keepdim
        if not keep and dims and x.ndim:
            grad = grad.reshape([1 if i in dims else s for i, s in enumerate(x.shape)])
        zero = x == 0
        x_nz = where(zero, 1.0, x)
        p = _prod(x_nz, dims)
        zeros = zero.sum(dims, keepdim=True) if dims else zero.long()
        z = _prod(where(zero, x, 1.0), dims)
        s = where(zero, x, 0.0).sum(dims, keepdim=True) if dims else where(zero, x, 0.0)
        at_zero = p * where(zeros == 1, 1.0, where(zeros == 2, s - x, 0.0))
        return grad * where(zero, at_zero, p / x_nz * z), None, None


class ProdAll(Prod):
    node_name = "ProdBackward0"


def _prod(x, dims):
    return Prod.apply(x, dims, True) if dims else x


@tensor_method("prod")
@autocast_op("prod")
def prod(input, dim=None, keepdim=False, dtype=None):
    """Product of all elements, or along one dim."""
    if dtype is not None:    # computed and returned in dtype (int16 wraps), as torch
        check_grad_dtype("prod", input, dtype)
        return prod(input.to(dtype), dim, keepdim).to(dtype)
    nd = input._data.ndim
    if dim is None:
        return ProdAll.apply(input, tuple(range(nd)), False)
    if not isinstance(dim, int):
        raise TypeError(f"prod: dim must be a single int, got {dim!r} (torch.prod reduces one "
                        "dim at a time).")
    return Prod.apply(input, _dims(dim, nd), keepdim)
