"""Distributions on each device (cuda runs on a GPU, or on the fake CuPy under
LABKIT_FAKE_CUDA=1): log_prob / entropy / kl values and gradients against torch on the CPU, and
samples (rsample included) that stay on the parameters' device."""
import numpy as np
import pytest

import labkit
from conftest import check_op
from distributions_oracle import outputs, rng, validation_on  # noqa: F401

torch = pytest.importorskip("torch")

POS = rng(1).uniform(0.5, 2.5, (2, 3))
POS2 = rng(2).uniform(0.5, 2.5, (2, 3))
X = rng(3).uniform(0.1, 0.9, (2, 3))


def _both(build):
    return (lambda *a: build(labkit, *a)), (lambda *a: build(torch, *a))


@pytest.mark.parametrize("name", ["Gamma", "Beta", "Laplace", "LogNormal", "Cauchy"])
def test_two_parameter_families(name, device):
    def build(lib, a, b, x):
        d = getattr(lib.distributions, name)(a, b)
        return outputs(d, x, props=("mean", "mode")) + (
            lib.distributions.kl_divergence(d, getattr(lib.distributions, name)(b, a)),)
    check_op(*_both(build), [POS, POS2, X], device=device, requires_grad=[True, True, False],
             rtol=1e-6)


def test_multivariate_normal_and_dirichlet(device):
    cov = rng(4).standard_normal((3, 3))
    cov = cov @ cov.T + 3 * np.eye(3)

    def build(lib, loc, c, x, conc, p):
        m = lib.distributions.MultivariateNormal(loc, covariance_matrix=c)
        d = lib.distributions.Dirichlet(conc)
        return m.log_prob(x), m.entropy(), m.precision_matrix, d.log_prob(p), d.entropy()
    p = rng(5).dirichlet(np.ones(3), 2)
    check_op(*_both(build), [POS[0], cov, POS2, POS + 0.5, p], device=device,
             requires_grad=[True, True, False, True, False], rtol=1e-6)


@pytest.mark.parametrize("name,args", [("Gamma", (2.0, 1.5)), ("Dirichlet", None),
                                       ("Beta", (2.0, 3.0)), ("Poisson", (3.0,)),
                                       ("Binomial", (5.0, 0.3)), ("Normal", (0.0, 1.0)),
                                       ("StudentT", (3.0, 0.0, 1.0))])
def test_samples_stay_on_the_device(name, args, device):
    if args is None:
        params = [labkit.tensor([[1.0, 2.0, 3.0]], device=device, requires_grad=True)]
    else:
        params = [labkit.full((4,), v, device=device, requires_grad=name not in
                              ("Poisson", "Binomial")) for v in args]
    d = getattr(labkit.distributions, name)(*params)
    s = d.rsample((2,)) if d.has_rsample else d.sample((2,))
    assert s.device == params[0].device and tuple(s.shape) == (2,) + tuple(d.batch_shape) + tuple(d.event_shape)
    if d.has_rsample:
        s.sum().backward()
        assert params[0].grad is not None and params[0].grad.device == params[0].device
