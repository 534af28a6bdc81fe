"""LowRankMultivariateNormal, ContinuousBernoulli and GeneralizedPareto against torch: log_prob,
entropy, moments, the covariance / precision / scale_tril matrices, cdf / icdf, gradients, and
the constructor errors."""
import numpy as np
import pytest

import labkit
from distributions_oracle import compare, outputs, rng, same_error, validation_on  # noqa: F401

torch = pytest.importorskip("torch")


def test_lowrank_multivariate_normal():
    loc, W = rng(1).standard_normal((2, 4)), rng(2).standard_normal((2, 4, 2))
    D = rng(3).uniform(0.5, 2.0, (4,))
    x = rng(4).standard_normal((3, 2, 4))

    def build(lib, loc, W, D, x):
        d = lib.distributions.LowRankMultivariateNormal(loc, W, D)
        return (d.log_prob(x), d.entropy(), d.variance, d.mean, d.covariance_matrix,
                d.precision_matrix, d.scale_tril, tuple(d.batch_shape), tuple(d.event_shape))
    compare(build, [loc, W, D, x], requires_grad=[True, True, True, False], rtol=1e-6)


def test_lowrank_rsample_shape_gradient_and_errors():
    loc = labkit.zeros(3, requires_grad=True)
    W = labkit.ones(3, 1, requires_grad=True)
    d = labkit.distributions.LowRankMultivariateNormal(loc, W, labkit.ones(3))
    z = d.rsample((5,))
    assert tuple(z.shape) == (5, 3)
    z.sum().backward()
    assert loc.grad.tolist() == [5.0, 5.0, 5.0] and W.grad is not None
    same_error(lambda lib: lib.distributions.LowRankMultivariateNormal(
        lib.zeros(3), lib.ones(2, 1), lib.ones(3)), "cov_factor must be a batch of matrices")
    same_error(lambda lib: lib.distributions.LowRankMultivariateNormal(
        lib.zeros(3), lib.ones(3, 1), lib.ones(2)), "cov_diag must be a batch of vectors")


@pytest.mark.parametrize("kind", ["probs", "logits"])
def test_continuous_bernoulli(kind):
    p = np.array([[0.1, 0.4995, 0.7], [0.5, 0.9, 0.3]])
    x = rng(5).uniform(0.05, 0.95, (2, 3))

    def build(lib, p, x, u):
        d = lib.distributions.ContinuousBernoulli(**{kind: p if kind == "probs" else p.logit()})
        return outputs(d, x, props=("mean", "variance", "stddev"), cdf=True, icdf=u)
    compare(build, [p, x, rng(6).uniform(0.05, 0.95, (2, 3))], rtol=1e-6, atol=1e-9)


def test_continuous_bernoulli_kl_and_rsample():
    p, q = np.array([0.2, 0.6]), np.array([0.7, 0.3])
    compare(lambda lib, a, b: lib.distributions.kl_divergence(
        lib.distributions.ContinuousBernoulli(a), lib.distributions.ContinuousBernoulli(b)),
        [p, q], rtol=1e-6)
    compare(lambda lib, a: (lib.manual_seed(0), lib.distributions.ContinuousBernoulli(a).rsample((3,)))[1],
            [p], rtol=1e-6)


@pytest.mark.parametrize("conc", [0.3, -0.2, 0.0])
def test_generalized_pareto(conc):
    loc, scale = rng(7).uniform(-1, 1, (3,)), rng(8).uniform(0.5, 2, (3,))
    c = np.full((3,), conc)
    x = loc + rng(9).uniform(0.05, 1.0, (3,)) * scale

    def build(lib, l, s, c, x, u):
        """float32: torch 2.13 compares the concentration with a float32 zero (isclose), so
        float64 parameters raise there."""
        l, s, c, x, u = (t.float() for t in (l, s, c, x, u))
        d = lib.distributions.GeneralizedPareto(l, s, c)
        return outputs(d, x, props=("mean", "variance", "mode"), cdf=True, icdf=u) + (
            d.log_survival_function(x), d.log_cdf(x))
    compare(build, [loc, scale, c, x, rng(10).uniform(0.05, 0.95, (3,))], rtol=1e-5, atol=1e-6)
