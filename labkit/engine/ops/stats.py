"""Order and moment statistics: median (torch's: the lower of the two middle values, with its
index along a dim) and var_mean / std_mean (both in one call, as torch)."""
from ..tensor import tensor_method
from .reduce import values_indices
from .scan import _one_dim


@tensor_method("median")
def median(input, dim=None, keepdim=False):
    """The median of all elements, or (values, indices) along dim."""
    if dim is None:
        flat = input.reshape(-1)
        if flat.shape[0] == 0:
            return flat.sum() * float("nan")
        return flat.sort().values[(flat.shape[0] - 1) // 2]
    dim = _one_dim(dim, input._data.ndim, "median")
    n = input._data.shape[dim] if input._data.ndim else 1
    if n == 0:
        raise IndexError(f"median(): dimension {dim} of shape {tuple(input.shape)} is empty.")
    values, indices = input.sort(dim)
    k = (n - 1) // 2
    pick = (slice(None),) * dim + (slice(k, k + 1),) if input._data.ndim else ()
    v, i = (values[pick], indices[pick]) if pick else (values, indices)
    if not keepdim and input._data.ndim:
        v, i = v.squeeze(dim), i.squeeze(dim)
    return values_indices(v, i)


@tensor_method("var_mean")
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(var, mean) over dim."""
    return (input.var(dim, unbiased, keepdim, correction=correction),
            input.mean(dim, keepdim) if dim is not None else
            input.mean().reshape([1] * input.ndim if keepdim else []))


@tensor_method("std_mean")
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(std, mean) over dim."""
    return (input.std(dim, unbiased, keepdim, correction=correction),
            input.mean(dim, keepdim) if dim is not None else
            input.mean().reshape([1] * input.ndim if keepdim else []))
