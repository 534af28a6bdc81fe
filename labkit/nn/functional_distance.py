"""Similarities and distances between rows: cosine_similarity, pairwise_distance."""
from ..engine.ops.shape import expand


def _broadcast(x1, x2, op):
    shape = _broadcast_shape(tuple(x1.shape), tuple(x2.shape), op)
    return expand(x1, *shape), expand(x2, *shape)


def _broadcast_shape(a, b, op):
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    out = []
    for i, j in zip(a, b):
        if i != j and 1 not in (i, j):
            raise RuntimeError(f"{op}: the shapes {a} and {b} of x1 and x2 cannot be broadcast "
                               "together (each dimension must match or be 1)")
        out.append(max(i, j) if 0 not in (i, j) else 0)
    return tuple(out)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum(x1 * x2) / (max(||x1||, eps) * max(||x2||, eps)) along `dim`, as torch computes it:
    each input divided by its own (clamped) norm first, the clamp counting as identity in
    backward (torch clamps under no_grad)."""
    x1, x2 = _broadcast(x1, x2, "cosine_similarity")
    if x1.is_complex() or x2.is_complex():
        raise RuntimeError(f"cosine_similarity: expected common dtype to be floating point, yet "
                           f"common dtype is complex ({x1.dtype}, {x2.dtype}), as torch.")
    if x1.dim() == 0:
        raise IndexError(f"cosine_similarity: Dimension out of range (expected to be in range of "
                         f"[-1, 0], but got {dim})")
    n1 = x1.norm(dim=dim, keepdim=True)
    n2 = x2.norm(dim=dim, keepdim=True)
    n1 = n1 + (n1.clamp_min(eps) - n1).detach()
    n2 = n2 + (n2.clamp_min(eps) - n2).detach()
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p along the last dimension (torch adds eps to the difference)."""
    x1, x2 = _broadcast(x1, x2, "pairwise_distance")
    return (x1 - x2 + eps).norm(p=p, dim=-1, keepdim=keepdim)


def pdist(input, p=2):
    """The p-norm distance between every pair of rows i < j of an (N, M) input, as one vector
    of N (N - 1) / 2 (the upper triangle of cdist(input, input), row by row)."""
    from ..engine.ops.api_extras import triu_indices
    from ..linalg import vector_norm
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.is_floating_point():
        raise RuntimeError(f"pdist only supports floating-point dtypes (got {input.dtype})")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    i, j = triu_indices(input.shape[0], input.shape[0], 1, device=input.device)
    return vector_norm(input[i] - input[j], p, dim=1)
