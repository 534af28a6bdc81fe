"""The rest of torch.linalg, composed of ops that have gradients already: vecdot, multi_dot
(in the cheapest order), vander, tensorinv, tensorsolve, solve_ex, diagonal; and the older
torch names cholesky_solve, triangular_solve, cholesky."""
import warnings

from .. import return_types as _rt
from ..tensor import Tensor, tensor_method
from .linalg_solve import cholesky as _linalg_cholesky, inv, solve
from .linalg_triangular import _lu_info, solve_triangular

linalg_solve_ex = _rt._structseq("linalg_solve_ex", ["result", "info"])
triangular_solve_result = _rt._structseq("triangular_solve", ["solution", "cloned_coefficient"])


def vecdot(x, y, *, dim=-1, out=None):
    """sum(x * y) along dim, broadcasting the other dims."""
    return (x * y).sum(dim)


def multi_dot(tensors, *, out=None):
    """A1 @ A2 @ ... @ An, multiplied in the order with the fewest flops (the first and last
    may be vectors)."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    if first.dim() not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got "
                           f"{first.dim()}D")
    if last.dim() not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.dim()}D")
    for i, t in enumerate(tensors[1:-1], 1):
        if t.dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
    mats = list(tensors)
    if first.dim() == 1:
        mats[0] = first.unsqueeze(0)
    if last.dim() == 1:
        mats[-1] = last.unsqueeze(-1)
    for i in range(n - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes "
                               f"{list(tensors[i].shape)} and {list(tensors[i + 1].shape)} "
                               "cannot be multiplied")
    dims = [m.shape[0] for m in mats] + [mats[-1].shape[1]]
    order = _chain_order(dims)
    result = _multiply(mats, order, 0, n - 1)
    if first.dim() == 1:
        result = result.squeeze(0)
    if last.dim() == 1:
        result = result.squeeze(-1)
    return result


def _chain_order(p):
    """The matrix-chain split table (dynamic programming over the dims p)."""
    n = len(p) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _multiply(mats, split, i, j):
    if i == j:
        return mats[i]
    k = split[i][j]
    return _multiply(mats, split, i, k) @ _multiply(mats, split, k + 1, j)


def vander(x, *, N=None):
    """Columns x^0, x^1, ..., x^(N-1) along a new last dim (batched, increasing powers)."""
    n = x.shape[-1] if N is None and x.dim() else N
    if x.dim() < 1:
        raise RuntimeError("x must have at least one dimension.")
    if n is None or n <= 1:
        raise RuntimeError("N must be greater than 1.")
    from ..creation import ones
    from .join import cat
    base = x.unsqueeze(-1)
    cols = cat([ones(tuple(x.shape) + (1,), dtype=x.dtype, device=x.device),
                base.expand(tuple(x.shape) + (n - 1,))], -1)
    return cols.cumprod(-1)


def tensorinv(A, ind=2, *, out=None):
    """The inverse of A seen as a map from its last dims to its first ind dims."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    out_shape = tuple(A.shape[:ind])
    in_shape = tuple(A.shape[ind:])
    rows = _prod(out_shape)
    cols = _prod(in_shape)
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement "
                           f"prod(self.shape[ind:]) == prod(self.shape[:ind]), but got "
                           f"{cols} != {rows}")
    return inv(A.reshape(rows, cols)).reshape(in_shape + out_shape)


def tensorsolve(A, B, dims=None, *, out=None):
    """X with tensordot(A, X, X.ndim) = B."""
    if dims is not None:
        nd = A.dim()
        dims = [d % nd for d in dims]
        rest = [d for d in range(nd) if d not in dims]
        A = A.permute(rest + dims)
    x_shape = tuple(A.shape[B.dim():])
    rows = _prod(tuple(B.shape))
    cols = _prod(x_shape)
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement "
                           f"prod(result_shape) == prod(self.shape[other.ndim:]), but got "
                           f"{rows} != {cols}")
    return solve(A.reshape(rows, cols), B.reshape(rows)).reshape(x_shape)


def _prod(shape):
    out = 1
    for s in shape:
        out *= s
    return out


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """(result, info): solve that reports a singular A in info (0 = success) instead of
    raising; result is nan where info > 0."""
    import numpy as np
    from ..device import to_device_array
    from .linalg_solve import _square
    _square("solve_ex", A)
    host = A._host().reshape((-1,) + tuple(A.shape[-2:]))
    info = np.array([_lu_info(m) for m in host], dtype=np.int32).reshape(tuple(A.shape[:-2]))
    if check_errors and (info > 0).any():
        raise RuntimeError(f"linalg.solve_ex: The solver failed because the input matrix is "
                           f"singular (U[{int(info.max())}, {int(info.max())}] is zero).")
    info_t = Tensor._make(to_device_array(info, A.device), A.device)
    if not (info > 0).any():
        return linalg_solve_ex(solve(A, B, left=left), info_t)
    from .linalg_triangular import _replace_failed
    from .select import where
    X = solve(_replace_failed(A, info), B, left=left)
    bad = to_device_array(info > 0, A.device)
    bad = Tensor._make(bad.reshape(bad.shape + (1,) * (X.dim() - bad.ndim)), A.device)
    return linalg_solve_ex(where(bad, float("nan"), X), info_t)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return A.diagonal(offset, dim1, dim2)


@tensor_method("cholesky_solve")
def cholesky_solve(B, L, upper=False, *, out=None):
    """X with (L L^T) X = B, from the Cholesky factor L (U^T U when upper)."""
    if upper:
        return solve_triangular(L, solve_triangular(L.mT, B, upper=False), upper=True)
    return solve_triangular(L.mT, solve_triangular(L, B, upper=False), upper=True)


@tensor_method("triangular_solve")
def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """The deprecated torch.triangular_solve(B, A): (solution, a copy of A)."""
    warnings.warn("torch.triangular_solve is deprecated in favor of "
                  "torch.linalg.solve_triangular and will be removed in a future PyTorch "
                  "release. Use X = torch.linalg.solve_triangular(A, B).", UserWarning,
                  stacklevel=2)
    M = A.mT if transpose else A
    X = solve_triangular(M, b, upper=upper != transpose, unitriangular=unitriangular)
    return triangular_solve_result(X, A.clone())


@tensor_method("cholesky")
def cholesky(input, upper=False, *, out=None):
    """The deprecated torch.cholesky: linalg.cholesky (upper gives L^T)."""
    warnings.warn("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be "
                  "removed in a future PyTorch release.", UserWarning, stacklevel=2)
    return _linalg_cholesky(input, upper=upper)


def cross(input, other, *, dim=-1, out=None):
    """The 3-D cross product along dim, the other dims broadcast (torch.linalg.cross)."""
    if input.dim() != other.dim():
        raise RuntimeError(f"linalg.cross: inputs must have the same number of dimensions. Got "
                           f"shapes {tuple(input.shape)} and {tuple(other.shape)}: unsqueeze the "
                           "smaller one.")
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[dim]} and {other.shape[dim]}")
    from .broadcast import broadcast_tensors
    from .products_vec import cross as _cross
    a, b = broadcast_tensors(input, other)
    return _cross(a, b, dim)
