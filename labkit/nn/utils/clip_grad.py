"""clip_grad_norm_: rescale gradients whose overall size exceeds max_norm (a guard against the
occasional huge step that can wreck training, common with RNNs)."""
import math

from ...engine.creation import tensor
from ...engine.grad_mode import no_grad
from ...engine.ops.join import stack
from ...engine.tensor import Tensor


def _norm(t, p):
    if p == math.inf:
        return t.abs().max()
    if p == 2:
        return (t * t).sum().sqrt()
    return (t.abs() ** p).sum() ** (1.0 / p)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Treat all gradients as one long vector; if its norm is above max_norm, scale every
    gradient by max_norm / norm (in place). Returns the norm before clipping."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    norm_type = float(norm_type)
    if norm_type <= 0:
        raise ValueError(f"clip_grad_norm_: norm_type must be positive (or inf), got {norm_type}.")
    with no_grad():
        if not grads:
            return tensor(0.0)
        total = _norm(stack([_norm(g, norm_type) for g in grads]), norm_type)
        if error_if_nonfinite and not bool(total.isfinite()):
            raise RuntimeError(f"clip_grad_norm_: the total norm of order {norm_type} of the "
                               "gradients is non-finite (nan or inf), so they cannot be clipped. "
                               "Look for a loss that overflowed; error_if_nonfinite=False skips "
                               "this check.")
        coef = (max_norm / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(g.dtype))
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient into [-clip_value, clip_value] in place (element by element)."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    with no_grad():
        for p in parameters:
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
