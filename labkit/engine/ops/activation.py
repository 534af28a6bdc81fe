"""Activations beyond unary.py's: leaky_relu and gelu (exact, with erf, or the tanh form)."""
import math

from ..function import Function
from .common import float_data, require_float
from .erf import _quiet, erf, erf_array
from .select import where
from . import rules

_SQRT1_2 = 1 / math.sqrt(2)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_K = 1.41421356237309504880 * 1.12837916709551257390 * 0.5  # sqrt(2/pi), rounded as torch
_C = 0.044715                 # the tanh form: 0.5 x (1 + tanh(K (x + C x^3)))


class LeakyRelu(Function):
    """x where x > 0, else slope * x: negative inputs keep a small gradient."""
    node_name = "LeakyReluBackward0"
    arity, elementwise = 2, True
    cuda = "({0} > 0 ? {0} : {0} * {1})"

    @staticmethod
    def onnx(w, node, out):
        w.emit("LeakyRelu", [w.name(node.args[0])], out, alpha=float(node.args[1]))

    @staticmethod
    def forward(ctx, x, slope):
        require_float("leaky_relu", x)
        ctx.save_for_backward(x)
        ctx.slope = slope
        d = x._data
        # astype: numpy computes bfloat16 * float in float32; torch keeps bfloat16
        return x.device.xp.where(d > 0, d, d * slope).astype(d.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return where(x > 0, grad, grad * ctx.slope), None

    @classmethod
    def jvp(cls, args, tangents, out):
        return None if tangents[0] is None else rules.diagonal(cls, args, tangents[0])

    vmap = classmethod(rules.elementwise)


class Gelu(Function):
    """x * Phi(x), Phi the standard normal CDF: exact with erf ("none", torch's default) or
    with torch's tanh approximation ("tanh")."""
    node_name = "GeluBackward0"

    @staticmethod
    def forward(ctx, x, approximate):
        require_float("gelu", x)
        ctx.save_for_backward(x)
        ctx.approximate = approximate
        xp = x.device.xp
        d = float_data(x)
        if approximate == "tanh":   # astype: numpy computes bfloat16 * float in float32
            return xp.asarray(0.5 * d * (1 + xp.tanh(_K * (d + _C * (d * d * d))))).astype(d.dtype)
        with _quiet(xp):
            return xp.asarray(0.5 * d * (1 + erf_array(d * _SQRT1_2, xp))).astype(d.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        if ctx.approximate == "tanh":
            x_sq = x * x
            t = (_K * (x + _C * (x_sq * x))).tanh()
            slope = 0.5 * (1 + t) + 0.5 * x * ((1 - t * t) * _K * (1 + 3 * _C * x_sq))
        else:
            cdf = 0.5 * (1 + erf(x * _SQRT1_2))
            slope = cdf + x * (-0.5 * x * x).exp() * _INV_SQRT_2PI
        return grad * slope, None

    @classmethod
    def jvp(cls, args, tangents, out):
        return None if tangents[0] is None else rules.diagonal(cls, args, tangents[0])

    vmap = classmethod(rules.elementwise)


def leaky_relu(x, negative_slope=0.01, inplace=False):
    if inplace:
        from .inplace import leaky_relu_
        return leaky_relu_(x, negative_slope)
    return LeakyRelu.apply(x, negative_slope)


def gelu(x, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' (exact, with erf) or 'tanh', got "
                         f"{approximate!r}.")
    return Gelu.apply(x, approximate)
