"""More of torch.Tensor's methods: adjoint, the cauchy_ / geometric_ / log_normal_ draws (torch's
numbers: each is torch's CPU transform of the same mt19937 draws), index_reduce, is_inference,
output_nr, dim_order, narrow_copy, new_empty_strided, the deprecated out-of-place resize /
resize_as, __idiv__, lu / lu_solve, and the hardshrink / prelu methods."""
import math
import warnings

import numpy as np

from .. import distributions as _dist
from ..tensor import Tensor, tensor_method


# --- views and facts ---------------------------------------------------------------------------

@tensor_method("adjoint")
def adjoint(x):
    """The conjugate transpose of the last two dims (a view): x.transpose(-2, -1).conj()."""
    if x.dim() == 0:
        return x.view(())
    if x.dim() < 2:
        raise RuntimeError(f"tensor.adjoint() is only supported on matrices or batches of "
                           f"matrices. Got {x.dim()}-D tensor.")
    out = x.transpose(-2, -1)
    return out.conj() if x.is_complex() else out


@tensor_method("is_inference")
def is_inference(x):
    """Whether x was made inside inference_mode (torch's inference tensors)."""
    return x._inference


def _output_nr(x):
    """Which output of its grad_fn x is (0 for a leaf or a single output)."""
    return x._out_idx


Tensor.output_nr = property(_output_nr)


@tensor_method("dim_order")
def dim_order(x, *, ambiguity_check=False):
    """The dims from outermost to innermost in memory (by decreasing stride; ties keep their
    order): (0, 1, 2, 3) for a contiguous 4-D tensor, (0, 2, 3, 1) for channels_last."""
    if not isinstance(ambiguity_check, (bool, list)):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory "
                        "formats.")
    if ambiguity_check is not False:
        raise NotImplementedError("labkit's dim_order has no ambiguity_check; leave it False")
    strides = x.stride()
    return tuple(sorted(range(x.dim()), key=lambda i: -strides[i]))


@tensor_method("narrow_copy")
def narrow_copy(x, dim, start, length):
    """x.narrow(dim, start, length) as a new tensor (not a view)."""
    return x.narrow(dim, start, length).clone(memory_format=_contiguous())


def _contiguous():
    from ..formats import contiguous_format
    return contiguous_format


@tensor_method("new_empty_strided")
def new_empty_strided(x, size, stride, *, dtype=None, device=None, requires_grad=False,
                      layout=None, pin_memory=False):
    """An uninitialised tensor (labkit's are zeros) of x's dtype and device with the given
    shape and strides."""
    from ..creation_more import empty_strided
    return empty_strided(size, stride, dtype=dtype or x.dtype, device=device or x.device,
                         requires_grad=requires_grad)


# --- resize (torch's deprecated out-of-place forms) ----------------------------------------------

def _resize_copy(x, sizes, name):
    warnings.warn(f"non-inplace {name} is deprecated", stacklevel=3)
    n = math.prod(sizes)
    if n != x.numel():
        raise RuntimeError(f"requested resize to {'x'.join(map(str, sizes))} ({n} elements in "
                           f"total), but the given tensor has a size of "
                           f"{'x'.join(map(str, x.shape))} ({x.numel()} elements). autograd's "
                           f"resize can only change the shape of a given tensor, while "
                           f"preserving the number of elements. ")
    return x.clone(memory_format=_contiguous()).view(*sizes)


@tensor_method("resize")
def resize(x, *sizes):
    """torch's deprecated out-of-place resize: a reshaped copy with the same number of
    elements (it warns, as torch does)."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    return _resize_copy(x, tuple(int(s) for s in sizes), "resize")


@tensor_method("resize_as")
def resize_as(x, other):
    return _resize_copy(x, tuple(other.shape), "resize_as")


Tensor.__idiv__ = Tensor.__itruediv__      # x /= y under its Python 2 name, as torch keeps it


# --- linear algebra and activations as methods ------------------------------------------------

@tensor_method("lu")
def lu(x, pivot=True, get_infos=False):
    """(LU, pivots) of torch.lu, or (LU, pivots, infos) with get_infos."""
    from ... import linalg
    LU, pivots, infos = linalg.lu_factor_ex(x, pivot=pivot)
    return (LU, pivots, infos) if get_infos else (LU, pivots)


@tensor_method("lu_solve")
def lu_solve(b, LU_data, LU_pivots):
    """The solution X of A X = b from A's torch.lu factors (torch.lu_solve)."""
    from ... import linalg
    return linalg.lu_solve(LU_data, LU_pivots, b)


@tensor_method("hardshrink")
def hardshrink(x, lambd=0.5):
    from ...nn.functional import hardshrink as _hardshrink
    return _hardshrink(x, lambd)


@tensor_method("prelu")
def prelu(x, weight):
    from ...nn.functional import prelu as _prelu
    return _prelu(x, weight)


# --- index_reduce ----------------------------------------------------------------------------

_INDEX_REDUCE = ("prod", "mean", "amax", "amin")


def _index_reduce_args(x, dim, index, source, reduce):
    if reduce not in _INDEX_REDUCE:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    if not isinstance(index, Tensor) or index.dim() > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    if index.dtype.is_floating_point or index.dtype.is_complex or \
            str(index.dtype).split(".")[-1] not in ("int32", "int64"):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{str(index.dtype).split('.')[-1].capitalize()}")
    nd = max(x.dim(), 1)
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, "
                         f"{nd - 1}], but got {dim})")
    dim %= nd
    if source.dim() != x.dim():
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(x.shape)} "
                           f"source.shape = {list(source.shape)}")
    if x.dim() == 0:
        return dim, index.reshape(1)
    n = index.numel()
    src_n = source.shape[dim]
    if n != src_n:
        raise RuntimeError(f"index_reduce_(): Number of indices ({n}) should be equal to "
                           f"source.size(dim): ({src_n}), for dim: {dim}")
    shape = [1] * x.dim()
    shape[dim] = n
    return dim, index.reshape(shape).expand(*source.shape)


@tensor_method("index_reduce")
def index_reduce(x, dim, index, source, reduce, *, include_self=True):
    """x with source's slices reduced into the rows index names along dim: for each i,
    x[..., index[i], ...] = reduce(x[..., index[i], ...], source[..., i, ...]) with reduce
    one of 'prod', 'mean', 'amax', 'amin' (include_self=False leaves x's own values out of
    the rows that are reduced into)."""
    dim, idx = _index_reduce_args(x, dim, index, source, reduce)
    src = source.reshape(idx.shape)
    out = x.reshape(1) if x.dim() == 0 else x
    out = out.scatter_reduce(dim, idx, src, reduce, include_self=include_self)
    return out.reshape(()) if x.dim() == 0 else out


@tensor_method("index_reduce_")
def index_reduce_(x, dim, index, source, reduce, *, include_self=True):
    dim, idx = _index_reduce_args(x, dim, index, source, reduce)
    target = x.view(1) if x.dim() == 0 else x
    target.scatter_reduce_(dim, idx, source.reshape(idx.shape), reduce,
                           include_self=include_self)
    return x


# --- the draws torch has a transform for ----------------------------------------------------

_exp = np.frompyfunc(math.exp, 1, 1)       # the C library's exp, as torch's kernel calls it
_tan = np.frompyfunc(math.tan, 1, 1)
_log = np.frompyfunc(math.log, 1, 1)


def _draw(x, name, values):
    from .sampling import _fill
    return _fill(x, name, values)


@tensor_method("cauchy_")
def cauchy_(x, median=0.0, sigma=1.0, *, generator=None):
    """Fill x with Cauchy samples: median + sigma * tan(pi * (u - 1/2)), u uniform (a float64
    draw each, torch's)."""
    from .sampling import _gen
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    gen = _gen(generator)

    def values(shape, contiguous):
        u = _dist._unit(gen, _dist._numel(shape), np.float64)
        out = median + sigma * _tan(np.pi * (u - 0.5)).astype(np.float64)
        return out.astype(x._data.dtype).reshape(shape)
    return _draw(x, "cauchy_", values)


@tensor_method("log_normal_")
def log_normal_(x, mean=1.0, std=2.0, *, generator=None):
    """Fill x with exp(N(mean, std^2)) samples (torch's serial float64 normals)."""
    from .sampling import _gen
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    gen = _gen(generator)

    def values(shape, contiguous):
        n = _dist._normal_serial(gen, _dist._numel(shape), mean, std)
        return _exp(np.asarray(n, np.float64)).astype(np.float64).astype(
            x._data.dtype).reshape(shape)
    return _draw(x, "log_normal_", values)


@tensor_method("geometric_")
def geometric_(x, p, *, generator=None):
    """Fill x with the number of Bernoulli(p) trials up to the first success:
    ceil(log(u) / log1p(-p)), u uniform (torch's)."""
    from .sampling import _gen
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    gen = _gen(generator)

    def values(shape, contiguous):
        u = _dist._unit(gen, _dist._numel(shape), np.float64)
        k = np.ceil(_log(u).astype(np.float64) / math.log1p(-p))
        return k.astype(x._data.dtype).reshape(shape)
    return _draw(x, "geometric_", values)


__all__ = ["adjoint", "is_inference", "dim_order", "narrow_copy", "new_empty_strided"]
