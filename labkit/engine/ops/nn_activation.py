"""The activations of torch.nn.functional beyond relu/sigmoid/tanh/gelu/leaky_relu.

Four are ops (softplus, logsigmoid, elu and its scaled forms, hardtanh): each forward is written
so it cannot overflow, and each backward follows torch at the kinks (hardtanh passes no
gradient at its limits). silu, mish, hardsigmoid, hardswish and glu are ops too (fused_activation.py: torch's
grad_fn names); softsign, tanhshrink and softmin are compositions of ops.
"""
from ..function import Function
from .common import float_data
from .select import where
from .softmax import softmax
from .fused_activation import (DIAGONAL_JVP, ELEMENTWISE_VMAP, Glu, Hardsigmoid,
                               Hardswish, Mish, Silu)

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


class Softplus(Function):
    """log(1 + exp(beta x)) / beta, a smooth relu; x itself where beta x > threshold."""
    node_name = "SoftplusBackward0"

    @staticmethod
    def forward(ctx, x, beta, threshold):
        xp = x.device.xp
        d = float_data(x)
        z = d * beta
        smooth = (xp.maximum(z, 0) + xp.log1p(xp.exp(-xp.abs(z)))) / beta
        ctx.save_for_backward(x)
        ctx.beta, ctx.threshold = beta, threshold
        return xp.asarray(xp.where(z > threshold, d, smooth), dtype=d.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        z = x * ctx.beta
        return where(z > ctx.threshold, grad, grad * z.sigmoid()), None, None


class LogSigmoid(Function):
    """log(sigmoid(x)) = min(x, 0) - log(1 + exp(-|x|)), finite for any x."""
    node_name = "LogSigmoidBackward0"

    @staticmethod
    def forward(ctx, x):
        xp = x.device.xp
        d = float_data(x)
        ctx.save_for_backward(x)
        return xp.asarray(xp.minimum(d, 0) - xp.log1p(xp.exp(-xp.abs(d))), dtype=d.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (-x).sigmoid()


class Elu(Function):
    """scale * x for x > 0, else scale * alpha * (exp(input_scale * x) - 1): elu, selu and
    celu are this with different constants."""
    node_name = "EluBackward0"
    jvp, vmap = DIAGONAL_JVP, ELEMENTWISE_VMAP

    @staticmethod
    def forward(ctx, x, alpha, scale, input_scale):
        xp = x.device.xp
        d = float_data(x)
        ctx.save_for_backward(x)
        ctx.constants = alpha, scale, input_scale
        neg = xp.expm1(xp.minimum(d, 0) * input_scale) * (alpha * scale)
        return xp.asarray(xp.where(d > 0, d * scale, neg), dtype=d.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        alpha, scale, input_scale = ctx.constants
        # (x < 0, not clamp: at 0 the slope's own derivative is 0, as torch's double backward)
        slope = (where(x < 0, x, 0.0) * input_scale).exp() * (alpha * scale * input_scale)
        return where(x <= 0, grad * slope, grad * scale), None, None, None   # (nan: scale)

    @staticmethod
    def onnx(w, node, out):
        x, alpha, scale, input_scale = node.args
        if input_scale != 1:                          # celu
            return w.emit("Celu", [w.name(x)], out, alpha=float(alpha))
        if scale == 1:
            return w.emit("Elu", [w.name(x)], out, alpha=float(alpha))
        w.emit("Selu", [w.name(x)], out, alpha=float(alpha), gamma=float(scale))


class Celu(Elu):
    """celu is elu with input_scale 1/alpha; torch names its node apart (CeluBackward0)."""
    node_name = "CeluBackward0"


class Hardtanh(Function):
    """x clipped to [min_val, max_val]; the gradient passes strictly inside (as torch)."""
    node_name = "HardtanhBackward0"

    @staticmethod
    def forward(ctx, x, lo, hi):
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi
        return x.device.xp.clip(x._data, lo, hi).astype(x._data.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        # a where, not a 0/1 mask (an inf upstream stays out; a nan x passes it, as torch)
        return where((x <= ctx.lo) | (x >= ctx.hi), 0.0, grad), None, None


def _inplace(name, inplace):
    if inplace:
        raise NotImplementedError(f"{name}(inplace=True) is not supported by labkit; use the "
                                  "default inplace=False (same values, one more tensor).")


def softplus(input, beta=1.0, threshold=20.0):
    return Softplus.apply(input, beta, threshold)


def logsigmoid(input):
    return LogSigmoid.apply(input)


def elu(input, alpha=1.0, inplace=False):
    _inplace("elu", inplace)
    return Elu.apply(input, alpha, 1.0, 1.0)


def selu(input, inplace=False):
    _inplace("selu", inplace)
    return Elu.apply(input, _SELU_ALPHA, _SELU_SCALE, 1.0)


def celu(input, alpha=1.0, inplace=False):
    _inplace("celu", inplace)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: celu needs alpha != 0 (it divides by alpha).")
    return Celu.apply(input, alpha, 1.0, 1.0 / alpha)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    _inplace("hardtanh", inplace)
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return Hardtanh.apply(input, min_val, max_val)


def relu6(input, inplace=False):
    """min(max(x, 0), 6)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def hardsigmoid(input, inplace=False):
    """relu6(x + 3) / 6: a piecewise-linear sigmoid."""
    _inplace("hardsigmoid", inplace)
    return Hardsigmoid.apply(input)


def hardswish(input, inplace=False):
    """x * relu6(x + 3) / 6."""
    _inplace("hardswish", inplace)
    return Hardswish.apply(input)


def silu(input, inplace=False):
    """x * sigmoid(x) (also called swish)."""
    _inplace("silu", inplace)
    return Silu.apply(input)


def mish(input, inplace=False):
    """x * tanh(softplus(x))."""
    _inplace("mish", inplace)
    return Mish.apply(input)


def softsign(input):
    return input / (input.abs() + 1)


def tanhshrink(input):
    return input - input.tanh()


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x): the smallest entries get the most weight."""
    x = -input if dtype is None else (-input).to(dtype)
    return softmax(x, dim)


def glu(input, dim=-1):
    """a * sigmoid(b), a and b the two halves of input along dim (a gated linear unit)."""
    if input.ndim == 0 or input.shape[dim] % 2:
        raise RuntimeError(f"glu: halving dimension must be even, but dimension {dim} of shape "
                           f"{tuple(input.shape)} is not.")
    return Glu.apply(input, dim % input.ndim)
