"""More elementwise math: sinh, cosh, tan, asin, acos, atan, log1p, expm1, log2, log10, square,
rsqrt, reciprocal, floor/ceil/round/trunc/frac, atan2, lerp, and torch's floor_divide (//) and
remainder (%).

Float functions of int/bool tensors give float32, as torch; floor/ceil/round/trunc leave
integers unchanged. Each backward is written with Tensor ops, so it can be differentiated again.
"""
import math

from ..function import Function, unary_op
from ..creation import zeros_like
from ..promotion import result_np
from ..tensor import Tensor, tensor_method
from .common import data, float_data, float_operands, operands
from .table import UNSUPPORTED
from .complex import cj


class Sinh(Function):
    node_name = "SinhBackward0"
    onnx = "Sinh"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.device.xp.sinh(float_data(x))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * cj(cosh(x))


class Cosh(Function):
    node_name = "CoshBackward0"
    onnx = "Cosh"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.device.xp.cosh(float_data(x))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * cj(sinh(x))


class Tan(Function):
    """tan x; derivative 1 + tan**2, from the output."""
    node_name = "TanBackward0"
    onnx = "Tan"

    @staticmethod
    def forward(ctx, x):
        y = x.device.xp.tan(float_data(x))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * cj(1 + y * y)


class Asin(Function):
    node_name = "AsinBackward0"
    onnx = "Asin"
    fn, sign = "arcsin", 1
    complex_ok = True           # numpy's principal branches are torch's; conj'd derivative

    @classmethod
    def forward(cls, ctx, x):
        ctx.save_for_backward(x)
        with _quiet(x.device.xp):
            return getattr(x.device.xp, cls.fn)(float_data(x))

    @classmethod
    def backward(cls, ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * cls.sign * cj((1 - x * x).rsqrt())


class Acos(Asin):
    node_name = "AcosBackward0"
    onnx = "Acos"
    fn, sign = "arccos", -1


class Atan(Function):
    node_name = "AtanBackward0"
    onnx = "Atan"
    complex_ok = True

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.device.xp.arctan(float_data(x))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / cj(1 + x * x)


class Log1p(Function):
    """log(1 + x), accurate for tiny x (where 1 + x would round to 1)."""
    node_name = "Log1PBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        with _quiet(x.device.xp):
            return x.device.xp.log1p(float_data(x))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / cj(x + 1)


class Expm1(Function):
    """exp(x) - 1, accurate for tiny x."""
    node_name = "Expm1Backward0"

    @staticmethod
    def forward(ctx, x):
        y = x.device.xp.expm1(float_data(x))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * cj(y + 1)


class Log2(Function):
    node_name = "Log2Backward0"
    fn, scale = "log2", math.log(2)

    @classmethod
    def forward(cls, ctx, x):
        ctx.save_for_backward(x)
        with _quiet(x.device.xp):
            return getattr(x.device.xp, cls.fn)(float_data(x))

    @classmethod
    def backward(cls, ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / cj(x * cls.scale)


class Log10(Log2):
    node_name = "Log10Backward0"
    fn, scale = "log10", math.log(10)


class Square(Function):
    """x * x; integers stay integers and bools become int64 (torch's square is pow(x, 2))."""
    node_name = "PowBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        d = x._data.astype("int64") if x._data.dtype.kind == "b" else x._data
        return d * d

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * cj(x)


class Rsqrt(Function):
    """1 / sqrt(x); backward from the output: -y**3 / 2."""
    node_name = "RsqrtBackward0"

    @staticmethod
    def forward(ctx, x):
        xp = x.device.xp
        d = float_data(x)
        with _quiet(xp):
            y = xp.asarray(1 / xp.sqrt(d)).astype(d.dtype, copy=False)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * cj(y * y * y) * -0.5


class Reciprocal(Function):
    node_name = "ReciprocalBackward0"
    onnx = "Reciprocal"

    @staticmethod
    def forward(ctx, x):
        xp = x.device.xp
        d = float_data(x)
        with _quiet(xp):
            y = xp.asarray(1 / d).astype(d.dtype, copy=False)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return -grad * cj(y * y)


class Floor(Function):
    """Piecewise constant: the gradient is zero (as torch), integers pass unchanged."""
    node_name = "FloorBackward0"
    onnx = "Floor"
    fn = "floor"

    @classmethod
    def forward(cls, ctx, x):
        d = _not_bool(cls.fn, x)
        if d.dtype.kind == "V":              # bfloat16: numpy has no loop for it (it would
            return getattr(x.device.xp, cls.fn)(d.astype("float32")).astype(d.dtype)  # pass)
        if d.dtype.kind != "f":
            return d.copy()
        return getattr(x.device.xp, cls.fn)(d)

    @staticmethod
    def backward(ctx, grad):
        return zeros_like(grad)


class Ceil(Floor):
    node_name = "CeilBackward0"
    onnx = "Ceil"
    fn = "ceil"


class Trunc(Floor):
    node_name = "TruncBackward0"
    onnx = UNSUPPORTED           # ONNX has no trunc
    fn = "trunc"


class Round(Function):
    """Round half to even (as torch and numpy), optionally to `decimals` places."""
    node_name = "RoundBackward0"

    @staticmethod
    def forward(ctx, x, decimals):
        d = _not_bool("round", x)
        if d.dtype.kind == "V":              # bfloat16: rounded in float32, as torch
            return x.device.xp.round(d.astype("float32"), decimals).astype(d.dtype)
        if d.dtype.kind != "f":
            return d.copy()
        return x.device.xp.round(d, decimals)

    @staticmethod
    def backward(ctx, grad):
        return zeros_like(grad), None


class Frac(Function):
    """x - trunc(x); gradient 1."""
    node_name = "FracBackward0"

    @staticmethod
    def forward(ctx, x):
        if x._data.dtype.kind not in "fV":
            raise NotImplementedError(f"frac: not implemented for {x.dtype} (as in torch); "
                                      "expected a floating-point tensor.")
        d = x._data
        return d - x.device.xp.trunc(d.astype("float32")).astype(d.dtype) \
            if d.dtype.kind == "V" else d - x.device.xp.trunc(d)

    @staticmethod
    def backward(ctx, grad):
        return grad


def _not_bool(name, x):
    if x._data.dtype.kind == "b":
        raise NotImplementedError(f"{name}: not implemented for bool tensors (as in torch); "
                                  "convert first, e.g. mask.float().")
    return x._data


class Atan2(Function):
    """The angle of the point (b, a): atan(a / b) with the quadrant taken from both signs."""
    node_name = "Atan2Backward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        xp = a.device.xp
        return xp.asarray(xp.arctan2(*float_operands(a, b)))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need = ctx.needs_input_grad
        from .select import where
        r2 = a * a + b * b      # as torch: no gradient where the radius is 0 (or underflows)
        recip = where(r2 == 0, 0.0, 1 / r2)
        return (grad * b * recip if need[0] else None), (-grad * a * recip if need[1] else None)


def check_lerp(start, end, weight):
    """torch's lerp wants end in start's dtype (a weight tensor too, unless 0-d), and a
    floating start."""
    if not isinstance(end, Tensor):
        raise TypeError(f"lerp(): argument 'end' must be Tensor, not {type(end).__name__}. "
                        "Wrap it: labkit.tensor(value).")
    for name, t in (("end", end), ("weight", weight)):
        if isinstance(t, Tensor) and t._data.dtype != start._data.dtype and \
                (name == "end" or t._data.ndim):
            raise RuntimeError(f"expected dtype {start.dtype} for `{name}` but got dtype "
                               f"{t.dtype} (lerp: convert it first, {name}.to({start.dtype})).")
    if start._data.dtype.kind not in "fVc":     # V: bfloat16
        raise NotImplementedError(f"\"lerp_kernel_scalar\" not implemented for {start.dtype} "
                                  "(lerp needs floating-point tensors): convert first, x.float().")


class Lerp(Function):
    """start + weight * (end - start); weight a number or a tensor."""
    node_name = "LerpBackward0"

    @staticmethod
    def forward(ctx, start, end, weight):
        check_lerp(start, end, weight)
        need = ctx.needs_input_grad        # as torch, save only what the wanted gradients read:
        if need:                           # a number weight needs nothing saved at all
            tensor_w = isinstance(weight, Tensor)
            ctx.save_for_backward(start if need[2] else None, end if need[2] else None,
                                  weight if tensor_w and (need[0] or need[1]) else None)
            ctx.weight = None if tensor_w else weight
        s, e, w = start._data, end._data, data(weight)
        xp = start.device.xp      # torch's two-sided formula (its inf/nan and its rounding)
        out = xp.where(xp.abs(w) < 0.5, s + w * (e - s), e - (e - s) * (1 - w))
        return xp.asarray(out).astype(s.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        start, end, weight = ctx.saved_tensors
        weight = weight if ctx.weight is None else ctx.weight
        need = ctx.needs_input_grad
        gs = grad * (1 - weight) if need[0] else None
        ge = grad * weight if need[1] else None
        gw = grad * (end - start) if need[2] else None
        return gs, ge, gw


class _quiet:
    """Silence numpy's divide-by-zero warnings: 1/0 is inf, as torch gives (cupy never warns)."""

    def __init__(self, xp):
        self.np = xp if hasattr(xp, "errstate") else None

    def __enter__(self):
        self.state = self.np.errstate(divide="ignore", invalid="ignore") if self.np else None
        if self.state:
            self.state.__enter__()

    def __exit__(self, *exc):
        if self.state:
            self.state.__exit__(*exc)


def _kind(x):
    d = data(x)
    return d.dtype.kind if hasattr(d, "dtype") else ("f" if isinstance(d, float) else "i")


def _int_zero_check(name, a, b):
    """Integer division by zero is an error in torch (numpy would silently give 0)."""
    if any(isinstance(t, Tensor) and t._data.size == 0 for t in (a, b)):
        return                       # nothing is divided: torch does not complain
    bd = data(b)
    zero = (bd == 0).any() if hasattr(bd, "any") else bd == 0
    if _kind(a) in "iub" and _kind(b) in "iub" and bool(zero):
        raise RuntimeError(f"{name}: integer division by zero (ZeroDivisionError). Check the "
                           "divisor, or use floats, where x / 0 gives inf.")


class FloorDivide(Function):
    """a // b rounded toward minus infinity (Python's and torch's rule: -7 // 2 == -4).
    torch does not differentiate it; neither do we (its backward is an error, as torch's)."""
    node_name = "FloorDivideBackward0"

    @staticmethod
    def forward(ctx, a, b):
        _check_not_bool("floor_divide", a, b)
        _int_zero_check("floor_divide", a, b)
        xp = (a if isinstance(a, Tensor) else b).device.xp
        with _quiet(xp):
            return xp.asarray(xp.floor_divide(*operands(a, b)))

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("the derivative for floor_divide is not implemented (nor in torch): "
                           "a // b is piecewise constant. Detach the result, or use "
                           "torch.div(a, b, rounding_mode='floor') on detached values.")


class Remainder(Function):
    """a % b with the sign of the divisor (Python's and torch's rule: -7 % 3 == 2)."""
    node_name = "RemainderBackward0"

    @staticmethod
    def forward(ctx, a, b):
        _check_not_bool("remainder", a, b)
        _int_zero_check("remainder", a, b)
        need = ctx.needs_input_grad      # as torch: a and b only for b's gradient
        if len(need) > 1 and need[1]:
            ctx.save_for_backward(a, b)
        xp = (a if isinstance(a, Tensor) else b).device.xp
        with _quiet(xp):
            return xp.asarray(xp.remainder(*operands(a, b)))

    @staticmethod
    def backward(ctx, grad):
        need = ctx.needs_input_grad
        gb = None
        if len(need) > 1 and need[1]:
            a, b = ctx.saved_tensors
            gb = -grad * floor_divide(a, b)
        return (grad if need[0] else None), gb


def _check_not_bool(name, a, b):
    """torch has no bool kernel for //, %, fmod and rounded div: a bool result type (bool with
    bool, or with a Python bool) is refused, as torch does (NotImplementedError)."""
    kind = result_np(a, b).kind
    if kind == "b":
        raise NotImplementedError(f"{name}: not implemented for bool operands (as in torch); "
                                  "convert first, e.g. mask.long().")
    if kind == "c":
        raise NotImplementedError(f"{name}: not implemented for complex operands (as in torch: "
                                  "complex numbers have no floor or remainder).")


sinh = tensor_method("sinh")(unary_op(Sinh))
cosh = tensor_method("cosh")(unary_op(Cosh))
tan = tensor_method("tan")(unary_op(Tan))
asin = tensor_method("asin", "arcsin")(unary_op(Asin))
acos = tensor_method("acos", "arccos")(unary_op(Acos))
atan = tensor_method("atan", "arctan")(unary_op(Atan))
log1p = tensor_method("log1p")(unary_op(Log1p))
expm1 = tensor_method("expm1")(unary_op(Expm1))
log2 = tensor_method("log2")(unary_op(Log2))
log10 = tensor_method("log10")(unary_op(Log10))
square = tensor_method("square")(unary_op(Square))
rsqrt = tensor_method("rsqrt")(unary_op(Rsqrt))
reciprocal = tensor_method("reciprocal")(unary_op(Reciprocal))
floor = tensor_method("floor")(unary_op(Floor))
ceil = tensor_method("ceil")(unary_op(Ceil))
trunc = tensor_method("trunc")(unary_op(Trunc))
frac = tensor_method("frac")(unary_op(Frac))


@tensor_method("round")
def round(x, decimals=0):
    """Round half to even; decimals=n rounds to n places."""
    return Round.apply(x, int(decimals))


def _pair(a, b, name):
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        raise TypeError(f"{name}: expected at least one tensor argument.")
    return a, b


@tensor_method("atan2", "arctan2")
def atan2(input, other):
    """Elementwise atan2(input, other): the angle of (other, input), in (-pi, pi]."""
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        raise TypeError("atan2(): both arguments must be tensors (as in torch); wrap a number "
                        "first, e.g. labkit.tensor(1.0).")
    return Atan2.apply(input, other)


@tensor_method("lerp")
def lerp(input, end, weight):
    """input + weight * (end - input)."""
    return Lerp.apply(input, end, weight)


@tensor_method("floor_divide", "__floordiv__")
def floor_divide(input, other):
    """input // other, rounding toward minus infinity."""
    from .arithmetic import number_operand
    return FloorDivide.apply(*_pair(number_operand(input), other, "floor_divide"))


@tensor_method("__rfloordiv__")
def _rfloordiv(x, other):
    return FloorDivide.apply(other, x)


@tensor_method("remainder", "__mod__")
def remainder(input, other):
    """input % other, with the sign of other (Python's rule)."""
    return Remainder.apply(*_pair(input, other, "remainder"))


@tensor_method("__rmod__")
def _rmod(x, other):
    return Remainder.apply(other, x)


arctan2 = atan2
arcsin, arccos, arctan = asin, acos, atan
