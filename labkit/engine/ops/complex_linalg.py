"""linalg.eig and linalg.eigvals: eigen-decomposition of general (non-symmetric) square
matrices, whose eigenvalues and eigenvectors are complex even for a real matrix (torch gives
complex64 for float32). Eigenvectors have norm 1 and LAPACK's phase (numpy and torch both call
geev), so values match torch's. The gradient is torch's linalg_eig_backward; it depends on the
eigenvectors' phase only through gauge-invariant losses (torch warns about the others)."""
from .. import dtype as _dt
from .. import return_types as _rt
from ..function import Function
from ..tensor import Tensor

EigResult = _rt._structseq("linalg_eig", ["eigenvalues", "eigenvectors"])


class _Solve(Function):
    """X = A^{-1} B for complex A (the adjoint gradients: solve(A^H, g), -gB X^H)."""
    node_name = "LinalgSolveExBackward0"
    op_name = "linalg_solve"
    complex_ok = True

    @staticmethod
    def forward(ctx, A, B):
        x = A.device.xp.linalg.solve(A._data, B._data)
        ctx.save_for_backward(A, x)
        return x

    @staticmethod
    def backward(ctx, grad):
        A, X = ctx.saved_tensors
        gB = _Solve.apply(A.mH, grad)
        return -gB @ X.mH, gB


class LinalgEig(Function):
    node_name = "LinalgEigBackward0"
    op_name = "linalg_eig"
    complex_ok = True

    @staticmethod
    def forward(ctx, A):
        xp = A.device.xp
        a = A._data
        w, v = xp.linalg.eig(a)
        cdt = (_dt.from_np(a.dtype).to_complex() if a.dtype.kind != "c"
               else _dt.from_np(a.dtype)).np
        w, v = w.astype(cdt, copy=False), v.astype(cdt, copy=False)
        ctx.real_input = a.dtype.kind != "c"
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(w, v)
        return w, v

    @staticmethod
    def backward(ctx, gL, gV):
        """gA = V^{-H} (diag(gL) + (V^H gV - V^H V Re(diag(V^H gV))) / conj(E)) V^H, with
        E_ij = L_j - L_i off the diagonal (torch's formula)."""
        L, V = ctx.saved_tensors
        VH = V.mH
        if gV is None:
            inner = gL.diag_embed()
        else:
            from ..creation import eye
            VhgV = VH @ gV
            re_diag = VhgV.diagonal(0, -2, -1).real
            inner = VhgV - VH @ (V * re_diag.unsqueeze(-2))
            E = L.unsqueeze(-2) - L.unsqueeze(-1)
            E = E + eye(L.shape[-1], dtype=E.dtype, device=E.device)
            inner = inner / E.conj()
            inner = inner - inner.diagonal(0, -2, -1).diag_embed()
            if gL is not None:
                inner = inner + gL.diag_embed()
        gA = _Solve.apply(VH, inner @ VH)
        return gA.real if ctx.real_input else gA


def _check(name, A):
    if not isinstance(A, Tensor):
        raise TypeError(f"linalg.{name}(): argument 'input' must be Tensor, not "
                        f"{type(A).__name__}")
    if A.dim() < 2:
        raise RuntimeError(f"linalg.{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.{name}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if A._data.dtype.kind not in "fc" or A.dtype in (_dt.float16,):
        raise RuntimeError(f"linalg.{name}: Expected a floating point or complex tensor as "
                           f"input. Got {_dt.scalar_type_name(A)} (convert first: A.double()).")
    if not hasattr(A.device.xp.linalg, "eig"):
        raise NotImplementedError(f"linalg.{name}: the GPU's array library (CuPy) has no "
                                  "general eigen-solver; compute it on the CPU: A.cpu().")


def eig(A):
    """The eigenvalues and eigenvectors (columns, norm 1) of square matrices: A V = V diag(L)."""
    _check("eig", A)
    w, v = LinalgEig.apply(A)
    return EigResult(w, v)


def eigvals(A):
    """The eigenvalues of square matrices (complex)."""
    _check("eigvals", A)
    return LinalgEig.apply(A)[0]
