"""Running and whole products and sums: cumsum and cumprod along a dim, and prod (all or along
a dim).

Integer and bool inputs give int64, as torch. prod's gradient is the product of the *other*
elements, computed without dividing by zero when some elements are zero.
"""
from ..autocast import autocast_op
from ..dtype import bool_
from ..creation import ones_like, zeros_like
from ..function import Function
from ..grad_mode import mode
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
        """torch's cumprod_backward, case by case (their nan/inf patterns differ): without zeros,
        dy_i/dx_k = y_i / x_k summed as a reversed cumsum; with zeros and no graph to record,
        the O(n) form (up to the first zero as before; at the first zero, the running products
        after it); recording (create_graph), the products of the others directly: row k of a
        matrix holds x with x_k set to 1, whose cumprod gives them (O(n^2))."""
        from .select import where
        x, y = ctx.saved_tensors
        dim = ctx.dim
        if x.numel() <= 1 or x.shape[dim] == 1:
            return grad, None
        zero = x == 0
        if not bool(zero._data.any()):
            return (grad * y).flip(dim).cumsum(dim).flip(dim) / x, None
        if not mode.enabled:
            seen = zero.long().cumsum(dim)          # zeros up to and including each element
            before, first = seen == 0, seen == 1
            w = where(before, grad * y, 0.0)
            out = where(before, w.flip(dim).cumsum(dim).flip(dim) / x, 0.0)
            at = zero & first                       # the first zero
            index = first.long().argmax(dim, keepdim=True)
            prev = where(index == 0, 1.0, y.gather(dim, (index - 1).clamp(min=0)))
            after = (where(first & ~at, x, 1.0).cumprod(dim) * where(first, grad, 0.0))
            return where(at, after.sum(dim, keepdim=True) * prev, out), None
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
    def forward(ctx, x, dim, keepdim):
        """The product along dim (an int), or of everything (dim None)."""
        ctx.save_for_backward(x)
        ctx.dim, ctx.keepdim = dim, keepdim
        return x.device.xp.asarray(_int64(x._data).prod(axis=dim, keepdims=keepdim))

    @staticmethod
    def backward(ctx, grad):
        """torch's prod_backward: prod / x_i when no element of x is zero (nan and inf then
        spread as in torch); otherwise the product of the others, as running products from
        each side (prod_safe_zeros_backward), whose own derivative is right too. The whole
        product with two zeros or more and no graph to record is all zeros (as torch)."""
        (x,) = ctx.saved_tensors
        dim = ctx.dim
        if x.ndim == 0:
            return grad, None, None
        if dim is not None and not ctx.keepdim:
            grad = grad.unsqueeze(dim)
        zeros = int((x._data == 0).sum())
        if not zeros:
            return grad * (Prod.apply(x, dim, dim is not None) / x), None, None
        if dim is None and zeros > 1 and not mode.enabled:
            return zeros_like(x), None, None
        from .join import cat
        flat = x.reshape(-1) if dim is None else x
        d = 0 if dim is None else dim
        n = flat.shape[d]
        one = ones_like(flat.narrow(d, 0, 1))
        before = cat([one, flat.narrow(d, 0, n - 1)], d).cumprod(d)
        after = cat([one, flat.narrow(d, 1, n - 1).flip(d)], d).cumprod(d).flip(d)
        return grad * (before * after).reshape(x.shape), None, None


class ProdAll(Prod):
    node_name = "ProdBackward0"


@tensor_method("prod")
@autocast_op("prod")
def prod(input, dim=None, keepdim=False, dtype=None):
    """Product of all elements, or along one dim."""
    if dtype is not None:    # computed and returned in dtype (int16 wraps), as torch
        check_grad_dtype("prod", input, dtype)
        return prod(input.to(dtype), dim, keepdim).to(dtype)
    nd = input._data.ndim
    if dim is None:
        return ProdAll.apply(input, None, False)
    if not isinstance(dim, int):
        raise TypeError(f"prod: dim must be a single int, got {dim!r} (torch.prod reduces one "
                        "dim at a time).")
    dims = _dims(dim, nd)            # () for a 0-d input: the whole (one element)
    return Prod.apply(input, dims[0] if dims else None, keepdim)
