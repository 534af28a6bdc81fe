"""erf, the Gauss error function (exact GELU needs it); numpy has none, so it is computed here
with W. J. Cody's rational approximations (the ones C libraries use): within 1e-15 of the true
value in float64, on numpy and cupy alike."""
import contextlib
import math

from ..function import Function, unary_op
from ..tensor import tensor_method
from .common import float_data
from . import rules

_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
      3.20937758913846947e03, 1.85777706184603153e-1)
_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03,
      2.84423683343917062e03)
_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01,
      2.98635138197400131e02, 8.81952221241769090e02, 1.71204761263407058e03,
      2.05107837782607147e03, 1.23033935479799725e03, 2.15311535474403846e-8)
_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02,
      1.62138957456669019e03, 3.29079923573345963e03, 4.36261909014324716e03,
      3.43936767414372164e03, 1.23033935480374942e03)
_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1,
      1.60837851487422766e-2, 6.58749161529837803e-4, 1.63153871373020978e-2)
_Q = (2.56852019228982242e00, 1.87295284992346725e00, 5.27905102951428412e-1,
      6.05183413124413191e-2, 2.33520497626869185e-3)
_ONE_OVER_SQRT_PI = 1 / math.sqrt(math.pi)
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def _ratio(num_coef, den_coef, t, n):
    """Evaluate Cody's num(t)/den(t) in Horner form (n rounds)."""
    num, den = num_coef[-1] * t, t
    for i in range(n):
        num = (num + num_coef[i]) * t
        den = (den + den_coef[i]) * t
    return num, den


def erf_array(x, xp):
    """erf of an array: a series near 0, erfc = exp(-x^2) * rational(|x|) further out."""
    y = xp.abs(x)
    num, den = _ratio(_A, _B, y * y, 3)
    small = x * (num + _A[3]) / (den + _B[3])
    y = xp.minimum(y, 27.0)                  # erfc(27) underflows to 0; keeps inf - inf out
    num, den = _ratio(_C, _D, y, 7)
    mid = (num + _C[7]) / (den + _D[7])
    z = 1 / (y * y)
    num, den = _ratio(_P, _Q, z, 4)
    far = (_ONE_OVER_SQRT_PI - z * (num + _P[4]) / (den + _Q[4])) / y
    y_16 = xp.trunc(y * 16) / 16             # exp(-y^2) in two parts, for accuracy
    erfc = xp.exp(-y_16 * y_16) * xp.exp(-(y - y_16) * (y + y_16)) * xp.where(y <= 4, mid, far)
    return xp.where(xp.abs(x) <= 0.46875, small, xp.where(x < 0, erfc - 1, 1 - erfc))


class Erf(Function):
    node_name = "ErfBackward0"
    onnx = "Erf"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        xp = x.device.xp
        d = float_data(x)
        with _quiet(xp):     # float32 and below: computed in float64, then rounded, so the
            if d.dtype.itemsize <= 4:    # result is erf's nearest float32 (as torch's), not
                return xp.asarray(erf_array(d.astype("float64"), xp)).astype(d.dtype)  # a few
            return xp.asarray(erf_array(d, xp))             # ulps of float32 rounding away

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * ((x * x).neg().exp() * _TWO_OVER_SQRT_PI)

    @classmethod
    def jvp(cls, args, tangents, out):
        return None if tangents[0] is None else rules.diagonal(cls, args, tangents[0])

    vmap = classmethod(rules.elementwise)


def _quiet(xp):
    """Far from 0 the unused branches divide by 0 or overflow; their values are discarded."""
    if hasattr(xp, "errstate"):            # numpy warns; cupy never does
        return xp.errstate(divide="ignore", over="ignore", invalid="ignore")
    return contextlib.nullcontext()


erf = tensor_method("erf")(unary_op(Erf))
