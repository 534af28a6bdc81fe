"""tensor (op) number as torch's C++ composites record it: a separate node, AddBackward1 /
MulBackward1 / DivBackward1 (add.Scalar ...), where Python's `x * 0.9` records MulBackward0.
labkit's composites that torch writes in C++ (cross_entropy's label smoothing, rms_norm's
+ eps, ...) use these, so that their graphs print as torch's; values and gradients are those
of the plain operators, in torch's result dtype."""
from ..function import Function
from .common import operands
from . import rules


def _onnx(op):
    def emit(w, node, out):
        x, c = node.args
        w.emit(op, [w.name(x), w.const(c, node.outputs[0].dtype)], out)
    return staticmethod(emit)


class AddScalar(Function):
    node_name = "AddBackward1"
    onnx, vmap = _onnx("Add"), classmethod(rules.elementwise)

    @staticmethod
    def forward(ctx, x, c):
        a, b = operands(x, c)
        return x.device.xp.asarray(a + b)

    @staticmethod
    def backward(ctx, grad):
        return grad, None

    @staticmethod
    def jvp(args, tangents, out):
        return tangents[0]


class MulScalar(Function):
    node_name = "MulBackward1"
    onnx, vmap = _onnx("Mul"), classmethod(rules.elementwise)

    @staticmethod
    def forward(ctx, x, c):
        a, b = operands(x, c)
        ctx.c = c
        return x.device.xp.asarray(a * b)

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.c, None

    @staticmethod
    def jvp(args, tangents, out):
        return None if tangents[0] is None else tangents[0] * args[1]


class DivScalar(Function):
    node_name = "DivBackward1"
    onnx, vmap = _onnx("Div"), classmethod(rules.elementwise)

    @staticmethod
    def forward(ctx, x, c):
        a, b = operands(x, c)
        ctx.c = c
        xp = x.device.xp
        if not b and hasattr(xp, "errstate"):       # torch: inf or nan, without a warning
            with xp.errstate(divide="ignore", invalid="ignore"):
                return xp.asarray(a / b)
        return xp.asarray(a / b)

    @staticmethod
    def backward(ctx, grad):
        return grad / ctx.c, None

    @staticmethod
    def jvp(args, tangents, out):
        return None if tangents[0] is None else tangents[0] / args[1]


def add_scalar(x, c):
    return AddScalar.apply(x, c)


def mul_scalar(x, c):
    return MulScalar.apply(x, c)


def div_scalar(x, c):
    return DivScalar.apply(x, c)
