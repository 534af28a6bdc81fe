"""Norms and logsumexp.

vector_norm is one Function whose backward is written out, so that the norm of a zero vector
has gradient 0 (as torch) instead of the 0/0 = nan that sqrt(sum(x**2)) would give. Matrix
norms and logsumexp are built from differentiable ops.
"""
from ..autocast import autocast_op
import math

from ..function import Function
from ..tensor import Tensor, tensor_method
from .reduce import _dims, _expand_back


class VectorNorm(Function):
    node_name = "LinalgVectorNormBackward0"

    @staticmethod
    def forward(ctx, x, ord, dims, keepdim):
        xp = x.device.xp
        a = xp.abs(x._data)
        out_dtype = a.dtype
        if a.dtype.kind == "V":          # bfloat16: accumulate in float32, as torch
            a = a.astype("float32")
        if ord == math.inf:
            y = a.max(axis=dims, keepdims=keepdim) if a.size else xp.zeros(
                _out_shape(a.shape, dims, keepdim), a.dtype)
        elif ord == -math.inf:
            y = a.min(axis=dims, keepdims=keepdim)
        elif ord == 0:
            y = (a != 0).sum(axis=dims, keepdims=keepdim).astype(a.dtype)
        elif ord == 1:
            y = a.sum(axis=dims, keepdims=keepdim)
        elif ord == 2:
            y = xp.sqrt((a * a).sum(axis=dims, keepdims=keepdim))
        else:
            y = (a ** ord).sum(axis=dims, keepdims=keepdim) ** (1.0 / ord)
        y = xp.asarray(y).astype(out_dtype, copy=False)
        ctx.save_for_backward(x, y)
        ctx.ord, ctx.dims, ctx.keepdim = ord, dims, keepdim
        return y

    @staticmethod
    def backward(ctx, grad):
        from .select import where
        x, y = ctx.saved_tensors
        ord, dims = ctx.ord, ctx.dims
        g = _expand_back(grad, x.shape, dims, ctx.keepdim)
        yk = _expand_back(y, x.shape, dims, ctx.keepdim)
        if ord == 0:     # a count: no gradient at all (as torch: not even 0 * an inf upstream)
            return None, None, None, None
        if ord == 1:
            return g * x.sign(), None, None, None
        if ord in (math.inf, -math.inf):
            hit = (x.abs() == yk).to(x.dtype)
            return g * x.sign() * hit / hit.sum(dims, keepdim=True), None, None, None
        safe = where(yk == 0, 1.0, yk)
        if ord == 2:
            return where(yk == 0, 0.0, g * x / safe), None, None, None
        if ord < 2:      # as torch, sgn(x) |x|^(p-1): 0 at x = 0, where x |x|^(p-2) is 0 * inf
            scale = where(x == 0, 0.0, x.sign() * x.abs() ** (ord - 1)) / safe ** (ord - 1)
        else:
            scale = x * x.abs() ** (ord - 2) / safe ** (ord - 1)
        return where(yk == 0, 0.0, g * scale), None, None, None


def _out_shape(shape, dims, keepdim):
    return tuple(1 if i in dims else s for i, s in enumerate(shape) if keepdim or i not in dims)


def _float(x, dtype, name):
    if dtype is not None:
        x = x.to(dtype)
    if x._data.dtype.kind not in "fV":     # V: bfloat16
        raise RuntimeError(f"{name}: expected a floating-point input, got {x.dtype}. Convert "
                           "it first, e.g. x.float().")
    return x


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """(sum |x|**ord) ** (1/ord) over dim (all elements by default); ord may be inf, -inf, 0."""
    if x._data.dtype.kind == "c":      # a complex vector's norm is its magnitudes' norm
        x = x.abs()
    x = _float(x, dtype, "linalg.vector_norm")
    ord = float(ord)
    dims = _dims(dim, x._data.ndim)
    empty_dim = 0 in [x.shape[d] for d in dims]
    if (ord < 0 or ord == math.inf) and empty_dim:   # a min or max over nothing: refused, as
        raise RuntimeError(f"linalg.vector_norm: cannot compute the {ord} norm over an empty "
                           "dimension because the operation does not have an identity (min "
                           "and max of nothing are undefined).")   # torch; an empty result is fine
    return VectorNorm.apply(x, ord, dims, keepdim)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """'fro' (sqrt of the sum of squares), 1 / -1 (max / min column sum of |A|), inf / -inf
    (max / min row sum) over the two dims `dim`."""
    A = _float(A, dtype, "linalg.matrix_norm")
    if A._data.ndim < 2:
        raise RuntimeError(f"linalg.matrix_norm: the input needs at least 2 dims, got "
                           f"{tuple(A.shape)}.")
    d0, d1 = (d % A._data.ndim for d in dim)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in (1, -1, math.inf, -math.inf):
        rows, cols = (d0, d1) if abs(ord) == 1 else (d1, d0)   # 1: sum down each column
        sums = A.abs().sum(rows, keepdim=True)
        out = sums.amax(cols, keepdim=True) if ord > 0 else sums.amin(cols, keepdim=True)
        return out if keepdim else out.squeeze((d0, d1))
    if ord in (2, -2, "nuc"):                   # from the singular values (surface2)
        from .linalg_decomp import svdvals
        S = svdvals(A.movedim((d0, d1), (-2, -1)))
        out = S.sum(-1) if ord == "nuc" else S.amax(-1) if ord == 2 else S.amin(-1)
        return out.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1)) if keepdim else out
    raise NotImplementedError(f"linalg.matrix_norm: ord={ord!r} is not supported by labkit "
                              "(it needs singular values); use 'fro', 1, -1, inf or -inf.")


def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """torch.linalg.norm: a vector norm (ord None is 2, over all elements or one dim) or, for
    2 dims and a matrix ord, a matrix norm."""
    if isinstance(dim, int):
        dim = (dim,)
    if ord is None:
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if dim is None:
        if A.ndim == 2:
            dim = (-2, -1)
        elif A.ndim == 1:
            dim = (0,)
        else:
            raise RuntimeError(f"linalg.norm: with ord={ord!r} the input must be 1-D or 2-D, "
                               f"got {tuple(A.shape)}; pass dim.")
    if len(dim) == 2:
        return matrix_norm(A, ord, dim, keepdim, dtype=dtype)
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.norm: ord={ord!r} is a matrix norm and needs 2 dims.")
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)


@tensor_method("norm")
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """torch.norm: the 2-norm ('fro') or p-norm over dim (all elements by default)."""
    if p == "fro" or p is None:
        p = 2
    if p == "nuc":
        raise NotImplementedError("norm(p='nuc') is not supported by labkit (it needs singular "
                                  "values).")
    return vector_norm(input, p, dim, keepdim, dtype=dtype)


@tensor_method("logsumexp")
@autocast_op("logsumexp")
def logsumexp(input, dim, keepdim=False):
    """log(sum(exp(input))) along dim, without overflow (the max is taken out first)."""
    from .select import where
    if not isinstance(input, Tensor):
        raise TypeError(f"logsumexp: expected a tensor, got {type(input).__name__}.")
    if input._data.dtype.kind not in "fVc":    # V: bfloat16 stays bfloat16
        input = input.float()
    dims = _dims(dim, input._data.ndim)   # () for a 0-d input: the same formula as torch's,
    if input._data.size == 0:               # so its second derivative is torch's too
        return input.exp().sum(dims, keepdim=keepdim).log()
    m = input.detach().real.amax(dims, keepdim=True)   # complex: shift by the real parts
    m = where(m.isinf(), 0.0, m)
    out = (input - m).exp().sum(dims, keepdim=True).log() + m
    return out if keepdim or not dims else out.squeeze(dims)


@autocast_op("cdist")
def cdist(x1, x2, p=2.0):
    """Pairwise p-norm distances between the rows of x1 (..., P, M) and x2 (..., R, M)."""
    if x1.ndim < 2 or x2.ndim < 2 or x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"cdist: expected x1 (..., P, M) and x2 (..., R, M) with the same M, "
                           f"got {tuple(x1.shape)} and {tuple(x2.shape)}.")
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got {p}.")
    if x1.is_complex() or x2.is_complex():
        raise RuntimeError(f"cdist only supports floating-point dtypes, got {x1.dtype} and "
                           f"{x2.dtype} (as torch). Use (x1 - x2).abs() for complex distances.")
    return vector_norm(x1.unsqueeze(-2) - x2.unsqueeze(-3), p, dim=-1)
