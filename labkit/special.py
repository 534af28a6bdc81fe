"""labkit.special, as torch.special: the scipy.special-style names for labkit's functions
(expit is sigmoid, gammaln is lgamma, psi is digamma ...) and a few more built from them."""
import math

from .engine.ops.bessel import i0, i1  # noqa: F401
from .engine.ops.erf import erf
from .engine.ops.gamma import digamma, erfc, erfinv, lgamma as gammaln, mvlgamma, polygamma
from .engine.ops.igamma import igamma as gammainc, igammac as gammaincc  # noqa: F401
from .engine.ops.math import expm1, log1p, round
from .engine.ops.norm import logsumexp
from .engine.ops.softmax import log_softmax as _log_softmax, softmax as _softmax
from .engine.ops.special_math import entr, exp2, logit, sinc, xlog1py, xlogy
from .engine.ops.unary import sigmoid as expit

psi = digamma


def multigammaln(input, p):
    return mvlgamma(input, p)


def softmax(input, dim, dtype=None):
    return _softmax(input if dtype is None else input.to(dtype), dim)


def log_softmax(input, dim, *, dtype=None):
    return _log_softmax(input if dtype is None else input.to(dtype), dim)


def ndtr(input):
    """The standard normal CDF."""
    x = input if input.dtype.is_floating_point else input.float()
    return erfc(x * (-1 / math.sqrt(2))) * 0.5


def ndtri(input):
    """The inverse of ndtr (the normal quantile function)."""
    return erfinv(input * 2 - 1) * math.sqrt(2)


def log_ndtr(input):
    return ndtr(input).log()


__all__ = ["digamma", "psi", "entr", "erf", "erfc", "erfinv", "exp2", "expit", "expm1",
           "gammaln", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp", "multigammaln",
           "ndtr", "ndtri", "polygamma", "round", "sinc", "softmax", "xlog1py", "xlogy"]

from .engine.ops.keywords import install_table  # noqa: E402
install_table(globals(), "special")   # torch's keyword names and out= (torch_signatures.txt)
from .engine.unsupported import module_getattr  # noqa: E402
__getattr__ = module_getattr(__name__, "torch.special")
