"""matrix_exp and matrix_power.

matrix_exp forward: scaling and squaring with the degree-13 Pade approximant (Higham 2005, the
algorithm torch and scipy use), on xp arrays in float64. Its backward is torch's: the gradient
of exp at A in direction G is the upper-right block of exp([[A^T, G], [0, A^T]]), computed with
matrix_exp itself, so every order of derivative exists.
matrix_power: repeated squaring with matmul (n < 0 inverts first), so its gradient is the
product rule through matmul.
"""
from ..function import Function
from ..tensor import Tensor, tensor_method
from .linalg_decomp import _matrix_input

_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def _expm_array(a, xp):
    """exp of each square matrix of a (float64 array)."""
    n = a.shape[-1]
    if a.size == 0:
        return a.copy()
    eye = xp.eye(n, dtype=a.dtype)
    norm1 = xp.abs(a).sum(-2).max(-1)                     # the 1-norm of each matrix
    with_nan = ~xp.isfinite(norm1)
    s = xp.maximum(0, xp.ceil(xp.log2(xp.maximum(norm1, 1e-300) / _THETA13)))
    s = xp.where(with_nan, 0, s).astype(xp.int64)
    a = a / (2.0 ** s)[..., None, None]
    b = _PADE13
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2
             + b[1] * eye)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    try:
        r = xp.linalg.solve(v - u, v + u)
    except Exception:
        r = xp.full(a.shape, xp.nan, dtype=a.dtype)
    for step in range(int(s.max()) if s.size else 0):
        square = (s > step)[..., None, None]
        r = xp.where(square, r @ r, r)
    return r


class MatrixExp(Function):
    node_name = "LinalgMatrixExpBackward0"

    @staticmethod
    def forward(ctx, A):
        xp = A.device.xp
        a = A._data
        ctx.save_for_backward(A)
        return _expm_array(a.astype(xp.float64), xp).astype(a.dtype)

    @staticmethod
    def backward(ctx, g):
        (A,) = ctx.saved_tensors
        n = A.shape[-1]
        from .join import cat
        At = A.mT
        top = cat([At, g], -1)
        bottom = cat([A.new_zeros(tuple(A.shape)), At], -1)
        return matrix_exp(cat([top, bottom], -2))[..., :n, n:]


@tensor_method("matrix_exp")
def matrix_exp(A):
    """e^A = sum_k A^k / k! for each square matrix of A."""
    _matrix_input("matrix_exp", A, low_precision_ok=True)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_exp: A must be batches of square matrices, but they "
                           f"are {A.shape[-2]} by {A.shape[-1]} matrices")
    return MatrixExp.apply(A)


class IdentityLike(Function):
    """A^0: identities shaped like A, connected to A with a zero gradient (as torch)."""
    node_name = "CopyBackwards"

    @staticmethod
    def forward(ctx, A):
        xp = A.device.xp
        out = xp.zeros(A._data.shape, dtype=A._data.dtype)
        out[...] = xp.eye(A._data.shape[-1], dtype=A._data.dtype)
        return out

    @staticmethod
    def backward(ctx, g):
        return g * 0


@tensor_method("matrix_power")
def matrix_power(A, n, *, out=None):
    """A^n by repeated squaring; n = 0 gives the identity, n < 0 powers of inv(A)."""
    if not isinstance(A, Tensor):
        raise TypeError(f"linalg.matrix_power(): argument 'A' must be Tensor, not "
                        f"{type(A).__name__}")
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 "
                           "dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they "
                           f"are {A.shape[-2]} by {A.shape[-1]} matrices")
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"linalg_matrix_power(): argument 'n' (position 2) must be int, not "
                        f"{type(n).__name__}")
    if n == 0:
        return IdentityLike.apply(A)
    if n < 0:
        from .linalg_solve import inv
        A, n = inv(A), -n
    if n == 1:
        return A.clone()
    result, base = None, A
    while n:
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    return result
