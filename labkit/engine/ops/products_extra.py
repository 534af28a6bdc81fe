"""kron, tensordot and cartesian_prod, written with reshape, permute, broadcasting and matmul
(so they differentiate through those ops)."""
import math

from ..tensor import Tensor, tensor_method
from .join import stack


@tensor_method("kron")
def kron(input, other):
    """Every product a[i] * b[j], laid out block by block: shape a.shape * b.shape."""
    n = max(input.dim(), other.dim())
    a = input.reshape((1,) * (n - input.dim()) + tuple(input.shape))
    b = other.reshape((1,) * (n - other.dim()) + tuple(other.shape))
    a_shape = []
    b_shape = []
    for sa, sb in zip(a.shape, b.shape):
        a_shape += [sa, 1]
        b_shape += [1, sb]
    out = a.reshape(a_shape) * b.reshape(b_shape)
    return out.reshape(tuple(sa * sb for sa, sb in zip(a.shape, b.shape)))


def tensordot(a, b, dims=2, out=None):
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a = list(range(a.dim() - dims, a.dim()))
        dims_b = list(range(dims))
    else:
        dims_a, dims_b = dims
        dims_a = [dims_a] if isinstance(dims_a, int) else list(dims_a)
        dims_b = [dims_b] if isinstance(dims_b, int) else list(dims_b)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    dims_a = [d % a.dim() for d in dims_a]
    dims_b = [d % b.dim() for d in dims_b]
    for da, db in zip(dims_a, dims_b):      # a size-1 contracted dim broadcasts, as torch's
        if a.shape[da] != b.shape[db] and 1 in (a.shape[da], b.shape[db]):
            if a.shape[da] == 1:
                a = a.expand(*(b.shape[db] if d == da else n for d, n in enumerate(a.shape)))
            else:
                b = b.expand(*(a.shape[da] if d == db else n for d, n in enumerate(b.shape)))
        elif a.shape[da] != b.shape[db]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{a.shape[da]} in dim {da} and second has size {b.shape[db]} in "
                               f"dim {db}")
    free_a = [d for d in range(a.dim()) if d not in dims_a]
    free_b = [d for d in range(b.dim()) if d not in dims_b]
    k = 1
    for d in dims_a:
        k *= a.shape[d]
    m = math.prod(a.shape[d] for d in free_a)      # (not -1: a size-0 dim leaves it open)
    left = a.permute(free_a + dims_a).reshape(m, k)
    right = b.permute(dims_b + free_b).reshape(k, math.prod(b.shape[d] for d in free_b))
    return (left @ right).reshape([a.shape[d] for d in free_a] + [b.shape[d] for d in free_b])


def cartesian_prod(*tensors):
    """Every combination of one element from each 1-D tensor, as rows (itertools.product)."""
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    from .layout import meshgrid
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], dim=1)
