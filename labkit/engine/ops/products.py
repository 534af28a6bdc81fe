"""More products: dot, bmm, addmm, baddbmm, outer. Each checks the shapes torch checks (no
silent broadcasting where torch refuses) and reuses matmul's Functions and gradients."""
from ..autocast import autocast_op
from ..tensor import Tensor, tensor_method
from .linalg import Dot, MatMul, _check, mm


def _need(name, x, nd, what):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}: expected a tensor, got {type(x).__name__}.")
    if x._data.ndim != nd:
        raise RuntimeError(f"{name}: {what} must be a {nd}-D tensor, got shape {tuple(x.shape)}.")


@tensor_method("dot")
@autocast_op("dot")
def dot(input, other):
    """The dot product of two 1-D tensors of the same length."""
    for x in (input, other):
        if not isinstance(x, Tensor):
            raise TypeError(f"dot: expected a tensor, got {type(x).__name__}.")
    if input._data.ndim != 1 or other._data.ndim != 1:     # torch's words, then the fix
        raise RuntimeError(f"dot: 1D tensors expected, but got {input._data.ndim}D and "
                           f"{other._data.ndim}D tensors (shapes {tuple(input.shape)} and "
                           f"{tuple(other.shape)}). Use a @ b or torch.matmul for matrices, or "
                           "flatten both first.")
    if input._data.shape != other._data.shape:
        n, m = input._data.size, other._data.size
        raise RuntimeError(f"dot: inconsistent tensor size, expected tensor [{n}] and src [{m}] "
                           f"to have the same number of elements, but got {n} and {m} elements "
                           "respectively.")
    _check("dot", input, other)
    return Dot.apply(input, other)


class Bmm(MatMul):
    node_name = "BmmBackward0"
    op_name = "bmm"


@tensor_method("bmm")
@autocast_op("bmm")
def bmm(input, mat2):
    """Batched matrix product: (b, n, m) @ (b, m, p) -> (b, n, p); batch sizes must match."""
    _need("bmm", input, 3, "batch1")
    _need("bmm", mat2, 3, "batch2")
    if input._data.shape[0] != mat2._data.shape[0]:
        raise RuntimeError(f"bmm: batch sizes differ: {tuple(input.shape)} and "
                           f"{tuple(mat2.shape)} (bmm does not broadcast; use matmul).")
    _check("bmm", input, mat2)
    return Bmm.apply(input, mat2)


def _scaled(name, beta, input, alpha, product):
    shape = tuple(product.shape)
    if not _broadcastable(tuple(input.shape), shape):
        raise RuntimeError(f"{name}: input of shape {tuple(input.shape)} cannot be broadcast to "
                           f"the product's shape {shape}.")
    out = product if alpha == 1 else product * alpha
    if beta == 0:         # torch ignores input entirely then (its nan or inf do not leak)
        return out
    return out + (input if beta == 1 else input * beta)


def _broadcastable(a, shape):
    return len(a) <= len(shape) and all(x in (1, y) for x, y in zip(reversed(a), reversed(shape)))


@tensor_method("addmm")
@autocast_op("addmm")
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2); input broadcasts to the product's shape."""
    return _scaled("addmm", beta, input, alpha, mm(mat1, mat2))


@tensor_method("baddbmm")
@autocast_op("baddbmm")
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * bmm(batch1, batch2)."""
    return _scaled("baddbmm", beta, input, alpha, bmm(batch1, batch2))


@tensor_method("outer", "ger")
def outer(input, vec2):
    """The outer product of two 1-D tensors: out[i, j] = input[i] * vec2[j]."""
    _need("outer", input, 1, "input")
    _need("outer", vec2, 1, "vec2")
    return input.unsqueeze(1) * vec2.unsqueeze(0)
