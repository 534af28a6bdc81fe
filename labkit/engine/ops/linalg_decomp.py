"""SVD and QR with gradients: linalg.svd / svdvals / qr and the old torch.svd / torch.qr.
The forward is LAPACK through xp.linalg; each backward is torch's formula (FunctionsManual),
written with Tensor ops so it differentiates again:

  svd (A = U diag(S) Vh, k = min(m, n), full_matrices narrowed to k first):
      E_ij = S_j^2 - S_i^2 (1 on the diagonal), skew(X) = X - X^T
      gA' = (skew(U^T gU) S + S skew(Vh gVh^T)) / E + diag(gS), then U gA' Vh, plus the parts
      outside the span when m > n ((I - U U^T) gU S^-1) or m < n (S^-1 gVh (I - V V^T));
      only gS: gA = U diag(gS) Vh. Repeated singular values divide by zero, as in torch.
  qr (m >= n, reduced): M = R gR^T - gQ^T Q, gA = (gQ + Q copyltu(M)) R^-T;
      m < n: A = [X | Y], R = [R1 | R2]: the square case for X with gQ + Y gR2^T, and Q gR2 for Y.
"""
from .. import return_types as _rt
from ..function import Function
from ..tensor import Tensor, tensor_method


def _matrix_input(name, A, low_precision_ok=False):
    if not isinstance(A, Tensor):
        raise TypeError(f"linalg.{name}(): argument 'A' must be Tensor, not {type(A).__name__}")
    if A.dim() < 2:
        raise RuntimeError(f"linalg.{name}: The input tensor A must have at least 2 dimensions.")
    if A.dtype.is_complex:
        raise NotImplementedError(f"linalg.{name}: labkit has no complex version yet (torch "
                                  f"has); got a {A.dtype} tensor of shape {tuple(A.shape)}.")
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"linalg.{name}: Expected a floating point or complex tensor as input. "
                           f"Got {_torch_name(A.dtype)}")
    if A.dtype.name in ("float16", "bfloat16") and not low_precision_ok:
        raise NotImplementedError(f'"linalg_{name}_cpu" not implemented for '
                                  f"'{_torch_name(A.dtype)}'")


def _torch_name(dtype):
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool", "float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
            "float64": "Double"}.get(dtype.name, dtype.name)


def _lapack_call(name, fn, *args, **kw):
    try:
        return fn(*args, **kw)
    except Exception as e:       # LinAlgError: no convergence (nan/inf input)
        raise RuntimeError(f"linalg.{name}: The algorithm failed to converge because the input "
                           f"matrix is ill-conditioned or has too many repeated singular values "
                           f"({e}). Check the input for nan or inf.") from None


class Svd(Function):
    node_name = "LinalgSvdBackward0"

    @staticmethod
    def forward(ctx, A, full_matrices):
        xp = A.device.xp
        a = A._data
        m, n = a.shape[-2:]
        k = min(m, n)
        if a.size == 0:
            batch = a.shape[:-2]
            U = xp.zeros(batch + (m, m if full_matrices else k), dtype=a.dtype)
            Vh = xp.zeros(batch + (n if full_matrices else k, n), dtype=a.dtype)
            if full_matrices:
                U[...] = xp.eye(m, dtype=a.dtype)
                Vh[...] = xp.eye(n, dtype=a.dtype)
            S = xp.zeros(batch + (k,), dtype=a.dtype)
        else:
            U, S, Vh = _lapack_call("svd", xp.linalg.svd, a, full_matrices=full_matrices)
        ctx.set_materialize_grads(False)   # unused outputs: None, as torch
        ctx.full = full_matrices
        ctx.save_for_backward(U, S, Vh)
        return U, S, Vh

    @staticmethod
    def backward(ctx, gU, gS, gVh):
        U, S, Vh = ctx.saved_tensors
        if ctx.full:
            k = S.shape[-1]
            U, Vh = U[..., :k], Vh[..., :k, :]
            gU = gU[..., :k] if gU is not None else None
            gVh = gVh[..., :k, :] if gVh is not None else None
        return svd_backward(gU, gS, gVh, U, S, Vh), None


def svd_backward(gU, gS, gVh, U, S, Vh):
    if gS is None and gU is None and gVh is None:
        return None
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:
        return U @ (gS.unsqueeze(-1) * Vh) if m >= n else (U * gS.unsqueeze(-2)) @ Vh
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1)
    from ..creation import eye
    E = E + eye(S.shape[-1], dtype=S.dtype, device=S.device)   # E_ii = 0 -> 1
    UhgU = (U.mT @ gU) if gU is not None else None
    VhgV = (Vh @ gVh.mT) if gVh is not None else None
    UhgU = UhgU - UhgU.mT if UhgU is not None else None
    VhgV = VhgV - VhgV.mT if VhgV is not None else None
    if gU is not None and gVh is not None:
        gA = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E
    elif gU is not None:
        gA = UhgU * (S.unsqueeze(-2) / E)
    else:
        gA = S.unsqueeze(-1) * (VhgV / E)
    if gS is not None:
        gA = gA + gS.diag_embed()
    if m > n and gU is not None:
        gA = U @ gA
        gUSinv = gU / S.unsqueeze(-2)
        gA = gA + gUSinv - U @ (U.mT @ gUSinv)
        return gA @ Vh
    if m < n and gVh is not None:
        gA = gA @ Vh
        SinvgVh = gVh / S.unsqueeze(-1)
        gA = gA + SinvgVh - (SinvgVh @ Vh.mT) @ Vh
        return U @ gA
    return U @ (gA @ Vh) if m >= n else (U @ gA) @ Vh


def svd(A, full_matrices=True, *, driver=None, out=None):
    """A = U diag(S) Vh with S descending; full_matrices=False keeps k = min(m, n) columns."""
    _matrix_input("svd", A)
    return _rt.linalg_svd(*Svd.apply(A, bool(full_matrices)))


def svdvals(A, *, driver=None, out=None):
    """The singular values of A, descending (gradient U diag(gS) Vh)."""
    _matrix_input("svd", A)
    return Svd.apply(A, False)[1]


@tensor_method("svd")
def svd_legacy(input, some=True, compute_uv=True, *, out=None):
    """torch.svd: (U, S, V) with V = Vh^T; some=False gives full U and V; compute_uv=False
    gives zero U and V (of the full shape) and S with its gradient."""
    _matrix_input("svd", input)
    m, n = input.shape[-2], input.shape[-1]
    if not compute_uv:
        S = svdvals(input)
        batch = tuple(input.shape[:-2])
        return _rt.svd(input.new_zeros(batch + (m, m)), S, input.new_zeros(batch + (n, n)))
    U, S, Vh = Svd.apply(input, not some)
    return _rt.svd(U, S, Vh.mT)


class Qr(Function):
    node_name = "LinalgQrBackward0"

    @staticmethod
    def forward(ctx, A, mode):
        xp = A.device.xp
        a = A._data
        m, n = a.shape[-2:]
        k = min(m, n)
        if a.size == 0:
            batch = a.shape[:-2]
            qcols = m if mode == "complete" else k
            Q = xp.zeros(batch + (m, qcols), dtype=a.dtype)
            if qcols:
                Q[...] = xp.eye(m, qcols, dtype=a.dtype)
            R = xp.zeros(batch + (qcols if mode != "r" else k, n), dtype=a.dtype)
        else:
            Q, R = xp.linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
            Q, R = Q.astype(a.dtype, copy=False), R.astype(a.dtype, copy=False)
        ctx.set_materialize_grads(False)   # unused outputs: None, as torch
        ctx.mode = mode
        ctx.save_for_backward(Q, R)
        if mode == "r":
            return xp.zeros((0,), dtype=a.dtype), R
        return Q, R

    @staticmethod
    def backward(ctx, gQ, gR):
        Q, R = ctx.saved_tensors
        m, n = Q.shape[-2], R.shape[-1]
        if ctx.mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed "
                               "when mode='r'. Please use linalg.qr(A, mode='reduced') if you are "
                               "going to differentiate through linalg.qr.")
        if ctx.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' "
                               "and nrows > ncols.")
        return qr_backward(gQ, gR, Q, R), None


def _square_qr_backward(gQ, gR, Q, R):
    """m >= n: gA = (gQ + Q copyltu(M)) R^-T, M = R gR^T - gQ^T Q."""
    from .linalg_triangular import solve_triangular
    M = None
    if gR is not None:
        M = R @ gR.mT
    if gQ is not None:
        M = -(gQ.mT @ Q) if M is None else M - gQ.mT @ Q
    low = M.tril(-1)
    copyltu = low + low.mT + M.diagonal(0, -2, -1).diag_embed()
    b = Q @ copyltu
    if gQ is not None:
        b = b + gQ
    return solve_triangular(R.mT, b, upper=False, left=False)


def qr_backward(gQ, gR, Q, R):
    m, n = Q.shape[-2], R.shape[-1]
    if m >= n:
        return _square_qr_backward(gQ, gR, Q, R)
    X, Y = R[..., :m], R[..., m:]          # A = Q [X | Y]
    gX = gR[..., :m] if gR is not None else None
    gY = gR[..., m:] if gR is not None else None
    V = Q @ Y
    gQ2 = gQ
    if gY is not None:
        gQ2 = V @ gY.mT if gQ2 is None else gQ2 + V @ gY.mT
    from .join import cat
    gA_left = _square_qr_backward(gQ2, gX, Q, X)
    gA_right = Q @ gY if gY is not None else Q.new_zeros(tuple(Q.shape[:-1]) + (n - m,))
    return cat([gA_left, gA_right], -1)


def qr(A, mode="reduced", *, out=None):
    """A = Q R, Q with orthonormal columns and R upper triangular (Householder, as LAPACK)."""
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    _matrix_input("qr", A)
    return _rt.linalg_qr(*Qr.apply(A, mode))


@tensor_method("qr")
def qr_legacy(input, some=True, *, out=None):
    """torch.qr: some=True is mode 'reduced', some=False 'complete'."""
    Q, R = qr(input, "reduced" if some else "complete")
    return _rt.qr(Q, R)
