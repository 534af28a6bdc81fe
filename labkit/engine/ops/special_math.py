"""More elementwise math torch programs use: exp2, hypot, fmod, copysign (Functions with numpy's
exact kernels and their derivatives), xlogy, xlog1py and entr (Functions too: torch's grad_fn
names and gradients at 0), and logit, deg2rad/rad2deg, sinc, float_power, fmax/fmin,
heaviside, signbit, sgn (compositions of existing ops, so they differentiate)."""
import math

from .complex_guard import refuse_complex
from ..function import Function
from ..tensor import Tensor, tensor_method
from . import rules
from ..promotion import result_np
from .common import float_data, float_operands, operands, require_tensor
from .math import _check_not_bool


class Exp2(Function):
    node_name = "Exp2Backward0"
    arity, elementwise = 1, True

    @staticmethod
    def forward(ctx, x):
        y = x.device.xp.exp2(float_data(x))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y * math.log(2.0)

    vmap = classmethod(rules.elementwise)


class Hypot(Function):
    node_name = "HypotBackward0"

    @staticmethod
    def forward(ctx, a, b):
        xp = a.device.xp
        y = xp.asarray(xp.hypot(*float_operands(a, b)))
        ctx.save_for_backward(a, b, y)
        return y

    @staticmethod
    def backward(ctx, grad):
        a, b, y = ctx.saved_tensors
        need = ctx.needs_input_grad
        return (grad * a / y if need[0] else None), (grad * b / y if need[1] else None)


class Fmod(Function):
    """C's fmod: the remainder with the sign of the dividend (-7 fmod 3 == -1)."""
    node_name = "FmodBackward1"

    @staticmethod
    def forward(ctx, a, b):
        xp = (a if isinstance(a, Tensor) else b).device.xp
        _check_not_bool("fmod", a, b)
        x, y = operands(a, b)
        if xp.asarray(x).dtype.kind in "iub" and xp.asarray(y).dtype.kind in "iub" \
                and xp.asarray(x).size and bool((xp.asarray(y) == 0).any()):
            raise RuntimeError("ZeroDivisionError")
        need = ctx.needs_input_grad      # as torch: a and b only for b's gradient
        if len(need) > 1 and need[1]:
            ctx.save_for_backward(a, b)
        ctx.b = b
        with _quiet(xp):
            return xp.asarray(xp.fmod(x, y))

    @staticmethod
    def backward(ctx, grad):
        need = ctx.needs_input_grad
        gb = None
        if len(need) > 1 and need[1]:
            a, b = ctx.saved_tensors
            gb = -grad * (a / b).trunc()
        return (grad if need[0] else None), gb


class Copysign(Function):
    node_name = "CopysignBackward0"

    @staticmethod
    def forward(ctx, a, b):
        xp = a.device.xp
        y = xp.asarray(xp.copysign(*float_operands(a, b)))
        ctx.save_for_backward(a, y)
        return y

    @staticmethod
    def backward(ctx, grad):
        a, y = ctx.saved_tensors
        from .select import where
        g = where(a == 0, 0.0, grad * y / where(a == 0, 1.0, a)) if ctx.needs_input_grad[0] \
            else None
        return g, (grad * 0 if ctx.needs_input_grad[1] else None)


def _quiet(xp):
    from .math import _quiet as q
    return q(xp)


@tensor_method("exp2")
def exp2(input):
    return Exp2.apply(input)


@tensor_method("hypot")
def hypot(input, other):
    require_tensor("hypot", other)
    dt = result_np(input, other)
    if dt.kind in "biu":
        raise NotImplementedError(f"\"hypot_cpu\" not implemented for {dt} operands (as in "
                                  "torch: floating point only). Convert first: x.float().")
    return Hypot.apply(input, other)


@tensor_method("fmod")
def fmod(input, other):
    return Fmod.apply(input, other)


@tensor_method("copysign")
def copysign(input, other):
    if not isinstance(other, Tensor):
        from ..creation import tensor
        other = tensor(float(other), device=input.device)
    return Copysign.apply(input, other)


class Logit(Function):
    """log(p / (1 - p)), p first clamped to [eps, 1 - eps] when eps is given; torch's gradient:
    0 outside that range with eps, nan outside [0, 1] without."""
    node_name = "LogitBackward0"

    @staticmethod
    def forward(ctx, x, eps):
        xp = x.device.xp
        d = float_data(x)
        z = d if eps is None else xp.clip(d, eps, 1.0 - eps)
        ctx.save_for_backward(x)
        ctx.eps = eps
        with _quiet(xp):
            return xp.log(z / (1 - z))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        from .select import where
        eps = ctx.eps
        g = grad / (x * (1 - x))
        if eps is None:
            return where((x < 0) | (x > 1), float("nan"), g), None
        return where((x < eps) | (x > 1 - eps), 0.0, g), None


@tensor_method("logit")
def logit(input, eps=None):
    return Logit.apply(input, eps)


class Xlogy(Function):
    """x log(y), 0 where x is 0 (so 0 log 0 = 0, as in an entropy), nan where y is nan.
    Gradients as torch's: w.r.t. x xlogy(grad, y), which is log(y) even at x = 0 (0 only where
    also y <= 0); w.r.t. y grad * x / y. XlogyBackward1/2: a number as x or as y."""
    node_name = "XlogyBackward0"
    log, edge = "log", 0.0      # xlog1py: log1p, and its mask is y <= -1

    @classmethod
    def forward(cls, ctx, x, y):
        xp = (x if isinstance(x, Tensor) else y).device.xp
        a, b = float_operands(x, y)
        dt = a.dtype if isinstance(x, Tensor) else b.dtype
        with _quiet(xp):
            out = xp.where(xp.asarray(a) == 0, 0, a * getattr(xp, cls.log)(b))
        out = xp.where(xp.isnan(b), xp.nan, out)
        ctx.save_for_backward(x, y)
        return xp.asarray(out, dtype=dt)

    @classmethod
    def backward(cls, ctx, grad):
        from .select import where
        x, y = ctx.saved_tensors
        need = ctx.needs_input_grad
        gx = gy = None
        if need[0]:
            gx = cls.apply(grad, y)
            mask = x == 0
            if isinstance(y, Tensor):
                mask = mask & (y <= cls.edge)
            if isinstance(y, Tensor) or y <= cls.edge:
                gx = where(mask, 0.0, gx)
        if need[1]:
            gy = grad * x / (y if cls.log == "log" else y + 1)
        return gx, gy

    @classmethod
    def jvp(cls, args, tangents, out):
        from .select import where
        (x, y), (tx, ty) = args, tangents
        part_x = None
        if tx is not None:
            part_x = cls.apply(tx, y)
            if isinstance(y, Tensor):
                part_x = where((x == 0) & (y <= cls.edge), 0.0, part_x)
        part_y = None if ty is None else ty * x / (y if cls.log == "log" else y + 1)
        return rules.total(rules.fit(part_x, out), rules.fit(part_y, out))

    vmap = classmethod(rules.elementwise)


class XlogyScalarSelf(Xlogy):
    node_name = "XlogyBackward1"


class XlogyScalarOther(Xlogy):
    node_name = "XlogyBackward2"


class Xlog1py(Xlogy):
    """x log1p(y), 0 where x is 0 (torch.special.xlog1py)."""
    node_name = "SpecialXlog1PyBackward0"
    log, edge = "log1p", -1.0


class Xlog1pyScalarSelf(Xlog1py):
    node_name = "SpecialXlog1PyBackward1"


class Xlog1pyScalarOther(Xlog1py):
    node_name = "SpecialXlog1PyBackward2"


def _xlog(name, ops, input, other):
    both, scalar_self, scalar_other = ops
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"{name}(): expected a tensor as input or other, got "
                        f"{type(input).__name__} and {type(other).__name__}.")
    if not isinstance(input, Tensor):
        return scalar_self.apply(float(input), other)
    if not isinstance(other, Tensor):
        return scalar_other.apply(input, float(other))
    return both.apply(input, other)


@tensor_method("xlogy")
def xlogy(input, other):
    """input * log(other), 0 where input is 0."""
    return _xlog("xlogy", (Xlogy, XlogyScalarSelf, XlogyScalarOther), input, other)


def xlog1py(input, other):
    """input * log1p(other), 0 where input is 0."""
    return _xlog("xlog1py", (Xlog1py, Xlog1pyScalarSelf, Xlog1pyScalarOther), input, other)


class Entr(Function):
    """-x log(x) for x > 0, 0 at 0, -inf below (torch.special.entr); gradient -(1 + log x)."""
    node_name = "SpecialEntrBackward0"

    @staticmethod
    def forward(ctx, x):
        xp = x.device.xp
        d = float_data(x)
        with _quiet(xp):
            out = xp.where(d > 0, -d * xp.log(xp.where(d > 0, d, 1)), xp.where(d == 0, 0, -xp.inf))
        ctx.save_for_backward(x)
        return xp.asarray(xp.where(xp.isnan(d), xp.nan, out), dtype=d.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * -(x.log() + 1)

    @staticmethod
    def jvp(args, tangents, out):
        t = tangents[0]
        return None if t is None else t * -(args[0].log() + 1)

    vmap = classmethod(rules.elementwise)


def entr(input):
    """-x log x elementwise: 0 at 0, -inf below 0."""
    return Entr.apply(input)


@tensor_method("deg2rad")
def deg2rad(input):
    refuse_complex("deg2rad", input, RuntimeError)
    return input * (math.pi / 180.0)


@tensor_method("rad2deg")
def rad2deg(input):
    refuse_complex("rad2deg", input, RuntimeError)
    return input * (180.0 / math.pi)


@tensor_method("sinc")
def sinc(input):
    from .select import where
    x = input * math.pi
    safe = where(input == 0, 1.0, x)
    return where(input == 0, 1.0, safe.sin() / safe)


@tensor_method("float_power")
def float_power(input, exponent):
    from ..dtype import complex128, float64
    wide = complex128 if any(isinstance(t, Tensor) and t.is_complex() or type(t) is complex
                             for t in (input, exponent)) else float64
    base = input.to(wide) if isinstance(input, Tensor) else input
    exp = exponent.to(wide) if isinstance(exponent, Tensor) else exponent
    if not isinstance(base, Tensor):
        from ..creation import tensor
        base = tensor(float(base), dtype=float64)
    return base ** exp


def _fminmax(a, b, take_a):
    from .select import where
    return where(take_a | b.isnan(), a, b)


@tensor_method("fmax")
def fmax(input, other):
    require_tensor("fmax", other)
    return _fminmax(input, other, input >= other)


@tensor_method("fmin")
def fmin(input, other):
    require_tensor("fmin", other)
    return _fminmax(input, other, input <= other)


@tensor_method("heaviside")
def heaviside(input, values):
    from .select import where
    if input.dtype != values.dtype:
        raise RuntimeError(f"heaviside is not yet implemented for tensors with different dtypes "
                           f"({input.dtype} and {values.dtype})")
    return where(input == 0, values, (input > 0).to(input.dtype)).detach()


@tensor_method("signbit")
def signbit(input):
    return Tensor._make(input.device.xp.signbit(input._data), input.device)


@tensor_method("sgn")
def sgn(input):
    if input._data.dtype.kind == "c":
        from .complex import complex_sgn
        return complex_sgn(input)
    return input.sign()
