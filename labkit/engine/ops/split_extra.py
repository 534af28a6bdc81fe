"""Splitting helpers: hsplit/vsplit/dsplit (numpy's names for tensor_split along dim 1, 0, 2),
split_with_sizes, and unique_consecutive (collapse runs of equal values or rows)."""
from ..tensor import tensor_method


def _split_along(name, input, sections, dim, need):
    if input.dim() < need:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {need} dimension, but "
                           f"got a tensor with {input.dim()} dimensions!")
    if isinstance(sections, int) and (sections <= 0 or input.shape[dim] % sections):
        raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the "
                           f"size of the dimension {input.shape[dim]} is not divisible by the "
                           f"split_size {sections}!")
    return input.tensor_split(sections, dim)


@tensor_method("hsplit")
def hsplit(input, sections):
    return _split_along("hsplit", input, sections, 1 if input.dim() > 1 else 0, 1)


@tensor_method("vsplit")
def vsplit(input, sections):
    return _split_along("vsplit", input, sections, 0, 2)


@tensor_method("dsplit")
def dsplit(input, sections):
    return _split_along("dsplit", input, sections, 2, 3)


@tensor_method("split_with_sizes")
def split_with_sizes(input, split_sizes, dim=0):
    sizes = list(split_sizes)
    if sum(sizes) != input.shape[dim]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to "
                           f"{input.shape[dim]} (input tensor's size at dimension {dim}), but "
                           f"got split_sizes={sizes}")
    return input.split(sizes, dim)


@tensor_method("unique_consecutive")
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """The first of each run of equal consecutive elements (rows, slices along dim)."""
    from .complex_guard import refuse_complex
    refuse_complex("unique_consecutive", input)
    from ..tensor import Tensor
    xp = input.device.xp

    def wrap(a):
        return Tensor._make(xp.ascontiguousarray(a.astype(xp.int64)), input.device)
    d = input._data if dim is None else xp.moveaxis(input._data, dim, 0)
    flat = d.reshape(-1) if dim is None else d.reshape(d.shape[0], -1)
    n = flat.shape[0]
    if n:
        diff = flat[1:] != flat[:-1]
        if dim is not None:
            diff = diff.any(axis=1)
        starts = xp.concatenate([xp.asarray([True]), diff])
    else:
        starts = xp.zeros(0, bool)
    keep = xp.nonzero(starts)[0]
    values = input.reshape(-1)[wrap(keep)] if dim is None else \
        input.index_select(dim, wrap(keep))
    out = [values]
    if return_inverse:
        inv = xp.cumsum(starts) - 1
        shape = input.shape if dim is None else (input.shape[dim],)
        out.append(wrap(inv.reshape(shape)))
    if return_counts:
        counts = xp.diff(xp.concatenate([keep, xp.asarray([n])]))
        out.append(wrap(counts))
    return out[0] if len(out) == 1 else tuple(out)
