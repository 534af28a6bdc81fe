"""Helpers torch.distributions.utils has: broadcast_all, probs <-> logits, clamp_probs."""
import numbers

from ..engine import Tensor
from ..engine.creation import tensor as _tensor
from ..engine.defaults import get_default_dtype
from ..engine.typeinfo import finfo


def broadcast_all(*values):
    """Tensors and Python numbers -> tensors of one broadcast shape (numbers take the dtype of
    the first tensor, or the default dtype)."""
    if not all(isinstance(v, (Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number or torch.Tensor.")
    like = next((v for v in values if isinstance(v, Tensor)), None)
    dtype = like.dtype if like is not None else get_default_dtype()
    device = like.device if like is not None else None
    values = [v if isinstance(v, Tensor) else _tensor(v, dtype=dtype, device=device)
              for v in values]
    shape = _broadcast_shape(*(v.shape for v in values))
    return tuple(v.expand(shape) for v in values)


def _broadcast_shape(*shapes):
    out = []
    for dims in zip(*(((1,) * (max(map(len, shapes)) - len(s)) + tuple(s)) for s in shapes)):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            raise RuntimeError(f"shapes {[tuple(s) for s in shapes]} cannot be broadcast together")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def clamp_probs(probs):
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return ps_clamped.log() - (-ps_clamped).log1p()
    return ps_clamped.log()


def logits_to_probs(logits, is_binary=False):
    if is_binary:
        return logits.sigmoid()
    return logits.softmax(dim=-1)


def sum_rightmost(value, dim):
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1)


class lazy_property:
    """Computed on first access, then stored on the instance (torch's probs/logits pairs)."""

    def __init__(self, fn):
        self.fn = fn
        self.__doc__ = fn.__doc__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = self.fn(instance)
        instance.__dict__[self.fn.__name__] = value
        return value


def _standard_normal(shape, dtype, device):
    from ..engine.creation import empty
    from ..engine.grad_mode import no_grad
    with no_grad():
        return empty(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value, dim):
    return sum_rightmost(value, dim)


def tril_matrix_to_vec(mat, diag=0):
    n = mat.shape[-1]
    from ..engine.creation import arange
    idx = arange(n, device=mat.device)
    mask = idx < (idx.view(-1, 1) + (diag + 1))
    return mat[..., mask]


def vec_to_tril_matrix(vec, diag=0):
    import math
    n = int((-(1 + 2 * diag) + math.sqrt((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1))) / 2 + 1e-6)
    from ..engine.creation import arange, zeros
    mat = zeros(tuple(vec.shape[:-1]) + (n, n), dtype=vec.dtype, device=vec.device)
    idx = arange(n, device=vec.device)
    mask = idx < (idx.view(-1, 1) + (diag + 1))
    mat[..., mask] = vec
    return mat


def broadcast_shape(*shapes):
    return _broadcast_shape(*(tuple(s) for s in shapes))
