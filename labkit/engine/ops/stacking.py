"""numpy-style joining and splitting that torch also has: hstack, vstack (row_stack), dstack,
column_stack, atleast_1d/2d/3d, tensor_split. Each is a reshape and a cat (or slices), so
gradients flow through the existing ops."""
from ..tensor import Tensor, tensor_method
from .join import cat


def _atleast(tensors, n, name):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    out = []
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}(): expected Tensor as element, got {type(t).__name__}")
        d = t.dim()
        if d >= n:
            out.append(t)
        elif n == 1 or d == 0:
            out.append(t.reshape((1,) * n))
        elif n == 2:                                   # (k,) -> (1, k)
            out.append(t.unsqueeze(0))
        elif d == 1:                                   # n == 3: (k,) -> (1, k, 1)
            out.append(t.reshape(1, -1, 1))
        else:                                          # (m, k) -> (m, k, 1)
            out.append(t.unsqueeze(-1))
    return out[0] if len(out) == 1 else tuple(out)


def atleast_1d(*tensors):
    return _atleast(tensors, 1, "atleast_1d")


def atleast_2d(*tensors):
    return _atleast(tensors, 2, "atleast_2d")


def atleast_3d(*tensors):
    return _atleast(tensors, 3, "atleast_3d")


def _seq(tensors, name):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def hstack(tensors):
    ts = [atleast_1d(t) for t in _seq(tensors, "hstack")]
    return cat(ts, 0 if ts[0].dim() == 1 else 1)


def vstack(tensors):
    return cat([atleast_2d(t) for t in _seq(tensors, "vstack")], 0)


row_stack = vstack


def dstack(tensors):
    return cat([atleast_3d(t) for t in _seq(tensors, "dstack")], 2)


def column_stack(tensors):
    ts = [t.reshape(-1, 1) if t.dim() <= 1 else t for t in _seq(tensors, "column_stack")]
    return cat(ts, 1)


@tensor_method("tensor_split")
def tensor_split(input, indices_or_sections, dim=0):
    """Split into `sections` nearly equal parts (the first n % sections one longer), or at the
    given indices; views, as torch."""
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor "
                           "with 0 dims")
    d = dim % input.dim() if -input.dim() <= dim < input.dim() else None
    if d is None:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-input.dim()}, "
                         f"{input.dim() - 1}], but got {dim})")
    n = input.shape[d]
    if isinstance(indices_or_sections, Tensor):
        if indices_or_sections.dim() == 0:
            indices_or_sections = int(indices_or_sections)
        else:
            indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, int):
        s = indices_or_sections
        if s <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {s}")
        size, extra = divmod(n, s)
        bounds, start = [], 0
        for i in range(s):
            stop = start + size + (1 if i < extra else 0)
            bounds.append((start, stop))
            start = stop
    else:
        points = [0] + [min(max(int(i) if i >= 0 else n + int(i), 0), n) for i in indices_or_sections] + [n]
        bounds = [(a, max(a, b)) for a, b in zip(points[:-1], points[1:])]
    return tuple(input.narrow(d, a, b - a) for a, b in bounds)
