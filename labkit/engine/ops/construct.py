"""Tensors assembled from others: block_diag, combinations, vander, diagflat. Each is built
with differentiable ops (cat, pad, indexing, products), so gradients flow to the pieces."""
import itertools

from ..tensor import Tensor, tensor_method


def block_diag(*tensors):
    """The tensors (0-, 1- or 2-D) down the diagonal of one matrix, zeros elsewhere; the result
    has the promoted dtype of them all."""
    from ..creation import zeros
    from ..promotion import result_type
    from .join import cat
    if not tensors:
        return zeros(1, 0)
    mats = []
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"block_diag(): argument 'tensors' must be tuple of Tensors, not "
                            f"{type(t).__name__}")
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t.dim()} dimensions")
        mats.append(t.reshape(1, -1) if t.dim() < 2 else t)
    dtype = result_type(*tensors) if len(tensors) > 1 else tensors[0].dtype
    width = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        h, w = m.shape
        parts = [zeros(h, left, dtype=dtype, device=m.device), m.to(dtype),
                 zeros(h, width - left - w, dtype=dtype, device=m.device)]
        rows.append(cat(parts, 1))
        left += w
    return cat(rows, 0)


def combinations(input, r=2, with_replacement=False):
    """All length-r combinations of a 1-D tensor's elements (itertools' order), as rows."""
    from ..creation import tensor
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    from ..dtype import int64
    if r == 0:                 # empty, but still read from input (so it is in the graph)
        return input[:0]
    make = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    idx = list(make(range(input.shape[0]), r))
    return input[tensor(idx, dtype=int64, device=input.device).reshape(-1, r)]


def vander(x, N=None, increasing=False):
    """Columns x**0, x**1, ... (reversed unless increasing): N columns, default len(x)."""
    from ..dtype import int64
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else int(N)
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    base = x if x.dtype.is_floating_point else x.to(int64)
    if n == 0:
        return base.new_empty(x.shape[0], 0)
    from ..creation import ones
    from .join import cat
    # 1, x, x*x, ...: a running product, as torch computes it (so x = 0 differentiates)
    cols = cat([ones(x.shape[0], 1, dtype=base.dtype, device=x.device),
                base.unsqueeze(1).expand(x.shape[0], n - 1)], 1).cumprod(1)
    return cols if increasing else cols.flip(1)


@tensor_method("diagflat")
def diagflat(input, offset=0):
    """input flattened onto the offset-th diagonal of a square matrix."""
    from .diag import diag_embed
    return diag_embed(input.reshape(-1), offset)
