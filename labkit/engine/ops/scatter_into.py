"""select_scatter, slice_scatter, diagonal_scatter and masked_scatter: the out-of-place form of
writing into a view (out = x.clone(); out.select(dim, i).copy_(src)), which functional code
(torch.func, compilers) uses instead of mutation. Each is that clone-and-write, so the
gradient is the in-place machinery's: src gets the gradient of the region it fills, x the
rest."""
from ..tensor import Tensor, tensor_method
from .. import dtype as _dt


def _fill(name, input, src, view):
    out = input.clone()
    region = view(out)
    if tuple(src.shape) != tuple(region.shape):
        raise RuntimeError(f"{name}: expected src to have a size equal to the slice of self. "
                           f"src size = {list(src.shape)}, slice size = {list(region.shape)}")
    region.copy_(src)
    return out


@tensor_method("select_scatter")
def select_scatter(input, src, dim, index):
    """input with input.select(dim, index) replaced by src."""
    return _fill("select_scatter", input, src, lambda t: t.select(dim, index))


@tensor_method("slice_scatter")
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """input with input[..., start:end:step, ...] (along dim) replaced by src."""
    def view(t):
        index = [slice(None)] * t.dim()
        index[dim] = slice(start, end, step)
        return t[tuple(index)]
    return _fill("slice_scatter", input, src, view)


@tensor_method("diagonal_scatter")
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """input with input.diagonal(offset, dim1, dim2) replaced by src."""
    return _fill("diagonal_scatter", input, src, lambda t: t.diagonal(offset, dim1, dim2))


def _masked_source(name, input, mask, source):
    if not isinstance(mask, Tensor) or mask.dtype != _dt.bool_:
        got = mask.dtype if isinstance(mask, Tensor) else type(mask).__name__
        raise RuntimeError(f"{name} only supports boolean masks, but got mask with dtype {got}: "
                           "build it with a comparison (x > 0) or .bool().")
    if source.dtype != input.dtype:
        raise RuntimeError(f"{name}: expected self and source to have same dtypes but got "
                           f"{input.dtype} and {source.dtype}; convert source with "
                           f".to({input.dtype}).")


@tensor_method("masked_scatter")
def masked_scatter(input, mask, source):
    """input where mask is False; where it is True, source's elements in row-major order
    (input and mask broadcast)."""
    _masked_source("masked_scatter", input, mask, source)
    from .broadcast import broadcast_tensors
    input, mask = broadcast_tensors(input, mask)
    return _scatter_masked(input.clone(), mask, source)


@tensor_method("masked_scatter_")
def masked_scatter_(input, mask, source):
    _masked_source("masked_scatter_", input, mask, source)
    return _scatter_masked(input, mask.expand(input.shape), source)


def _scatter_masked(out, mask, source):
    count = int(mask.sum())
    if source.numel() < count:
        raise RuntimeError(f"masked_scatter: Number of elements of source < number of ones in "
                           f"mask ({source.numel()} < {count}).")
    out[mask] = source.reshape(-1)[:count]
    return out
