"""Small torch functions programs reach for: tril_indices / triu_indices (the coordinates of a
triangle), aminmax, nanmean / nansum (ignoring nan, differentiable), logspace and randint_like."""

import numpy as np

from ..creation import linspace, randint, tensor
from ..tensor import Tensor, tensor_method

from .. import return_types as _rt  # noqa: E402
AminmaxResult = _rt.aminmax


def _indices(which, row, col, offset, dtype, device):
    from ..dtype import int64
    if row < 0 or col < 0:
        raise RuntimeError(f"row must be non-negative, got{row}" if row < 0 else
                           f"col must be non-negative, got{col}")
    fn = np.tril_indices if which == "tril" else np.triu_indices
    rows, cols = fn(row, offset, col)
    return tensor(np.stack([rows, cols]).astype(np.int64), dtype=dtype or int64, device=device)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return _indices("tril", row, col, offset, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return _indices("triu", row, col, offset, dtype, device)


@tensor_method("aminmax")
def aminmax(input, *, dim=None, keepdim=False):
    if input.numel() == 0 and dim is None:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    if dim is None:
        return AminmaxResult(input.amin(), input.amax())
    return AminmaxResult(input.amin(dim, keepdim=keepdim), input.amax(dim, keepdim=keepdim))


@tensor_method("nansum")
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    from .select import where
    from .complex_guard import refuse_complex
    refuse_complex("nansum", input, RuntimeError)
    if dtype is not None:
        input = input.to(dtype)          # torch sums in dtype, not in input's then converts
    if input.dtype.is_floating_point:
        input = where(input.isnan(), 0.0, input)
    out = input.sum() if dim is None else input.sum(dim, keepdim=keepdim)
    return out if dtype is None else out.to(dtype)


@tensor_method("nanmean")
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"nanmean(): expected input to have floating point dtype but got "
                           f"{input.dtype}")
    if dtype is not None:
        input = input.to(dtype)
    count = (~input.isnan()).sum() if dim is None else (~input.isnan()).sum(dim, keepdim=keepdim)
    return nansum(input, dim, keepdim) / count


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False,
             layout=None):
    from ..dtype import float64
    exponents = linspace(start, end, steps, dtype=float64)
    result = (base ** exponents)
    from ..defaults import get_default_dtype
    result = result.to(dtype or get_default_dtype())
    if device is not None:
        result = result.to(device)
    return result.requires_grad_() if requires_grad else result


def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False,
                 generator=None, memory_format=None, layout=None):
    if not isinstance(input, Tensor):
        raise TypeError(f"randint_like(): argument 'input' must be Tensor, not "
                        f"{type(input).__name__}")
    if high is None:
        low, high = 0, low
    return randint(low, high, tuple(input.shape), generator=generator,
                   dtype=dtype or input.dtype, device=device or input.device,
                   requires_grad=requires_grad)


@tensor_method("reshape_as")
def reshape_as(input, other):
    return input.reshape(tuple(other.shape))


@tensor_method("take_along_dim")
def take_along_dim(input, indices, dim=None):
    """input's values at `indices` along dim, the other dims broadcast (numpy's
    take_along_axis); with dim=None, over the flattened input."""
    if isinstance(indices, Tensor) and indices._data.dtype.name != "int64":
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{indices.dtype}. Convert them with indices.long().")
    if dim is None:
        return input.reshape(-1).gather(0, indices.reshape(-1))
    nd = input.dim()
    if indices.dim() != nd:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number "
                           f"of dimensions, but got {nd} dimensions for input, and "
                           f"{indices.dim()} dimensions for indices")
    if nd == 0:
        raise IndexError(f"take_along_dim: Dimension specified as {dim} but tensor has no "
                         "dimensions (a 0-d input: use dim=None).")
    from .scan import _one_dim
    d = _one_dim(dim, nd, "take_along_dim")
    shape_in, shape_ix = list(input.shape), list(indices.shape)
    for k in range(nd):
        if k == d:
            continue
        a, b = shape_in[k], shape_ix[k]
        if a != b and 1 not in (a, b):
            raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) "
                               f"at non-singleton dimension {k}")
        shape_in[k] = shape_ix[k] = b if a == 1 else a
    n = input.shape[d]
    if indices.numel():        # torch takes positions modulo the size (-1 is the last)
        if n == 0:
            raise RuntimeError("ZeroDivisionError: take_along_dim() along a dim of size 0 with "
                               "a non-empty index (torch reads positions modulo the size).")
        indices = indices % n
    return input.expand(*shape_in).gather(d, indices.expand(*shape_ix))
