"""Matrix-vector products and their relatives: mv, addmv, addr, addbmm, inner, vdot,
chain_matmul, matrix_power and cross. Each checks the shapes torch checks, then is a
composition of matmul / bmm / elementwise ops, so its gradients (of any order) are theirs."""
import warnings

from ..tensor import Tensor, tensor_method
from .linalg import matmul
from .products import _need, _scaled, bmm


def _same_dtype(name, *ts):
    dtypes = [t.dtype for t in ts if isinstance(t, Tensor)]
    if len(set(dtypes)) > 1:
        raise RuntimeError(f"{name}: expected all tensors to have the same dtype, got "
                           f"{', '.join(map(str, dtypes))}; convert with .to(dtype) first.")


@tensor_method("mv")
def mv(input, vec):
    """matrix (n, m) @ vector (m,) -> (n,)."""
    if not isinstance(vec, Tensor) or input.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.dim()}, "
                           f"{getattr(vec, 'ndim', '?')}")
    if input.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input.shape[0]}), mat "
                           f"({input.shape[0]}x{input.shape[1]}), vec ({vec.shape[0]})")
    _same_dtype("mv", input, vec)
    return matmul(input, vec)


@tensor_method("addmv")
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """beta * input + alpha * (mat @ vec)."""
    _same_dtype("addmv", input, mat, vec)
    return _scaled("addmv", beta, input, alpha, mv(mat, vec))


@tensor_method("addr")
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """beta * input + alpha * outer(vec1, vec2)."""
    for what, v in (("vec1", vec1), ("vec2", vec2)):
        if v.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {what}, but got {v.dim()}-D")
    _same_dtype("addr", input, vec1, vec2)
    return _scaled("addr", beta, input, alpha, vec1.unsqueeze(1) * vec2.unsqueeze(0))


@tensor_method("addbmm")
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * sum_b batch1[b] @ batch2[b]: a batch of products, summed."""
    _need("addbmm", batch1, 3, "batch1")
    _need("addbmm", batch2, 3, "batch2")
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got "
                           f"{batch1.shape[0]} and {batch2.shape[0]}")
    return _scaled("addbmm", beta, input, alpha, bmm(batch1, batch2).sum(0))


@tensor_method("inner")
def inner(input, other):
    """Sum over the last dimension of both: shape input.shape[:-1] + other.shape[:-1]."""
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input.shape)} and {list(other.shape)}")
    a = input.reshape(-1, input.shape[-1])
    b = other.reshape(-1, other.shape[-1])
    return matmul(a, b.t()).reshape(*input.shape[:-1], *other.shape[:-1])


@tensor_method("vdot")
def vdot(input, other):
    """The dot product of two 1-D tensors (the first conjugated: a no-op for real ones)."""
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D "
                           f"tensors")
    return input.conj().dot(other)


def chain_matmul(*matrices):
    """mm of all the matrices, left to right (torch says: use linalg.multi_dot)."""
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch "
                  "release. Use torch.linalg.multi_dot instead, which accepts a list of two or "
                  "more tensors rather than multiple parameters.", UserWarning, stacklevel=2)
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    out = matrices[0]
    for i, m in enumerate(matrices):
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    for m in matrices[1:]:
        out = out.mm(m)
    return out if len(matrices) > 1 else out.clone()


@tensor_method("matrix_power")
def matrix_power(input, n):
    """input @ input @ ... (n times) over the last two dims; n = 0 is the identity and a
    negative n the power of the inverse."""
    if input.dim() < 2 or input.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but "
                           f"they are {input.shape[-2] if input.dim() > 1 else input.shape[0]} "
                           f"by {input.shape[-1]} matrices")
    n = int(n)
    if n == 0:          # the identity, still a function of input (zero gradient), as torch
        from ..creation import eye, zeros
        from ..dtype import bool_
        from .select import where
        never = zeros(tuple(input.shape), dtype=bool_, device=input.device)
        return where(never, input, eye(input.shape[-1], dtype=input.dtype, device=input.device))
    if n < 0:
        from .linalg_solve import inv
        input, n = inv(input), -n
    out, base = None, input
    while n:                              # square-and-multiply
        if n & 1:
            out = base if out is None else matmul(out, base)
        n >>= 1
        if n:
            base = matmul(base, base)
    return out


def _cross_dim(input, other, dim):
    if input.dim() != other.dim():
        raise RuntimeError(f"linalg.cross: inputs must have the same number of dimensions, got "
                           f"{input.dim()} and {other.dim()}")
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease "
                      "either pass the dim explicitly or simply use torch.linalg.cross.\nThe "
                      "default value of dim will change to agree with that of linalg.cross in a "
                      "future release.", UserWarning, stacklevel=3)
        sizes = [max(a, b) for a, b in zip(input.shape, other.shape)]
        dim = next((i for i, s in enumerate(sizes) if s == 3), -1)
    d = dim % max(input.dim(), 1)
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {d} must have length 3. Got "
                           f"{input.shape[d]} and {other.shape[d]}")
    return d


@tensor_method("cross")
def cross(input, other, dim=None):
    """The 3-D cross product along `dim` (the first dim of size 3 when None, as torch.cross;
    torch.linalg.cross uses -1), broadcasting the other dims."""
    d = _cross_dim(input, other, dim)
    a = [input.select(d, i) for i in range(3)]
    b = [other.select(d, i) for i in range(3)]
    from .join import stack
    return stack([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                  a[0] * b[1] - a[1] * b[0]], d)


def linalg_cross(input, other, *, dim=-1):
    return cross(input, other, dim)
