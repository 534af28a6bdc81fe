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
