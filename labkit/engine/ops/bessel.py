"""i0 and i1, the modified Bessel functions of the first kind of orders 0 and 1 (torch.i0,
torch.special.i0 / i1; Kaiser windows use i0). Both are the power series
I_v(x) = sum_k (x/2)^(2k+v) / (k! (k+v)!), summed in float64 term by term (each term from the
one before, so nothing overflows before the sum does) until the terms no longer change it:
all terms are positive, so the sum is accurate to a few ulps for every x, and about |x| + 30
terms reach that. d/dx I0 = I1 and d/dx I1 = I0 - I1 / x (1/2 at 0), torch's formulas."""
from ..function import Function, unary_op
from ..tensor import tensor_method
from . import rules
from .common import float_data


def _series(x, v, xp):
    """The series at |x| < 720 (beyond, the caller gives inf or nan), odd for v = 1."""
    y = xp.abs(x)
    y = xp.where(xp.isfinite(y) & (y < 720), y, 0)
    half = y / 2
    term = xp.ones_like(y) if v == 0 else half
    total, q = term, half * half
    steps = int(xp.max(y).item()) + 40 if y.size else 0
    for k in range(1, steps + 1):
        term = term * (q / (k * (k + v)))
        total = total + term
        if k % 16 == 0 and not bool(xp.any(term > total * 1e-17)):
            break
    return total if v == 0 else xp.where(x < 0, -total, total)


def _quiet(xp):
    import contextlib
    if hasattr(xp, "errstate"):
        return xp.errstate(over="ignore", invalid="ignore")
    return contextlib.nullcontext()


def bessel_array(x, v, xp):
    """I_v of an array of floats, in its dtype (computed in float64). As torch's (Cephes')
    e^|x| * chebyshev(x) / sqrt(|x|): inf where e^|x| overflows the dtype (|x| > 88.72 in
    float32, 709.78 in float64, before I_v itself does), nan at +-inf."""
    d = xp.asarray(x)
    out = _series(d.astype("float64"), v, xp)
    limit = 709.782712893384 if d.dtype.itemsize == 8 else 88.72283935546875
    big = xp.abs(d) > limit
    out = xp.where(big, xp.where(d < 0, -xp.inf, xp.inf) if v else xp.inf, out)
    out = xp.where(xp.isinf(d) | xp.isnan(d), xp.nan, out)
    return xp.asarray(out).astype(d.dtype)


class I0(Function):
    node_name = "I0Backward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return bessel_array(float_data(x), 0, x.device.xp)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * i1(x)

    @classmethod
    def jvp(cls, args, tangents, out):
        return None if tangents[0] is None else rules.diagonal(cls, args, tangents[0])

    vmap = classmethod(rules.elementwise)


class I1(Function):
    node_name = "SpecialI1Backward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return bessel_array(float_data(x), 1, x.device.xp)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        zero = x == 0
        safe = x.masked_fill(zero, 1.0)
        return grad * (i0(x) - i1(x) / safe).masked_fill(zero, 0.5)

    @classmethod
    def jvp(cls, args, tangents, out):
        return None if tangents[0] is None else rules.diagonal(cls, args, tangents[0])

    vmap = classmethod(rules.elementwise)


i0 = tensor_method("i0")(unary_op(I0))
i1 = unary_op(I1)
i1.__name__ = i1.__qualname__ = "i1"


def _i0_inplace():
    from .inplace_unary import _unary_inplace
    return _unary_inplace("i0_", I0)


i0_ = _i0_inplace()
