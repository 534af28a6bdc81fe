"""The samplers torch.distributions calls beneath the Tensor API: _standard_gamma (with its
implicit reparameterised gradient), _sample_dirichlet (likewise), poisson and binomial.

Draws come from a host numpy Generator seeded by labkit's generator, so labkit.manual_seed
makes them reproducible (they are not torch's numbers). The gradients are torch's formulas,
computed here to float64 accuracy by series (torch uses fitted approximations, so values agree
to about 1e-3 relative):

  Gamma(a) sample x:  dx/da = -(d/da P(a, x)) / pdf(x; a), P the regularised incomplete gamma
      = -(x / a) * ((log x - digamma(a + 1)) S + dS/da),  S = sum_n x^n / ((a+1)...(a+n))
  Dirichlet, per component x ~ Beta(a, b), b = t - a: -(d/da I_x(a, b)) / pdf / (1 - x),
      I the regularised incomplete beta, by the series
      I = x^a (1-x)^b / (a B(a, b)) * sum_n x^n (a+b)_n / (a+1)_n (with I_x(a,b) = 1 - I_{1-x}(b,a)
      when x is past the mean, so the series converges fast)
"""
import numpy as np

from ..engine.device import to_device_array
from ..engine.function import Function
from ..engine.creation import _gen
from ..engine.ops.gamma import polygamma_array
from ..engine.tensor import Tensor


def _rng(generator=None):
    seed = _gen(generator)._random64(2)
    return np.random.Generator(np.random.PCG64([int(s) for s in seed]))


def _out(arr, like):
    return Tensor._make(to_device_array(np.asarray(arr).astype(like._data.dtype), like.device),
                        like.device)


def _series_sum(xp, ratio, extra, active_max=100000):
    """sum_n u_n and sum_n u_n h_n, u_0 = 1, u_n = u_{n-1} ratio(n), h_n = h_{n-1} + extra(n)."""
    u = xp.ones_like(extra(1))
    h = xp.zeros_like(u)
    s, ds = u.copy(), xp.zeros_like(u)
    for n in range(1, active_max):
        u = u * ratio(n)
        h = h + extra(n)
        s = s + u
        ds = ds + u * h
        if n > 8 and not bool((xp.abs(u) * (1 + xp.abs(h)) > 1e-17 * xp.abs(s)).any()):
            break
    return s, ds


def standard_gamma_grad_array(alpha, x, xp):
    """dx/dalpha for x ~ Gamma(alpha, 1) (float64 arrays)."""
    x = xp.maximum(x, 1e-300)
    s, ds = _series_sum(xp, lambda n: x / (alpha + n), lambda n: -1 / (alpha + n))
    return -(x / alpha) * ((xp.log(x) - polygamma_array(0, alpha + 1, xp)) * s + ds)


def dirichlet_grad_array(x, alpha, total, xp):
    """torch's _dirichlet_grad: -(d/dalpha I_x(alpha, beta)) / pdf / (1 - x) for a component
    x ~ Beta(alpha, beta = total - alpha), beta held fixed (the 1/(1 - x) is the Dirichlet's
    scaling). Past the mean the series runs on I_x(a, b) = 1 - I_{1-x}(b, a)."""
    x = xp.clip(x, 1e-300, 1 - 1e-16)
    beta = total - alpha
    flip = x > (alpha + 1) / (total + 2)
    y = xp.where(flip, 1 - x, x)
    p = xp.where(flip, beta, alpha)
    s, ds = _series_sum(xp, lambda n: y * (total + n - 1) / (p + n),
                        lambda n: xp.where(flip, 1 / (total + n - 1),
                                           1 / (total + n - 1) - 1 / (p + n)))
    psi_t = polygamma_array(0, total, xp)
    direct = -(x / alpha) * ((xp.log(x) - 1 / alpha - polygamma_array(0, alpha, xp) + psi_t) * s
                             + ds)
    flipped = (x / beta) * ((xp.log(x) - polygamma_array(0, alpha, xp) + psi_t) * s + ds)
    return xp.where(flip, flipped, direct)


def _in64(fn, *tensors):
    xp = tensors[0].device.xp
    arrays = [xp.asarray(t._data, dtype=xp.float64) for t in tensors]
    return fn(*arrays, xp).astype(tensors[0]._data.dtype)


class StandardGammaGrad(Function):
    node_name = "StandardGammaGradBackward0"

    @staticmethod
    def forward(ctx, alpha, x):
        return _in64(standard_gamma_grad_array, alpha, x)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("the derivative for '_standard_gamma_grad' is not implemented.")


class DirichletGrad(Function):
    node_name = "DirichletGradBackward0"

    @staticmethod
    def forward(ctx, x, alpha, total):
        return _in64(dirichlet_grad_array, x, alpha, total)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("the derivative for '_dirichlet_grad' is not implemented.")


def _standard_gamma_grad(alpha, x):
    return StandardGammaGrad.apply(alpha, x)


def _dirichlet_grad(x, alpha, total):
    return DirichletGrad.apply(x, alpha, total)


class StandardGamma(Function):
    """x ~ Gamma(alpha, 1); its gradient is the implicit one, dx/dalpha at the drawn x."""
    node_name = "StandardGammaBackward0"
    random = True

    @staticmethod
    def forward(ctx, alpha, generator):
        a = alpha._host().astype(np.float64)
        x = _rng(generator).standard_gamma(a) if a.size else a.copy()
        out = to_device_array(x.astype(alpha._data.dtype), alpha.device)
        ctx.save_for_backward(alpha, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        alpha, x = ctx.saved_tensors
        return grad * _standard_gamma_grad(alpha, x), None


def _standard_gamma(alpha, generator=None):
    return StandardGamma.apply(alpha, generator)


class SampleDirichlet(Function):
    node_name = "DirichletBackward"
    random = True

    @staticmethod
    def forward(ctx, concentration, generator):
        a = concentration._host().astype(np.float64)
        g = _rng(generator).standard_gamma(a) if a.size else a.copy()
        total = g.sum(-1, keepdims=True)
        x = np.where(total > 0, g / np.where(total > 0, total, 1), 0)
        dt = concentration._data.dtype
        tiny = np.finfo(dt).tiny
        x = np.clip(x.astype(dt), tiny, 1 - np.finfo(dt).eps)
        out = to_device_array(x, concentration.device)
        ctx.save_for_backward(out, concentration)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, concentration = ctx.saved_tensors
        total = concentration.sum(-1, True).expand_as(concentration)
        grad = _dirichlet_grad(x.detach(), concentration.detach(), total.detach())
        return grad * (grad_output - (x * grad_output).sum(-1, True)), None


def _sample_dirichlet(concentration, generator=None):
    return SampleDirichlet.apply(concentration, generator)


def poisson(rates, generator=None):
    r = rates._host().astype(np.float64)
    if (r < 0).any():
        raise RuntimeError("poisson: invalid Poisson rate, expected rate to be non-negative")
    return _out(_rng(generator).poisson(r) if r.size else r, rates)


def binomial(count, prob, generator=None):
    n = count._host().astype(np.float64)
    p = np.broadcast_to(prob._host().astype(np.float64), n.shape)
    draw = _rng(generator).binomial(n.astype(np.int64), p) if n.size else n
    return _out(draw, count)
