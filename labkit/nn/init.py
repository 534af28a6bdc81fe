"""Weight initialisation, in place (torch.nn.init): draws come from labkit's seeded generator
through the same in-place fills (uniform_, normal_) and the same bound formulas as torch's, so
after labkit.manual_seed(s) a model starts from torch's weights for torch.manual_seed(s).

Why it matters: the scale of the initial weights decides whether activations and gradients
keep a useful size through many layers. Xavier/Glorot keeps the variance of tanh-like layers
steady; Kaiming/He accounts for ReLU zeroing half the units.
"""
import math
import warnings

from ..engine.creation import empty_like
from ..engine.grad_mode import no_grad
from ..engine.ops.select import where


def calculate_gain(nonlinearity, param=None):
    """The factor by which a nonlinearity changes the spread of its input."""
    linear_fns = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d", "sigmoid")
    if nonlinearity in linear_fns:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if isinstance(slope, bool) or not isinstance(slope, (int, float)):
            raise ValueError(f"calculate_gain: negative_slope {slope!r} is not a number.")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"calculate_gain: unsupported nonlinearity {nonlinearity!r}.")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.ndim < 2:
        raise ValueError(f"fan in and fan out cannot be computed for a tensor with fewer than 2 "
                         f"dimensions (shape {tuple(tensor.shape)}); initialise a bias with "
                         "uniform_ or zeros_ instead.")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(tensor, mode):
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"mode must be 'fan_in' or 'fan_out', got {mode!r}.")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with numbers drawn uniformly from [a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with numbers drawn from N(mean, std**2)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill with N(mean, std**2) restricted to [a, b], by rejection as torch 2.13 does: redraw
    the normal samples outside [a, b] when they are rare (more than 30% of the mass inside),
    else draw uniformly on [a, b] and accept against the normal density."""
    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    with no_grad():
        if norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std) > 0.3:
            lo, hi = tensor.new_tensor(a).item(), tensor.new_tensor(b).item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                mask = (result < lo) | (result > hi)
                if not mask.any():
                    break
                result = where(mask, empty_like(result).normal_(mean, std,
                                                                 generator=generator), result)
            if result is not tensor:
                tensor.copy_(result)
            return tensor
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2
        candidates, accept = empty_like(tensor), empty_like(tensor)
        tensor.uniform_(a, b, generator=generator)
        candidates.copy_(tensor)
        candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
        pending = accept.uniform_(generator=generator).log_().gt(candidates)
        result = tensor
        while pending.any():
            candidates.uniform_(a, b, generator=generator)
            result = where(pending, candidates, result)
            candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
            pending = where(pending, accept.uniform_(generator=generator).log_().gt(candidates),
                            pending)
        if result is not tensor:
            tensor.copy_(result)
        return tensor


def constant_(tensor, val):
    with no_grad():
        return tensor.fill_(val)


def zeros_(tensor):
    return constant_(tensor, 0.0)


def ones_(tensor):
    return constant_(tensor, 1.0)


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot: uniform with variance 2 / (fan_in + fan_out), times gain**2."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std         # torch's two steps (one rounding more than sqrt(6/n))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He: uniform with variance gain**2 / fan (gain from the nonlinearity; a is the slope of
    leaky_relu). With a = sqrt(5) this is nn.Linear's default, a bound of 1/sqrt(fan_in)."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std, generator)


def reset_affine_(weight, bias):
    """PyTorch's default for Linear and Conv layers: kaiming_uniform_(a=sqrt(5)) weights and a
    bias uniform in +-1/sqrt(fan_in), so a labkit layer starts where a torch one would."""
    kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = _calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        uniform_(bias, -bound, bound)

# a torch API that labkit lacks is named as such in the AttributeError
from ..engine.unsupported import module_getattr  # noqa: E402
__getattr__ = module_getattr(__name__, "torch.nn.init")


def orthogonal_(tensor, gain=1.0, generator=None):
    """A (semi-)orthogonal matrix (rows flattened): Q of the QR decomposition of a standard
    normal draw, with signs fixed by R's diagonal, times gain, as torch (Saxe et al.); common
    in reinforcement learning code (PPO's layer_init)."""
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with no_grad():
        flattened = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
        if rows < cols:
            flattened = flattened.t()
        xp = tensor.device.xp
        q, r = xp.linalg.qr(flattened._data.astype(xp.float64))   # LAPACK's Householder QR
        q = q * xp.sign(xp.diagonal(r))
        if rows < cols:
            q = q.T
        tensor.view(rows, cols).copy_(tensor.new_tensor(q.astype(flattened._data.dtype)))
        tensor.mul_(gain)
    return tensor


def eye_(tensor):
    """The identity matrix (ones on the diagonal of a 2-D tensor), keeping a Linear's input."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.zero_()
        n = min(tensor.shape)
        from ..engine.creation import arange
        i = arange(n, device=tensor.device)
        tensor[i, i] = 1
    return tensor


from .init_extra import dirac_, sparse_  # noqa: E402,F401
from .init_extra import (constant, dirac, eye, kaiming_normal, kaiming_uniform,  # noqa: E402,F401
                         normal, orthogonal, sparse, uniform, xavier_normal, xavier_uniform)
