"""Dense linear algebra with gradients: inv, solve, det, slogdet, cholesky, eigh. The forward
is LAPACK through xp.linalg (numpy, or CuPy on a GPU); each backward is the textbook formula
(as torch's FunctionsManual), written with Tensor ops so it is differentiable again:

  inv:      gA = -Y^T gY Y^T                       (Y = A^-1)
  solve:    gB = solve(A^T, gX), gA = -gB X^T      (X = A^-1 B)
  det:      gA = g det(A) A^-T;   slogdet: gA = g_logabsdet A^-T
  cholesky: gA = sym(L^-T Phi(L^T gL) L^-1), Phi = lower triangle with half the diagonal
  eigh:     gA = V (skew(V^T gV) / (L_j - L_i) + diag(gL)) V^T
"""

from ..function import Function
from ..tensor import Tensor, tensor_method


def _square(name, A):
    if not isinstance(A, Tensor):
        raise TypeError(f"linalg.{name}(): argument 'A' must be Tensor, not {type(A).__name__}")
    if A.dim() < 2:
        raise RuntimeError(f"linalg.{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.{name}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if not A.dtype.is_floating_point or A.dtype.name in ("float16", "bfloat16"):
        from .linalg_decomp import _torch_name
        got = _torch_name(A.dtype)
        if A.dtype.is_complex:
            raise NotImplementedError(f"linalg.{name}: labkit has no complex version yet (torch "
                                      f"has); got a {A.dtype} tensor of shape {tuple(A.shape)}.")
        if name in ("eigh", "solve_triangular") and not A.dtype.is_floating_point:
            kernel = {"eigh": "linalg_eigh_cpu", "solve_triangular": "triangular_solve_cpu"}[name]
            raise NotImplementedError(f'"{kernel}" not implemented for \'{got}\'')
        raise RuntimeError(f"linalg.{name}: Expected a floating point or complex tensor as "
                           f"input. Got {got}" if not A.dtype.is_floating_point else
                           f"linalg.{name}: Low precision dtypes not supported. Got {got}")


class LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a RuntimeError for singular or non-positive-definite input."""


LinAlgError.__module__ = "labkit.linalg"


def _lapack(name, fn, *arrays):
    try:
        return fn(*arrays)
    except Exception as e:                      # numpy.linalg.LinAlgError (or CuPy's)
        text = str(e).lower()
        if "singular" in text:
            raise LinAlgError(_singular_message(name, arrays[0])) from None
        if "positive definite" in text or "not positive" in text:
            raise LinAlgError(_not_pd_message(name, arrays[0])) from None
        raise RuntimeError(f"linalg.{name}: {e}") from None


def _first_failure(a, info_of):
    """(batch index, info) of the first failing matrix of a, as torch reports it."""
    import numpy as np
    host = a.get() if hasattr(a, "get") else a
    flat = np.asarray(host).reshape((-1,) + host.shape[-2:])
    for b, m in enumerate(flat):
        info = info_of(m)
        if info:
            return (b if host.ndim > 2 else None), info
    return None, 0


def _batch_prefix(b):
    return "" if b is None else f"(Batch element {b}): "


def _singular_message(name, a):
    from .linalg_triangular import _lu_info
    b, k = _first_failure(a, _lu_info)
    fix = (" Check the matrix for linearly dependent rows or columns; linalg.lstsq or "
           "linalg.pinv handle singular systems.")
    if name == "solve":
        return ("torch.linalg.solve: The solver failed because the input matrix is singular."
                .replace("torch.", "") + fix)
    return (f"linalg.{name}: {_batch_prefix(b)}The diagonal element {k} is zero, the inversion "
            "could not be completed because the input matrix is singular." + fix)


def _not_pd_message(name, a):
    import numpy as np

    def info_of(m):
        for k in range(1, m.shape[-1] + 1):
            try:
                np.linalg.cholesky(m[:k, :k])
            except np.linalg.LinAlgError:
                return k
        return 0
    b, k = _first_failure(a, info_of)
    return (f"linalg.{name}: {_batch_prefix(b)}The factorization could not be completed because "
            f"the input is not positive-definite (the leading minor of order {k} is not "
            "positive-definite).")


class Inv(Function):
    node_name = "LinalgInvExBackward0"

    @staticmethod
    def forward(ctx, A):
        y = _lapack("inv", A.device.xp.linalg.inv, A._data)
        ctx.save_for_backward(y)                 # the output: its graph serves create_graph
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        yt = y.mT
        return -(yt @ g @ yt)


class Solve(Function):
    node_name = "LinalgSolveExBackward0"

    @staticmethod
    def forward(ctx, A, B, vector):
        xp = A.device.xp
        b = B._data[..., None] if vector else B._data
        x = _lapack("solve", xp.linalg.solve, A._data, b)
        x = x[..., 0] if vector else x
        ctx.vector = vector
        ctx.save_for_backward(A, x)
        return x

    @staticmethod
    def backward(ctx, g):
        A, X = ctx.saved_tensors
        gB = solve(A.mT, g)
        if ctx.vector:
            gA = -(gB.unsqueeze(-1) @ X.unsqueeze(-2))
        else:
            gA = -(gB @ X.mT)
        return gA, gB, None


class Det(Function):
    node_name = "LinalgDetBackward0"

    @staticmethod
    def forward(ctx, A):
        d = A.device.xp.asarray(A.device.xp.linalg.det(A._data)).astype(A._data.dtype)
        ctx.save_for_backward(A, d)
        return d

    @staticmethod
    def backward(ctx, g):
        A, d = ctx.saved_tensors
        if bool((d == 0).any()):
            return _det_backward_singular(g, A)
        return (g * d).unsqueeze(-1).unsqueeze(-1) * inv(A).mT


def _det_backward_singular(g, A):
    """d det(A) / dA = adj(A)^T, defined for singular A too: with A = U diag(S) Vh it is
    det(U) det(Vh) U diag(prod_{j != i} S_j) Vh (torch's formula for this case)."""
    from .linalg_decomp import svd
    U, S, Vh = svd(A)
    alpha = det(U) * det(Vh)
    others = _prod_of_others(S)
    D = (alpha * g).unsqueeze(-1) * others
    return (U * D.unsqueeze(-2)) @ Vh


def _prod_of_others(S):
    """prod_{j != i} S_j for each i (exclusive prefix times exclusive suffix products)."""
    from .join import cat
    ones = S.new_ones(tuple(S.shape[:-1]) + (1,))
    before = cat([ones, S[..., :-1]], -1).cumprod(-1)
    after = cat([ones, S[..., 1:].flip(-1)], -1).cumprod(-1).flip(-1)
    return before * after


class Slogdet(Function):
    node_name = "LinalgSlogdetBackward0"

    @staticmethod
    def forward(ctx, A):
        xp = A.device.xp
        ctx.set_materialize_grads(False)   # unused outputs: None, as torch
        sign, logabs = xp.linalg.slogdet(A._data)
        ctx.save_for_backward(A)
        dt = A._data.dtype
        return xp.asarray(sign).astype(dt), xp.asarray(logabs).astype(dt)

    @staticmethod
    def backward(ctx, g_sign, g_logabs):
        (A,) = ctx.saved_tensors
        if g_logabs is None:
            return None
        return g_logabs.unsqueeze(-1).unsqueeze(-1) * inv(A).mT


class Cholesky(Function):
    node_name = "LinalgCholeskyExBackward0"

    @staticmethod
    def forward(ctx, A, upper):
        L = _lapack("cholesky", A.device.xp.linalg.cholesky, A._data)
        out = L.swapaxes(-1, -2).copy() if upper else L
        ctx.upper = upper
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (L,) = ctx.saved_tensors
        if ctx.upper:
            L, g = L.mT, g.mT
        phi = (L.mT @ g).tril()
        phi = phi - 0.5 * phi.diagonal(0, -2, -1).diag_embed()
        Linv = inv(L)
        gA = Linv.mT @ phi @ Linv
        return 0.5 * (gA + gA.mT), None


from .. import return_types as _rt  # noqa: E402
EighResult, SlogdetResult = _rt.linalg_eigh, _rt.linalg_slogdet


class Eigh(Function):
    node_name = "LinalgEighBackward0"

    @staticmethod
    def forward(ctx, A, uplo):
        w, v = A.device.xp.linalg.eigh(A._data, UPLO=uplo)
        ctx.set_materialize_grads(False)   # unused outputs: None, as torch
        ctx.save_for_backward(w, v)
        return w, v

    @staticmethod
    def backward(ctx, gL, gV):
        L, V = ctx.saved_tensors
        if gV is None:
            inner = gL.diag_embed() if gL is not None else None
        else:
            VtgV = V.mT @ gV
            VtgV = 0.5 * (VtgV - VtgV.mT)
            E = L.unsqueeze(-2) - L.unsqueeze(-1)
            n = L.shape[-1]
            from ..creation import eye
            E = E + eye(n, dtype=E.dtype, device=E.device)
            inner = VtgV / E
            inner = inner - inner.diagonal(0, -2, -1).diag_embed()
            if gL is not None:
                inner = inner + gL.diag_embed()
        return V @ inner @ V.mT, None


@tensor_method("inverse")
def inv(A):
    _square("inv", A)
    return Inv.apply(A)


def solve(A, B, *, left=True):
    _square("solve", A)
    if not left:                                   # X A = B  <=>  A^T X^T = B^T
        return solve(A.mT, B.mT).mT
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    if not vector and B.shape[-2] != A.shape[-1]:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({A.shape[-2]}x{A.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})")
    if B.dtype != A.dtype:
        from .linalg_decomp import _torch_name
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found "
                           f"A of type {_torch_name(A.dtype)} and B of type "
                           f"{_torch_name(B.dtype)} instead")
    return Solve.apply(A, B, vector)


@tensor_method("det")
def det(A):
    _square("det", A)
    return Det.apply(A)


@tensor_method("slogdet")
def slogdet(A):
    _square("slogdet", A)
    return SlogdetResult(*Slogdet.apply(A))


@tensor_method("logdet")
def logdet(A):
    sign, logabs = slogdet(A)
    from .select import where
    return where(sign < 0, float("nan"), logabs + (sign != 0).to(logabs.dtype).log())


def cholesky(A, *, upper=False):
    _square("cholesky", A)
    return Cholesky.apply(A, upper)


def eigh(A, UPLO="L"):
    _square("eigh", A)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    w, v = Eigh.apply(A, UPLO)
    return EighResult(w, v)


def eigvalsh(A, UPLO="L"):
    return eigh(A, UPLO).eigenvalues
