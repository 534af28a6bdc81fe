"""index_put / index_put_: x[indices] = values as a method (indices: a tuple of index tensors),
and with accumulate=True, x[indices] += values where repeated positions all add up (a plain
`x[i] += v` keeps only one of them). Accumulation goes through index_add on the flattened
leading dims, so x and values both get gradients."""
from ..tensor import Tensor, tensor_method
from .fused import index_add


def _check(name, x, indices):
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{name}(): argument 'indices' must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    if len(indices) > x.dim():
        raise IndexError(f"{name}(): too many indices for tensor of dimension {x.dim()} "
                         f"(got {len(indices)})")
    for i in indices:
        if not isinstance(i, Tensor):
            raise TypeError(f"{name}(): indices must be Tensors, got {type(i).__name__}")
    return tuple(indices)


def _accumulated(x, indices, values):
    """x with values added at x[indices], repeats adding up."""
    if values.dtype != x.dtype:
        raise RuntimeError(f"index_put_(accumulate=True): Index put requires the source and "
                           f"destination dtypes match, got {x.dtype} for the destination and "
                           f"{values.dtype} for the source. Convert first: values.to(x.dtype).")
    expanded = []
    for i in indices:                    # a bool mask stands for the positions where it is True
        expanded.extend(i.nonzero(as_tuple=True) if i.dtype.name == "bool" else (i,))
    k = len(expanded)
    lead, rest = tuple(x.shape[:k]), tuple(x.shape[k:])
    target = broadcast_shape([tuple(i.shape) for i in expanded])
    linear = None
    for d, (i, n) in enumerate(zip(expanded, lead)):
        if i.numel() and (int(i.min()) < -n or int(i.max()) >= n):    # (before index_add,
            bad = int(i.min()) if int(i.min()) < -n else int(i.max())   # whose error class
            raise IndexError(f"index_put_: index {bad} is out of bounds for dimension {d} "
                             f"with size {n}")                          # depends on the rank)
        i = i.long().expand(*target) % n if n else i.long().expand(*target)
        linear = i if linear is None else linear * n + i
    values = values.to(x.dtype).expand(*(target + rest))
    flat = x.reshape((_prod(lead),) + rest)      # not -1: a size-0 dim in rest makes it ambiguous
    out = index_add(flat, 0, linear.reshape(-1), values.reshape((_prod(target),) + rest))
    return out.reshape(tuple(x.shape))


def _prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def broadcast_shape(shapes):
    n = max((len(s) for s in shapes), default=0)
    out = []
    for dims in zip(*(((1,) * (n - len(s)) + tuple(s)) for s in shapes)):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            raise IndexError(f"shape mismatch: indexing tensors could not be broadcast together "
                             f"with shapes {[list(s) for s in shapes]}")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def _values(x, values, indices=None):
    if not isinstance(values, Tensor):
        from ..creation import tensor
        values = tensor(values, dtype=x.dtype, device=x.device)
    elif indices is not None:    # unlike x[i] = v, index_put keeps v's leading 1s (as torch)
        from .inplace import _check_broadcasts_to
        _check_broadcasts_to("index_put", values, x._data[tuple(i._data for i in indices)])
    return values


@tensor_method("index_put")
def index_put(input, indices, values, accumulate=False):
    indices = _check("index_put", input, indices)
    values = _values(input, values, None if accumulate else indices)
    if accumulate:
        return _accumulated(input, indices, values)
    out = input.clone()
    out[indices] = values
    return out


@tensor_method("index_put_")
def index_put_(input, indices, values, accumulate=False):
    indices = _check("index_put_", input, indices)
    values = _values(input, values, None if accumulate else indices)
    if accumulate:
        return input.copy_(_accumulated(input, indices, values))
    input[indices] = values
    return input
