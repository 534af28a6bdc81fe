"""Triangular systems and the _ex forms: solve_triangular, cholesky_ex, inv_ex,
cholesky_inverse. MultivariateNormal's log_prob and precision_matrix rest on these.

solve_triangular's backward (left=True, X = A^-1 B) is torch's:
    gB = solve_triangular(A^T, gX, upper=not upper),  gA = -gB X^T kept on A's triangle
(without the diagonal when unitriangular), written with Tensor ops so it differentiates again.
"""
import numpy as np

from .. import return_types as _rt
from ..function import Function
from ..tensor import Tensor
from .linalg_solve import Cholesky, Inv, _square


def _tri(xp, a, upper, unit):
    t = xp.triu(a) if upper else xp.tril(a)
    if unit:
        n = a.shape[-1]
        eye = xp.eye(n, dtype=a.dtype)
        t = t * (1 - eye) + eye
    return t


class SolveTriangular(Function):
    node_name = "LinalgSolveTriangularBackward0"

    @staticmethod
    def forward(ctx, A, B, upper, unit):
        xp = A.device.xp
        a = _tri(xp, A._data, upper, unit)
        batch = np.broadcast_shapes(a.shape[:-2], B._data.shape[:-2])
        a = xp.broadcast_to(a, batch + a.shape[-2:])
        b = xp.broadcast_to(B._data, batch + B._data.shape[-2:])
        with np.errstate(all="ignore"):
            if a.size and b.size:
                try:
                    x = xp.linalg.solve(a, b)
                except Exception:          # a zero on the diagonal: inf/nan, as LAPACK's trtrs
                    x = _substitute(xp, a, b, upper)
            else:
                x = xp.zeros(batch + B._data.shape[-2:], dtype=a.dtype)
        ctx.upper, ctx.unit = upper, unit
        ctx.save_for_backward(A, x)
        return x.astype(A._data.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        A, X = ctx.saved_tensors
        need = ctx.needs_input_grad
        gB = solve_triangular(A.mT, g, upper=not ctx.upper, unitriangular=ctx.unit)
        gA = None
        if need[0]:
            gA = -(gB @ X.mT)
            gA = gA.triu(1 if ctx.unit else 0) if ctx.upper else gA.tril(-1 if ctx.unit else 0)
        return gA, (gB if need[1] else None), None, None


def _substitute(xp, a, b, upper):
    """Back/forward substitution, for the singular triangles xp.linalg.solve refuses."""
    n = a.shape[-1]
    x = xp.zeros(b.shape, dtype=a.dtype)
    order = range(n - 1, -1, -1) if upper else range(n)
    for i in order:
        acc = b[..., i, :] - (a[..., i, :, None] * x).sum(-2)
        x[..., i, :] = acc / a[..., i, i, None]
    return x


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """X with A X = B (left) or X A = B, for triangular A (only its triangle is read)."""
    _square("solve_triangular", A)
    if not isinstance(B, Tensor):
        raise TypeError(f"linalg.solve_triangular(): argument 'B' must be Tensor, not "
                        f"{type(B).__name__}")
    if B.dim() < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 "
                           "dimensions.")
    if A.dtype != B.dtype:             # torch computes in A's dtype
        B = B.to(A.dtype)
    if not left:                     # X A = B  <=>  A^T X^T = B^T
        return solve_triangular(A.mT, B.mT, upper=not upper, unitriangular=unitriangular).mT
    n = A.shape[-1]
    if B.shape[-2] != n:
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the "
                           f"equation AX = B ({A.shape[-2]}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    try:
        np.broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2]))
    except ValueError:
        raise RuntimeError(f"linalg.solve_triangular: the batch dimensions of A "
                           f"{tuple(A.shape[:-2])} and B {tuple(B.shape[:-2])} do not broadcast"
                           ) from None
    result = SolveTriangular.apply(A, B, upper, unitriangular)
    return _out(result, out)


def _out(result, out):
    if out is None:
        return result
    out.resize_(result.shape).copy_(result.detach())
    return out


def _cholesky_info(xp, a):
    """torch's info for each matrix: 0, or the order of the first leading minor that is not
    positive-definite (one batched attempt; leading blocks are tried only when it fails)."""
    info = np.zeros(a.shape[:-2], dtype=np.int32)
    if not a.size:
        return info
    try:
        xp.linalg.cholesky(a)
        return info
    except Exception:
        pass
    flat, out = a.reshape((-1,) + a.shape[-2:]), info.reshape(-1)
    for i in range(flat.shape[0]):
        for k in range(1, flat.shape[-1] + 1):
            try:
                xp.linalg.cholesky(flat[i, :k, :k])
            except Exception:
                out[i] = k
                break
    return info


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """(L, info): cholesky that reports failure in info (0 = success) instead of raising; L is
    unspecified (nan here) where info > 0, as torch documents."""
    _square("cholesky_ex", A)
    from ..device import to_device_array
    xp = A.device.xp
    info = _cholesky_info(xp, A._data)
    info_t = Tensor._make(to_device_array(info, A.device), A.device)
    if check_errors and (info > 0).any():
        raise RuntimeError(f"linalg.cholesky_ex: The factorization could not be completed because "
                           f"the input is not positive-definite (the leading minor of order "
                           f"{int(info.max())} is not positive-definite).")
    if (info > 0).any():
        L = Tensor._make(xp.full(A._data.shape, xp.nan, dtype=A._data.dtype), A.device)
        good = Cholesky.apply(_replace_failed(A, info), upper)
        mask = Tensor._make(to_device_array((info == 0)[..., None, None], A.device), A.device)
        from .select import where
        L = where(mask, good, L)
    else:
        L = Cholesky.apply(A, upper)
    return _rt.linalg_cholesky_ex(L, info_t)


def _replace_failed(A, info):
    """A with the failed matrices swapped for identities, so one batched call factors the rest."""
    from ..device import to_device_array
    from ..creation import eye
    from .select import where
    bad = Tensor._make(to_device_array((info > 0)[..., None, None], A.device), A.device)
    return where(bad, eye(A.shape[-1], dtype=A.dtype, device=A.device), A)


def _lu_info(a):
    """First zero pivot (1-based) of LU with partial pivoting, 0 when there is none (host)."""
    a = np.array(a, dtype=np.float64)
    n = a.shape[-1]
    for k in range(n):
        p = k + int(np.argmax(np.abs(a[k:, k])))
        if a[p, k] == 0:
            return k + 1
        a[[k, p]] = a[[p, k]]
        a[k + 1:] -= np.outer(a[k + 1:, k] / a[k, k], a[k])
    return 0


def inv_ex(A, *, check_errors=False, out=None):
    """(inverse, info): inv that reports a singular matrix in info instead of raising."""
    _square("inv_ex", A)
    from ..device import to_device_array
    host = A._host().reshape((-1,) + tuple(A.shape[-2:]))
    info = np.array([_lu_info(m) for m in host], dtype=np.int32).reshape(tuple(A.shape[:-2]))
    if check_errors and (info > 0).any():
        raise RuntimeError("linalg.inv_ex: The diagonal element "
                           f"{int(info.max())} is zero, the inversion could not be completed "
                           "because the input matrix is singular.")
    info_t = Tensor._make(to_device_array(info, A.device), A.device)
    if (info > 0).any():
        inverse = Inv.apply(_replace_failed(A, info))
        from .select import where
        bad = Tensor._make(to_device_array((info > 0)[..., None, None], A.device), A.device)
        inverse = where(bad, float("nan"), inverse)
    else:
        inverse = Inv.apply(A)
    return _rt.linalg_inv_ex(inverse, info_t)


def cholesky_inverse(L, upper=False, *, out=None):
    """(L L^T)^-1 from the Cholesky factor L (or U^T U when upper)."""
    if L.dim() < 2 or L.shape[-1] != L.shape[-2]:
        raise RuntimeError(f"cholesky_inverse: A must be batches of square matrices, but they "
                           f"are {L.shape[-2] if L.dim() > 1 else 1} by {L.shape[-1]} matrices")
    from ..creation import eye
    Id = eye(L.shape[-1], dtype=L.dtype, device=L.device)
    Linv = solve_triangular(L, Id.expand(tuple(L.shape)), upper=upper)
    result = Linv @ Linv.mT if upper else Linv.mT @ Linv
    return _out(result, out)
