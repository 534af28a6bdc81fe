"""The gamma-function family and the rest of erf's: lgamma, digamma, polygamma, mvlgamma,
erfc and erfinv. numpy has none of them (scipy is not a dependency), so each is computed here
on xp arrays, to about 1e-14 in float64 on numpy and cupy alike:

  lgamma, digamma, polygamma: shift x up to >= 20 with the recurrences (Gamma(x+1) = x Gamma(x)),
      then the asymptotic (Stirling / Bernoulli) series; reflection for lgamma/digamma below 0.5.
  erfc: 1 - erf without the cancellation (Cody's erfc pieces, from erf.py).
  erfinv: an initial guess refined by Newton steps on erf.

Derivatives chain into the family: lgamma' = digamma, digamma' = polygamma(1), polygamma(n)' =
polygamma(n + 1), so every order of gradient exists.
"""
import math

from ..function import Function, unary_op
from ..tensor import tensor_method
from .common import float_data
from .erf import _quiet, erf_array


def _in64(fn, x, *args):
    """fn on x in float64 (the series are written for it), returned in x's float dtype."""
    d = float_data(x)
    xp = x.device.xp
    with _quiet(xp):
        return xp.asarray(fn(*args, d.astype(xp.float64), xp)).astype(d.dtype)

_SHIFT = 20.0
# Bernoulli numbers B2, B4, ..., B20
_B = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798,
      -174611 / 330)


def _shifted(xp, x, per_step):
    """Move x up to >= _SHIFT; return the new x and the sum of per_step(x) over the steps."""
    acc = xp.zeros_like(x)
    for _ in range(int(_SHIFT) + 1):
        low = x < _SHIFT
        if not bool(low.any()):
            break
        acc = acc + xp.where(low, per_step(xp.where(low, x, 1.0)), 0.0)
        x = xp.where(low, x + 1, x)
    return x, acc


def lgamma_array(x, xp):
    """log|Gamma(x)|."""
    refl = x < 0.5
    z = xp.where(refl, 1 - x, x)                            # >= 0.5
    z, acc = _shifted(xp, z, xp.log)
    series = sum(b / ((2 * k + 1) * (2 * k + 2) * z ** (2 * k + 1)) for k, b in enumerate(_B[:8]))
    big = (z - 0.5) * xp.log(z) - z + 0.5 * math.log(2 * math.pi) + series - acc
    s = xp.abs(xp.sin(math.pi * xp.where(refl, x, 0.5)))
    out = xp.where(refl, math.log(math.pi) - xp.log(s) - big, big)
    pole = (x <= 0) & (x == xp.floor(x))
    return xp.where(pole | xp.isinf(x), xp.inf, out)


def polygamma_array(n, x, xp):
    """The n-th derivative of digamma (n = 0: digamma itself)."""
    if n == 0:
        refl = x < 0.5
        z = xp.where(refl, 1 - x, x)
        z, acc = _shifted(xp, z, lambda t: 1 / t)
        z2 = z * z
        series = sum(b / (2 * (k + 1) * z2 ** (k + 1)) for k, b in enumerate(_B[:8]))
        big = xp.log(z) - 0.5 / z - series - acc
        out = xp.where(refl, big - math.pi / xp.tan(math.pi * xp.where(refl, x, 0.25)), big)
        pole = (x <= 0) & (x == xp.floor(x))
        out = xp.where(pole, xp.where(xp.signbit(x) | (x < 0), xp.nan, -xp.inf), out)
        out = xp.where(x == 0, xp.where(xp.signbit(x), xp.inf, -xp.inf), out)
        return xp.where(xp.isposinf(x), xp.inf, out)
    sign = 1.0 if n % 2 else -1.0
    fact = math.factorial(n)
    steps = int(max(0.0, _SHIFT - float(x.min()))) + 1 if x.size else 0
    if steps > 100000:
        raise NotImplementedError("polygamma: labkit's series needs x > -1e5")
    acc = xp.zeros_like(x)
    z = x
    for _ in range(steps):
        low = z < _SHIFT
        if not bool(low.any()):
            break
        acc = acc + xp.where(low, 1 / xp.where(low, z, 1.0) ** (n + 1), 0.0)
        z = xp.where(low, z + 1, z)
    # (-1)^(n+1) [(n-1)!/z^n + n!/(2 z^(n+1)) + sum B2k (2k+n-1)!/((2k)! z^(2k+n))]
    series = math.factorial(n - 1) / z ** n + fact / (2 * z ** (n + 1))
    for k, b in enumerate(_B, start=1):
        series = series + b * math.factorial(2 * k + n - 1) / math.factorial(2 * k) / z ** (2 * k + n)
    out = sign * (series + fact * acc)
    pole = (x <= 0) & (x == xp.floor(x))
    return xp.where(pole & (x == 0), sign * xp.inf, out)


def erfc_array(x, xp):
    """1 - erf(x), accurate where it is tiny (large x)."""
    from .erf import _C, _D, _P, _Q, _ONE_OVER_SQRT_PI, _ratio
    y = xp.minimum(xp.abs(x), 27.0)
    num, den = _ratio(_C, _D, y, 7)
    mid = (num + _C[7]) / (den + _D[7])
    z = 1 / (y * y)
    num, den = _ratio(_P, _Q, z, 4)
    far = (_ONE_OVER_SQRT_PI - z * (num + _P[4]) / (den + _Q[4])) / y
    y_16 = xp.trunc(y * 16) / 16
    tail = xp.exp(-y_16 * y_16) * xp.exp(-(y - y_16) * (y + y_16)) * xp.where(y <= 4, mid, far)
    tail = xp.where(xp.abs(x) >= 27.0, 0.0, tail)
    out = xp.where(x < 0, 2 - tail, tail)
    return xp.where(xp.abs(x) <= 0.46875, 1 - erf_array(x, xp), out)


def erfinv_array(y, xp):
    """The x with erf(x) = y: Giles' single-precision guess, then Newton steps on erf."""
    w = -xp.log((1 - y) * (1 + y))
    small = w < 5
    ws = xp.where(small, w - 2.5, xp.sqrt(xp.where(small, 5.0, w)) - 3)
    cs = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
          -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
    cl = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
          -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)
    ps, pl = cs[0], cl[0]
    for a, b in zip(cs[1:], cl[1:]):
        ps = ps * ws + a
        pl = pl * ws + b
    x = xp.where(small, ps, pl) * y
    for _ in range(3):                      # Newton on erf(x) - y; 2/sqrt(pi) exp(-x^2) = erf'
        err = erf_array(x, xp) - y
        x = x - err / (2 / math.sqrt(math.pi) * xp.exp(-x * x))
    x = xp.where(y == 1, xp.inf, xp.where(y == -1, -xp.inf, x))
    return xp.where(xp.abs(y) > 1, xp.nan, x)


class Lgamma(Function):
    node_name = "LgammaBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _in64(lgamma_array, x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * digamma(x)


class Polygamma(Function):
    node_name = "PolygammaBackward0"

    @staticmethod
    def forward(ctx, x, n):
        ctx.save_for_backward(x)
        ctx.n = n
        return _in64(polygamma_array, x, n)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * Polygamma.apply(x, ctx.n + 1), None


class Erfc(Function):
    node_name = "ErfcBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _in64(erfc_array, x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * ((x * x).neg().exp() * (-2 / math.sqrt(math.pi)))


class Erfinv(Function):
    node_name = "ErfinvBackward0"

    @staticmethod
    def forward(ctx, y):
        ctx.save_for_backward(y)      # backward recomputes erfinv(y), keeping it differentiable
        return _in64(erfinv_array, y)

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        x = erfinv(y)
        return grad * ((x * x).exp() * (math.sqrt(math.pi) / 2))


lgamma = tensor_method("lgamma")(unary_op(Lgamma))
erfc = tensor_method("erfc")(unary_op(Erfc))
erfinv = tensor_method("erfinv")(unary_op(Erfinv))


@tensor_method("digamma")
def digamma(input):
    return Polygamma.apply(input, 0)


def polygamma(n, input):
    """The n-th derivative of digamma at input (torch's argument order: n first)."""
    if int(n) != n or n < 0:
        raise RuntimeError(f"polygamma(n, x) does not support negative n, got n={n}")
    return Polygamma.apply(input, int(n))


@tensor_method("polygamma")
def _polygamma_method(input, n):
    return polygamma(n, input)


@tensor_method("mvlgamma")
def mvlgamma(input, p):
    """The log of the multivariate gamma function of dimension p."""
    from .complex_guard import refuse_complex
    refuse_complex("mvlgamma", input)
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if not input.dtype.is_floating_point:
        input = input.float()
    # (torch 2.13 no longer refuses x <= (p - 1) / 2: lgamma's poles give inf there)
    from ..creation import arange
    j = arange(p, dtype=input.dtype, device=input.device) * -0.5
    return lgamma(input.unsqueeze(-1) + j).sum(-1) + p * (p - 1) / 4 * math.log(math.pi)


def _inplace_forms():
    from .aliases import _inplace_of
    for name in ("lgamma", "digamma", "erfc", "erfinv", "mvlgamma", "polygamma"):
        _inplace_of(name)


_inplace_forms()
