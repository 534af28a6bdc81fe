"""clip_grad_norm_ in its two halves (torch 2.6+): get_total_norm (the p-norm of a list of
tensors, as if concatenated) and clip_grads_with_norm_ (scale gradients given that norm);
clip_grad_norm, the deprecated name of clip_grad_norm_."""
import warnings

from ...engine.grad_mode import no_grad
from ...engine.tensor import Tensor
from .clip_grad import clip_grad_norm_


def _list(tensors):
    return [tensors] if isinstance(tensors, Tensor) else [t for t in tensors if t is not None]


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm_type-norm of all the tensors together (0-d; 0.0 for none)."""
    from ...engine.creation import tensor
    from ...engine.ops.join import stack
    ts = _list(tensors)
    if not ts:
        return tensor(0.0)
    norm_type = float(norm_type)
    norms = stack([t.norm(norm_type) for t in ts])
    total = norms.max() if norm_type == float("inf") else norms.norm(norm_type)
    if error_if_nonfinite and not bool(total.isfinite()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from "
                           "`parameters` is non-finite, so it cannot be clipped. To disable "
                           "this error and scale the gradients by the non-finite norm anyway, "
                           "set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale every .grad by max_norm / (total_norm + 1e-6) when that is below 1."""
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return
    coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
    with no_grad():
        for g in grads:
            g.mul_(coef.to(g.device).to(g.dtype))


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)
