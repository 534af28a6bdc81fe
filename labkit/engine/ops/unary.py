"""Elementwise functions of one tensor: exp, log, sqrt, sin, cos, tanh, sigmoid, relu, abs, clamp.

Ops whose derivative is cheapest from their output (exp, tanh, sigmoid, sqrt) save the output.
"""
from ..function import Function
from ..tensor import tensor_method
from .common import float_data


class Exp(Function):
    node_name = "ExpBackward0"

    @staticmethod
    def forward(ctx, x):
        y = x.device.xp.exp(float_data(x))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y


class Log(Function):
    node_name = "LogBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.device.xp.log(float_data(x))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / x


class Sqrt(Function):
    node_name = "SqrtBackward0"

    @staticmethod
    def forward(ctx, x):
        y = x.device.xp.sqrt(float_data(x))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad / (2 * y)


class Sin(Function):
    node_name = "SinBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.device.xp.sin(float_data(x))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.cos()


class Cos(Function):
    node_name = "CosBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.device.xp.cos(float_data(x))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return -grad * x.sin()


class Tanh(Function):
    node_name = "TanhBackward0"

    @staticmethod
    def forward(ctx, x):
        y = x.device.xp.tanh(float_data(x))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * (1 - y * y)


class Sigmoid(Function):
    """1 / (1 + exp(-x)), computed without overflow; backward y * (1 - y) stays in [0, 1/4]."""
    node_name = "SigmoidBackward0"

    @staticmethod
    def forward(ctx, x):
        xp = x.device.xp
        d = float_data(x)
        e = xp.exp(-xp.abs(d))                      # never overflows
        y = xp.where(d >= 0, 1 / (1 + e), e / (1 + e)).astype(d.dtype, copy=False)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y * (1 - y)


class Relu(Function):
    node_name = "ReluBackward0"

    @staticmethod
    def forward(ctx, x):
        y = x.device.xp.maximum(x.data, 0).astype(x.data.dtype, copy=False)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * (y > 0)


class Abs(Function):
    node_name = "AbsBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.device.xp.abs(x.data)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.sign()


class Clamp(Function):
    """Limit values to [min, max]; the gradient passes where min <= x <= max (as in torch)."""
    node_name = "ClampBackward1"

    @staticmethod
    def forward(ctx, x, lo, hi):
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi
        return x.device.xp.clip(x.data, lo, hi).astype(x.data.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        mask = None
        if ctx.lo is not None:
            mask = x >= ctx.lo
        if ctx.hi is not None:
            mask = (x <= ctx.hi) if mask is None else mask & (x <= ctx.hi)
        return grad * mask, None, None


class ClampMin(Clamp):
    node_name = "ClampMinBackward0"


class ClampMax(Clamp):
    node_name = "ClampMaxBackward0"


class Sign(Function):
    """-1, 0 or 1; its gradient is zero everywhere it exists."""
    node_name = "SignBackward0"

    @staticmethod
    def forward(ctx, x):
        return x.device.xp.sign(x.data)

    @staticmethod
    def backward(ctx, grad):
        return grad * 0


@tensor_method("exp")
def exp(x):
    return Exp.apply(x)


@tensor_method("log")
def log(x):
    return Log.apply(x)


@tensor_method("sqrt")
def sqrt(x):
    return Sqrt.apply(x)


@tensor_method("sin")
def sin(x):
    return Sin.apply(x)


@tensor_method("cos")
def cos(x):
    return Cos.apply(x)


@tensor_method("tanh")
def tanh(x):
    return Tanh.apply(x)


@tensor_method("sigmoid")
def sigmoid(x):
    return Sigmoid.apply(x)


@tensor_method("relu")
def relu(x):
    return Relu.apply(x)


@tensor_method("abs", "__abs__")
def abs(x):
    return Abs.apply(x)


@tensor_method("sign")
def sign(x):
    return Sign.apply(x)


@tensor_method("clamp", "clip")
def clamp(x, min=None, max=None):
    """Limit values to [min, max] (either may be None); clamp(min=0) is ReLU."""
    if min is None and max is None:
        raise RuntimeError("clamp: at least one of min or max must be given, e.g. x.clamp(min=0).")
    if min is not None and max is not None:
        return Clamp.apply(x, min, max)
    if min is not None:
        return ClampMin.apply(x, min, None)
    return ClampMax.apply(x, None, max)
