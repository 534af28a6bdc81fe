"""LU with partial pivoting: linalg.lu, lu_factor, lu_factor_ex, lu_solve, and torch.lu_unpack.

Forward: Doolittle elimination with partial pivoting (the largest |pivot| in the column, first
one on ties, as LAPACK's getrf), vectorised over the batch on xp arrays; pivots are LAPACK's
1-based row swaps (int32). A zero pivot is recorded in info and skipped, as getrf does.
Backward (torch's, A = P L U, k = min(m, n)):
  square:  gA = P L^-T [tril_-1(L^T gL) + triu(gU U^T)] U^-T
  wide:    the square rule for A1 with L^T gL - gU2 U2^T in place of L^T gL; gA2 = P L^-T gU2
  tall:    the square rule for the top block with gU U^T - L2^T gL2; the rest P (gL2 U^-T)
written with Tensor ops (solve_triangular), so it differentiates again.
lu_factor packs L (without its unit diagonal) and U into one matrix; lu_solve is
solve_triangular twice after the row permutation.
"""
import warnings

import numpy as np

from .. import return_types as _rt
from ..function import Function
from ..tensor import Tensor, tensor_method
from .linalg_decomp import _matrix_input
from .linalg_triangular import solve_triangular

linalg_lu = _rt._structseq("linalg_lu", ["P", "L", "U"])
linalg_lu_factor = _rt._structseq("linalg_lu_factor", ["LU", "pivots"])
linalg_lu_factor_ex = _rt._structseq("linalg_lu_factor_ex", ["LU", "pivots", "info"])
_lu_with_info = _rt._structseq("_lu_with_info", ["LU", "pivots", "info"])
lu_unpack_result = _rt._structseq("lu_unpack", ["P", "L", "U"])


def _getrf(xp, a):
    """(packed LU, 1-based pivots int32, permutation perm with (P^T A)[i] = A[perm[i]], info)."""
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    k = min(m, n)
    a = a.reshape((-1, m, n)).copy()
    B = a.shape[0]
    b = xp.arange(B)
    piv = xp.zeros((B, k), dtype=np.int32)
    perm = xp.broadcast_to(xp.arange(m), (B, m)).copy()
    info = xp.zeros((B,), dtype=np.int32)
    for j in range(k):
        p = j + xp.argmax(xp.abs(a[:, j:, j]), axis=1) if B else xp.zeros((0,), dtype=np.int64)
        piv[:, j] = (p + 1).astype(np.int32)
        row_j, row_p = a[b, j].copy(), a[b, p].copy()
        a[b, j], a[b, p] = row_p, row_j
        pj, pp = perm[b, j].copy(), perm[b, p].copy()
        perm[b, j], perm[b, p] = pp, pj
        pivot = a[:, j, j]
        zero = pivot == 0
        info = xp.where(zero & (info == 0), j + 1, info).astype(np.int32)
        scale = xp.where(zero, 1, pivot)
        a[:, j + 1:, j] = a[:, j + 1:, j] / scale[:, None]
        a[:, j + 1:, j + 1:] -= a[:, j + 1:, j, None] * a[:, j, None, j + 1:]
    return (a.reshape(batch + (m, n)), piv.reshape(batch + (k,)), perm.reshape(batch + (m,)),
            info.reshape(batch))


def _unpack_arrays(xp, lu, perm):
    m, n = lu.shape[-2:]
    k = min(m, n)
    L = xp.tril(lu[..., :, :k], -1) + xp.eye(m, k, dtype=lu.dtype)
    U = xp.triu(lu[..., :k, :])
    P = xp.zeros(lu.shape[:-2] + (m, m), dtype=lu.dtype)
    rows = perm[..., :, None] == xp.arange(m)              # rows[i, r]: perm[i] == r
    P[...] = xp.swapaxes(rows, -1, -2).astype(lu.dtype)   # P[perm[i], i] = 1
    return P, L, U


class Lu(Function):
    node_name = "LinalgLuBackward0"

    @staticmethod
    def forward(ctx, A):
        xp = A.device.xp
        lu, piv, perm, info = _getrf(xp, A._data)
        P, L, U = _unpack_arrays(xp, lu, perm)
        ctx.set_materialize_grads(False)   # unused outputs: None, as torch
        ctx.save_for_backward(P, L, U)
        return P, L, U

    @staticmethod
    def backward(ctx, gP, gL, gU):
        P, L, U = ctx.saved_tensors
        return lu_backward(gL, gU, P, L, U)


def lu_backward(gL, gU, P, L, U):
    if gL is None and gU is None:
        return None
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    if gL is None:
        gL = L.new_zeros(tuple(L.shape))
    if gU is None:
        gU = U.new_zeros(tuple(U.shape))
    if m == n:
        return P @ _square(L, U, (L.mT @ gL).tril(-1) + (gU @ U.mT).triu())
    from .join import cat
    if m < n:
        U1, U2, gU1, gU2 = U[..., :k], U[..., k:], gU[..., :k], gU[..., k:]
        phi = (L.mT @ gL - gU2 @ U2.mT).tril(-1) + (gU1 @ U1.mT).triu()
        gA1 = _square(L, U1, phi)
        gA2 = solve_triangular(L.mT, gU2, upper=True, unitriangular=True)
        return P @ cat([gA1, gA2], -1)
    L1, L2, gL1, gL2 = L[..., :k, :], L[..., k:, :], gL[..., :k, :], gL[..., k:, :]
    phi = (L1.mT @ gL1).tril(-1) + (gU @ U.mT - L2.mT @ gL2).triu()
    gA1 = _square(L1, U, phi)
    gA2 = solve_triangular(U.mT, gL2, upper=False, left=False)
    return P @ cat([gA1, gA2], -2)


def _square(L, U, phi):
    """L^-T phi U^-T."""
    X = solve_triangular(L.mT, phi, upper=True, unitriangular=True)
    return solve_triangular(U.mT, X, upper=False, left=False)


def lu(A, *, pivot=True, out=None):
    """(P, L, U) with A = P L U: L unit lower (m x k), U upper (k x n), k = min(m, n)."""
    _matrix_input("lu", A)
    if not pivot:
        raise NotImplementedError("linalg.lu: pivot=False is only implemented for CUDA in "
                                  "torch; labkit always pivots.")
    return linalg_lu(*Lu.apply(A))


def _pack(L, U):
    """L's strict lower part and U in one m x n matrix (differentiable)."""
    from .join import cat
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    low = L.tril(-1)
    if m > n:
        U = cat([U, U.new_zeros(tuple(U.shape[:-2]) + (m - k, n))], -2)
    if n > m:
        low = cat([low, low.new_zeros(tuple(low.shape[:-2]) + (m, n - k))], -1)
    return low + U


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """(LU, pivots, info): the packed factorisation, failure (a zero pivot) reported in info."""
    _matrix_input("lu_factor_ex", A)
    from ..device import to_device_array
    xp = A.device.xp
    _, piv, _, info = _getrf(xp, A._data)
    P, L, U = Lu.apply(A)
    wrap = (lambda arr: Tensor._make(to_device_array(arr, A.device), A.device))
    info_host = info.get() if hasattr(info, "get") else info
    if check_errors and (np.asarray(info_host) > 0).any():
        raise RuntimeError(f"torch.linalg.lu_factor_ex: U[{int(np.max(info_host))},"
                           f"{int(np.max(info_host))}] is zero.")
    return linalg_lu_factor_ex(_pack(L, U), wrap(piv), wrap(info))


def lu_factor(A, *, pivot=True, out=None):
    """(LU, pivots): L and U packed in one matrix and LAPACK's 1-based row swaps."""
    LU, piv, info = lu_factor_ex(A, pivot=pivot)
    bad = info.reshape(-1)
    if bool((bad > 0).any()):
        k = int(bad[bad > 0][0])
        raise RuntimeError(f"torch.linalg.lu_factor: U[{k},{k}] is zero and using it on lu_solve "
                           "would result in a division by zero. If you still want to perform "
                           "the factorization, consider calling linalg.lu(A, pivot) or "
                           "linalg.lu_factor_ex(A, pivot)")
    return linalg_lu_factor(LU, piv)


_LU_DEPRECATED = (
    "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and "
    "will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\n"
    "should be replaced with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
    "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\n"
    "LU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)")


_lu_warned = False


@tensor_method("lu")
def lu_legacy(A, pivot=True, get_infos=False, out=None):
    """torch.lu / Tensor.lu (deprecated; Glow-style flows still call Q.lu()): (LU, pivots), or
    (LU, pivots, info) with get_infos=True, as torch.linalg.lu_factor(_ex) give them."""
    if not _lu_warned:                      # torch warns once per process
        globals()["_lu_warned"] = True
        warnings.warn(_LU_DEPRECATED, UserWarning, stacklevel=2)
    if get_infos:
        return _lu_with_info(*lu_factor_ex(A, pivot=pivot))
    return tuple(lu_factor(A, pivot=pivot))


def _perm_from_pivots(xp, piv, m):
    """The row order (P^T A)[i] = A[perm[i]] that LAPACK's swaps produce."""
    batch, k = piv.shape[:-1], piv.shape[-1]
    flat = piv.reshape((-1, k)).astype(np.int64) - 1
    perm = xp.broadcast_to(xp.arange(m), (flat.shape[0], m)).copy()
    b = xp.arange(flat.shape[0])
    for j in range(k):
        p = flat[:, j]
        pj, pp = perm[b, j].copy(), perm[b, p].copy()
        perm[b, j], perm[b, p] = pp, pj
    return perm.reshape(batch + (m,))


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """(P, L, U) from lu_factor's packed matrix and pivots."""
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    from ..creation import eye
    L = LU_data[..., :, :k].tril(-1) + eye(m, k, dtype=LU_data.dtype, device=LU_data.device)
    U = LU_data[..., :k, :].triu()
    xp = LU_data.device.xp
    perm = _perm_from_pivots(xp, LU_pivots._data, m)
    P = (perm[..., :, None] == xp.arange(m)).swapaxes(-1, -2).astype(LU_data._data.dtype)
    P = Tensor._make(P, LU_data.device)
    return lu_unpack_result(P, L, U)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """X with A X = B (or X A = B, A^T), A given by lu_factor."""
    P, L, U = lu_unpack(LU, pivots)
    if not left:                    # X A = B  <=>  A^T X^T = B^T
        return lu_solve(LU, pivots, B.mT, adjoint=not adjoint).mT
    if adjoint:                     # A^T X = B: U^T L^T P^T X = B
        Y = solve_triangular(U.mT, B, upper=False)
        Z = solve_triangular(L.mT, Y, upper=True, unitriangular=True)
        return P @ Z
    Y = solve_triangular(L, P.mT @ B, upper=False, unitriangular=True)
    return solve_triangular(U, Y, upper=True)
