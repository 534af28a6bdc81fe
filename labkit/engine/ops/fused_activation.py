"""Activations that torch computes as one op, so that `y.grad_fn` is torch's node
(SiluBackward0, not MulBackward0 of a sigmoid): silu, mish, hardsigmoid, hardswish,
hardshrink, softshrink, threshold and glu.

Each forward works on arrays; each backward is torch's derivative formula written with Tensor
ops (so create_graph differentiates it again), with torch's choice at the kinks: hardsigmoid
and hardswish pass x-dependent gradient strictly inside (-3, 3), the shrinks pass none on
[-lambd, lambd], threshold none where x <= threshold.
"""
from ..function import Function
from .common import float_data, require_float
from .select import where
from . import rules


def _sigmoid_array(xp, d):
    e = xp.exp(-xp.abs(d))                        # never overflows
    return xp.where(d >= 0, 1 / (1 + e), e / (1 + e))


def _diagonal_jvp(cls, args, tangents, out):
    """The tangent of a one-tensor elementwise op: one reverse step (a diagonal Jacobian)."""
    return None if tangents[0] is None else rules.diagonal(cls, args, tangents[0])


DIAGONAL_JVP = classmethod(_diagonal_jvp)          # the rules of a one-tensor elementwise op
ELEMENTWISE_VMAP = classmethod(rules.elementwise)  # (the op table reads them per class)


class Silu(Function):
    """x * sigmoid(x); derivative s (1 + x (1 - s))."""
    node_name = "SiluBackward0"
    jvp, vmap = DIAGONAL_JVP, ELEMENTWISE_VMAP

    @staticmethod
    def forward(ctx, x):
        require_float("silu", x)
        xp = x.device.xp
        d = float_data(x)
        ctx.save_for_backward(x)
        return xp.asarray(d * _sigmoid_array(xp, d), dtype=d.dtype)

    @staticmethod
    def backward_arrays(ctx, grad):
        (d,) = ctx.saved_arrays
        xp = ctx._device.xp
        if grad.dtype != d.dtype:
            return NotImplemented
        s = _sigmoid_array(xp, d)
        return (xp.asarray(grad * (s * (1 + d * (1 - s))), dtype=d.dtype),)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        s = x.sigmoid()
        return grad * (s * (1 + x * (1 - s)))

    @staticmethod
    def onnx(w, node, out):
        x = w.name(node.args[0])
        w.emit("Sigmoid", [x], [out[0] + "_s"])
        w.emit("Mul", [x, out[0] + "_s"], out)


class Mish(Function):
    """x * tanh(softplus(x)); derivative tanh(sp) + x sigmoid(x) (1 - tanh(sp)^2)."""
    node_name = "MishBackward0"
    jvp, vmap = DIAGONAL_JVP, ELEMENTWISE_VMAP

    @staticmethod
    def forward(ctx, x):
        require_float("mish", x)
        xp = x.device.xp
        d = float_data(x)
        sp = xp.maximum(d, 0) + xp.log1p(xp.exp(-xp.abs(d)))
        ctx.save_for_backward(x)
        return xp.asarray(d * xp.tanh(sp), dtype=d.dtype)

    @staticmethod
    def backward(ctx, grad):
        from .nn_activation import softplus
        (x,) = ctx.saved_tensors
        t = softplus(x).tanh()
        return grad * (t + x * x.sigmoid() * (1 - t * t))

    @staticmethod
    def onnx(w, node, out):
        sp, t = out[0] + "_sp", out[0] + "_t"     # Mish is an operator from opset 18 on
        w.emit("Softplus", [w.name(node.args[0])], [sp])
        w.emit("Tanh", [sp], [t])
        w.emit("Mul", [w.name(node.args[0]), t], out)


class Hardsigmoid(Function):
    """relu6(x + 3) / 6; slope 1/6 strictly inside (-3, 3)."""
    node_name = "HardsigmoidBackward0"
    jvp, vmap = DIAGONAL_JVP, ELEMENTWISE_VMAP

    @staticmethod
    def forward(ctx, x):
        require_float("hardsigmoid", x)
        xp = x.device.xp
        d = x._data
        ctx.save_for_backward(x)
        return xp.asarray(xp.clip(d + 3, 0, 6) / 6, dtype=d.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return where((x > -3) & (x < 3), grad / 6, 0.0)

    @staticmethod
    def onnx(w, node, out):
        w.emit("HardSigmoid", [w.name(node.args[0])], out, alpha=1 / 6, beta=0.5)


class Hardswish(Function):
    """x * relu6(x + 3) / 6; slope 0 up to -3, x/3 + 1/2 strictly inside (-3, 3), 1 from 3
    on (torch 2.13's choice at the kinks)."""
    node_name = "HardswishBackward0"
    jvp, vmap = DIAGONAL_JVP, ELEMENTWISE_VMAP

    @staticmethod
    def forward(ctx, x):
        require_float("hardswish", x)
        xp = x.device.xp
        d = x._data
        ctx.save_for_backward(x)
        return xp.asarray(d * xp.clip(d + 3, 0, 6) / 6, dtype=d.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return where(x <= -3, 0.0, where(x < 3, grad * (x / 3 + 0.5), grad))

    @staticmethod
    def onnx(w, node, out):
        x = w.name(node.args[0])
        w.emit("HardSigmoid", [x], [out[0] + "_h"], alpha=1 / 6, beta=0.5)
        w.emit("Mul", [x, out[0] + "_h"], out)


class Hardshrink(Function):
    """x where |x| > lambd, else 0; no gradient on [-lambd, lambd]."""
    node_name = "HardshrinkBackward0"
    jvp, vmap = DIAGONAL_JVP, ELEMENTWISE_VMAP

    @staticmethod
    def forward(ctx, x, lambd):
        xp = x.device.xp
        d = x._data
        ctx.save_for_backward(x)
        ctx.lambd = lambd
        return xp.where((d >= -lambd) & (d <= lambd), xp.zeros((), d.dtype), d)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        lam = ctx.lambd
        return where((x >= -lam) & (x <= lam), 0.0, grad), None

    @staticmethod
    def onnx(w, node, out):
        w.emit("Shrink", [w.name(node.args[0])], out, lambd=float(node.args[1]), bias=0.0)


class Softshrink(Function):
    """x - lambd above lambd, x + lambd below -lambd, 0 between (no gradient there)."""
    node_name = "SoftshrinkBackward0"
    jvp, vmap = DIAGONAL_JVP, ELEMENTWISE_VMAP

    @staticmethod
    def forward(ctx, x, lambd):
        xp = x.device.xp
        d = x._data
        ctx.save_for_backward(x)
        ctx.lambd = lambd
        # between the bounds torch writes a * 0, so nan stays nan
        out = xp.where(d > lambd, d - lambd, xp.where(d < -lambd, d + lambd, d * 0))
        return xp.asarray(out, dtype=d.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        lam = ctx.lambd
        return where((x >= -lam) & (x <= lam), 0.0, grad), None

    @staticmethod
    def onnx(w, node, out):
        lam = float(node.args[1])
        w.emit("Shrink", [w.name(node.args[0])], out, lambd=lam, bias=lam)


class Threshold(Function):
    """x where x > threshold, else value; no gradient where x <= threshold."""
    node_name = "ThresholdBackward0"
    jvp, vmap = DIAGONAL_JVP, ELEMENTWISE_VMAP

    @staticmethod
    def forward(ctx, x, threshold, value):
        xp = x.device.xp
        d = x._data
        ctx.save_for_backward(x)
        ctx.threshold = threshold
        return xp.asarray(xp.where(d > threshold, d, value), dtype=d.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return where(x <= ctx.threshold, 0.0, grad), None, None


class Glu(Function):
    """a * sigmoid(b), a and b the halves of x along dim (a gated linear unit)."""
    node_name = "GluBackward0"

    @staticmethod
    def forward(ctx, x, dim):
        require_float("glu", x)
        xp = x.device.xp
        d = float_data(x)
        a, b = xp.split(d, 2, axis=dim)
        ctx.save_for_backward(x)
        ctx.dim = dim
        return xp.asarray(a * _sigmoid_array(xp, b), dtype=d.dtype)

    @staticmethod
    def backward(ctx, grad):
        from .join import cat
        (x,) = ctx.saved_tensors
        a, b = x.chunk(2, ctx.dim)
        s = b.sigmoid()
        return cat([grad * s, grad * a * s * (1 - s)], ctx.dim), None

    @staticmethod
    def jvp(args, tangents, out):
        (x, dim), t = args, tangents[0]
        if t is None:
            return None
        a, b = x.chunk(2, dim)
        ta, tb = t.chunk(2, dim)
        s = b.sigmoid()
        return ta * s + a * s * (1 - s) * tb

    @staticmethod
    def vmap(args, batched):
        (x, dim), _ = args, batched
        return Glu.apply(x, dim % (x.ndim - 1) + 1)

    @staticmethod
    def onnx(w, node, out):
        x, dim = node.args
        a, b, s = out[0] + "_a", out[0] + "_b", out[0] + "_s"
        w.emit("Split", [w.name(x)], [a, b], axis=int(dim))
        w.emit("Sigmoid", [b], [s])
        w.emit("Mul", [a, s], out)


class Prelu(Function):
    """x where x > 0, else w x (w broadcast: one slope, or one per channel): torch's
    _prelu_kernel. Gradients: where(x > 0, g, w g) and where(x > 0, 0, x g), summed back to
    w's shape."""
    node_name = "PreluKernelBackward0"

    @staticmethod
    def forward(ctx, x, w):
        xp = x.device.xp
        d, wd = x._data, w._data
        ctx.save_for_backward(x, w)
        return xp.asarray(xp.where(d > 0, d, wd * d), dtype=xp.result_type(d, wd))

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        need = ctx.needs_input_grad
        pos = x > 0
        return (where(pos, grad, grad * w) if need[0] else None), \
            (where(pos, 0.0, grad * x) if need[1] else None)

    @staticmethod
    def jvp(args, tangents, out):
        (x, w), (tx, tw) = args, tangents
        pos = x > 0
        part_x = None if tx is None else where(pos, tx, tx * w)
        part_w = None if tw is None else where(pos, 0.0, tw * x)
        return rules.total(rules.fit(part_x, out), rules.fit(part_w, out))

    vmap = classmethod(rules.elementwise)

    @staticmethod
    def onnx(w, node, out):
        w.emit("PRelu", [w.name(node.args[0]), w.name(node.args[1])], out)
