"""Least squares and rank: pinv, lstsq, matrix_rank, cond, and torch.pinverse.

pinv is torch's composite: S from svd, singular values below max(atol, rtol * S_max) dropped
(rtol defaults to eps * max(m, n) when atol is not given), so its gradient is svd's.
lstsq's solution is pinv(A) B (the minimum-norm least-squares solution gelsy/gelsd give) and
its backward is torch's (pinv_backward for A, pinv(A)^T gX for B).
"""
from .. import return_types as _rt
from ..function import Function
from ..tensor import Tensor, tensor_method
from .linalg_decomp import _matrix_input, _torch_name, svd, svdvals


def _default_rtol(A, atol, rtol):
    if rtol is not None:
        return rtol
    from ..typeinfo import finfo
    if atol is not None and (not isinstance(atol, (int, float)) or atol > 0):
        return 0.0
    return finfo(A.dtype).eps * max(A.shape[-2], A.shape[-1])


def _tolerance(S, A, atol, rtol):
    rtol = _default_rtol(A, atol, rtol)
    if S.shape[-1] == 0:
        return S.new_zeros(tuple(S.shape[:-1]) + (1,))
    tol = S[..., :1] * rtol
    if atol is not None:
        from .select import where
        atol_t = atol if isinstance(atol, Tensor) else S.new_full((), float(atol))
        atol_t = atol_t.unsqueeze(-1) if isinstance(atol, Tensor) and atol.dim() else atol_t
        tol = where(tol > atol_t, tol, atol_t)
    return tol


def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """The Moore-Penrose pseudo-inverse, from the SVD (or eigh when hermitian). rcond: torch's
    older form, rtol=rcond with atol=0."""
    if rcond is not None:
        atol, rtol = 0.0, rcond
    if not isinstance(A, Tensor) or A.dim() < 2 or not A.dtype.is_floating_point:
        got = _torch_name(A.dtype) if isinstance(A, Tensor) else type(A).__name__
        shape = list(A.shape) if isinstance(A, Tensor) else []
        raise RuntimeError(f"linalg.pinv({got}{{{shape}}}): expected a tensor with 2 or more "
                           "dimensions of float, double, cfloat or cdouble types")
    if A.numel() == 0:
        return A.mT * 0                     # empty, still in the graph

    from .select import where
    if hermitian:
        from .linalg_solve import eigh
        L, V = eigh(A)
        absL = L.abs()
        rt = _default_rtol(A, atol, rtol)
        tol = absL.amax(-1, keepdim=True) * rt
        if atol is not None:
            tol = tol.clamp(min=float(atol))
        Linv = where(absL > tol, L.reciprocal(), L.new_zeros(()))
        return (V * Linv.unsqueeze(-2)) @ V.mT
    U, S, Vh = svd(A, full_matrices=False)
    tol = _tolerance(S, A, atol, rtol)
    Sinv = where(S > tol, S.reciprocal(), S.new_zeros(()))
    return (Vh.mT * Sinv.unsqueeze(-2)) @ U.mT


@tensor_method("pinverse")
def pinverse(input, rcond=1e-15):
    """torch.pinverse: pinv with rtol=rcond."""
    return pinv(input, rtol=rcond)


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """The number of singular values above max(atol, rtol * S_max) (int64)."""
    if not isinstance(A, Tensor) or A.dtype.name not in ("float32", "float64"):
        raise RuntimeError("This function doesn't handle types other than float and double")
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_rank: The input tensor input must have at least 2 "
                           "dimensions.")
    if tol is not None:
        atol, rtol = tol, 0.0
    if hermitian:
        from .linalg_solve import eigvalsh
        S = eigvalsh(A).abs().sort(-1, descending=True)[0]
    else:
        S = svdvals(A)
    S = S.detach()
    thr = _tolerance(S, A, atol, rtol)
    return (S > thr).sum(-1)


def lstsq(A, B, rcond=None, *, driver=None):
    """(solution, residuals, rank, singular_values) of min ||A X - B||, as torch's default
    driver (gelsy on CPU): rank is computed, residuals and singular_values are empty unless
    driver is 'gelsd' or 'gelss' (residuals then when m > n and A has full rank)."""
    if not isinstance(A, Tensor) or not isinstance(B, Tensor):
        raise TypeError("linalg.lstsq(): arguments 'A' and 'B' must be Tensors")
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if driver not in (None, "gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, "
                           "gelsy, gelsd, gelss)")
    if A.dtype != B.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same "
                           f"dtype, but got input's dtype {_torch_name(A.dtype)} and other's "
                           f"dtype {_torch_name(B.dtype)}")
    _matrix_input("lstsq", A)
    vector = B.dim() == A.dim() - 1
    Bm = B.unsqueeze(-1) if vector else B
    if Bm.dim() < 2 or Bm.shape[-2] != A.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    driver = driver or "gelsy"
    X = _LstsqSolve.apply(A, Bm, rcond)
    from ..creation import tensor
    m, n = A.shape[-2], A.shape[-1]
    empty = A.new_zeros((0,))
    if driver == "gels":
        rank = tensor([], dtype=_int64(), device=A.device)
    else:
        rank = matrix_rank(A.detach(), rtol=rcond if rcond is not None else None)
    sv = svdvals(A.detach()) if driver in ("gelsd", "gelss") else empty
    residuals = empty
    if driver != "gelsy" and m > n and A.numel() and bool((matrix_rank(A.detach()) == n).all()):
        residuals = ((A @ X - Bm) ** 2).sum(-2)
        if vector:
            residuals = residuals.squeeze(-1)
    if vector:
        X = X.squeeze(-1)
    return _rt.linalg_lstsq(X, residuals, rank, sv)


def _int64():
    from ..dtype import int64
    return int64


class _LstsqSolve(Function):
    node_name = "LinalgLstsqBackward0"

    @staticmethod
    def forward(ctx, A, B, rcond):
        from ..grad_mode import no_grad
        with no_grad():
            P = pinv(A.detach(), rtol=rcond)
        ctx.save_for_backward(A, B, P)
        return (P @ B.detach())._data

    @staticmethod
    def backward(ctx, gX):
        A, B, P = ctx.saved_tensors
        need = ctx.needs_input_grad
        gA = pinv_backward(gX @ B.mT, P, A) if need[0] else None
        gB = P.mT @ gX if need[1] else None
        return gA, gB, None


def pinv_backward(grad, pinvA, A):
    """torch's gradient of A -> pinv(A) given the gradient of pinv(A)."""
    m, n = A.shape[-2], A.shape[-1]
    pinvAh, gradh = pinvA.mT, grad.mT
    if m <= n:
        K = gradh @ pinvA
        KpinvAh = K @ pinvAh
        return (-(pinvA @ K).mT + KpinvAh - (A @ pinvA) @ KpinvAh
                + (pinvAh @ pinvA) @ (gradh - K @ A))
    K = pinvA @ gradh
    pinvAhK = pinvAh @ K
    return (-(K @ pinvA).mT + ((gradh - A @ K) @ pinvA) @ pinvAh + pinvAhK
            - (pinvAhK @ pinvA) @ A)


def cond(A, p=None, *, out=None):
    """The condition number ||A||_p ||A^-1||_p (p None or 2: S_max / S_min)."""
    if p in (None, 2, -2):
        S = svdvals(A)
        return S[..., 0] / S[..., -1] if p != -2 else S[..., -1] / S[..., 0]
    from .linalg_solve import inv
    from .norm import matrix_norm
    return matrix_norm(A, p) * matrix_norm(inv(A), p)
