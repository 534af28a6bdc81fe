"""The regularised incomplete gamma functions: igamma P(a, x) = gammainc and igammac
Q(a, x) = 1 - P = gammaincc (torch.special), behind Gamma.cdf and Chi2 tests. numpy has no
incomplete gamma (scipy is not a dependency), so both are computed here on xp arrays in float64:
the power series for x < a + 1 and Lentz's continued fraction for Q above it. The gradient in x
is the gamma density x^(a-1) e^-x / Gamma(a) (times -1 for Q); in a, torch has none and neither
does labkit.
"""
from ..function import Function
from ..tensor import Tensor, tensor_method
from .common import float_operands
from .gamma import lgamma_array

_TINY = 1e-300


def _series_p(a, x, xp):
    term = xp.ones_like(x)
    total = term.copy()
    for n in range(1, 100000):
        term = term * x / (a + n)
        total = total + term
        if not bool((xp.abs(term) > 1e-17 * xp.abs(total)).any()):
            break
    return xp.exp(a * xp.log(x) - x - lgamma_array(a + 1, xp)) * total


def _continued_fraction_q(a, x, xp):
    b = x + 1 - a
    c = xp.full_like(x, 1 / _TINY)
    d = 1 / xp.where(xp.abs(b) < _TINY, _TINY, b)
    h = d
    for i in range(1, 100000):
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = 1 / xp.where(xp.abs(d) < _TINY, _TINY, d)
        c = b + an / c
        c = xp.where(xp.abs(c) < _TINY, _TINY, c)
        delta = d * c
        h = h * delta
        if not bool((xp.abs(delta - 1) > 1e-15).any()):
            break
    return xp.exp(a * xp.log(x) - x - lgamma_array(a, xp)) * h


def igamma_array(a, x, xp, upper=False):
    """P(a, x) (or Q when upper) with torch's edge values: a = 0 and x > 0 gives P = 1,
    x = 0 gives P = 0, x = inf gives P = 1, a < 0 or x < 0 (or nan) gives nan."""
    a, x = xp.broadcast_arrays(a, x)
    bad = (a < 0) | (x < 0) | xp.isnan(a) | xp.isnan(x)
    edge_one = ((a == 0) & (x > 0)) | xp.isinf(x)
    edge_zero = x == 0
    ok = ~(bad | edge_one | edge_zero)
    aa = xp.where(ok, a, 1.0)
    xx = xp.where(ok, x, 1.0)
    use_series = xx < aa + 1
    out = xp.zeros(aa.shape, dtype=xp.float64)
    if bool(use_series.any()):
        p = _series_p(xp.where(use_series, aa, 1.0), xp.where(use_series, xx, 0.5), xp)
        out = xp.where(use_series, (1 - p) if upper else p, out)
    if bool((~use_series).any()):
        q = _continued_fraction_q(xp.where(use_series, 1.0, aa), xp.where(use_series, 3.0, xx), xp)
        out = xp.where(use_series, out, q if upper else 1 - q)
    out = xp.where(edge_one, 0.0 if upper else 1.0, out)
    out = xp.where(edge_zero & ~bad & ~edge_one, 1.0 if upper else 0.0, out)
    return xp.where(bad, xp.nan, out)


class Igamma(Function):
    node_name = "IgammaBackward0"
    upper = False

    @classmethod
    def forward(cls, ctx, a, x):
        xp = a.device.xp
        fa, fx = float_operands(a, x)
        out = igamma_array(xp.asarray(fa, dtype=xp.float64), xp.asarray(fx, dtype=xp.float64), xp,
                           cls.upper)
        ctx.save_for_backward(a, x)
        return out.astype(xp.asarray(fa).dtype)

    @classmethod
    def backward(cls, ctx, grad):
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise NotImplementedError(f"the derivative for '{cls.op}: input' is not implemented.")
        density = ((a - 1) * x.log() - x - a.lgamma()).exp()
        return None, grad * (-density if cls.upper else density)

    op = "igamma"


class Igammac(Igamma):
    node_name = "IgammacBackward0"
    upper = True
    op = "igammac"


def _check(name, a, x):
    for t in (a, x):
        if isinstance(t, Tensor) and not t.dtype.is_floating_point:
            names = {"int64": "Long", "int32": "Int", "bool": "Bool", "int16": "Short",
                     "int8": "Char", "uint8": "Byte"}
            raise NotImplementedError(f'"{name}_cpu" not implemented for '
                                      f"'{names.get(t.dtype.name, t.dtype.name)}'")


@tensor_method("igamma")
def igamma(input, other, *, out=None):
    """The regularised lower incomplete gamma function P(input, other)."""
    _check("igamma", input, other)
    return Igamma.apply(input, other)


@tensor_method("igammac")
def igammac(input, other, *, out=None):
    """The regularised upper incomplete gamma function Q(input, other) = 1 - P."""
    _check("igammac", input, other)
    return Igammac.apply(input, other)
