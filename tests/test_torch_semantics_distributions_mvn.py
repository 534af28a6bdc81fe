"""MultivariateNormal against torch, from scale_tril, covariance_matrix and precision_matrix:
log_prob (broadcast batches), entropy, the three matrices, variance, rsample's reparameterised
gradient with the noise fixed, kl_divergence, and the constructor's errors."""
import numpy as np
import pytest

import labkit
from distributions_oracle import compare, rng, same_error, validation_on  # noqa: F401

torch = pytest.importorskip("torch")


def spd(batch, n, seed):
    a = rng(seed).standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


LOC = rng(1).standard_normal((2, 3))
X = rng(2).standard_normal((4, 2, 3))


def _mvn(lib, kind, loc, m):
    if kind == "scale_tril":
        m = lib.linalg.cholesky(m)
    return lib.distributions.MultivariateNormal(loc, **{kind: m})


@pytest.mark.parametrize("kind", ["scale_tril", "covariance_matrix", "precision_matrix"])
def test_log_prob_entropy_matrices(kind):
    def build(lib, loc, m, x):
        d = _mvn(lib, kind, loc, m)
        return (d.log_prob(x), d.entropy(), d.mean, d.mode, d.variance, d.stddev, d.scale_tril,
                d.covariance_matrix, d.precision_matrix)
    compare(build, [LOC, spd((2,), 3, 3), X], requires_grad=[True, True, True], rtol=1e-6)


def test_unbatched_matrix_broadcast_over_loc_and_value():
    def build(lib, loc, m, x):
        d = lib.distributions.MultivariateNormal(loc, covariance_matrix=m)
        return d.log_prob(x), d.entropy(), tuple(d.batch_shape) == (2,)
    compare(build, [LOC, spd((), 3, 4), X], rtol=1e-6)


def test_rsample_gradient_with_fixed_noise():
    """rsample = loc + L eps: compare the gradient of f(rsample) through loc and L with torch
    for the same eps (drawn by labkit, handed to torch's formula)."""
    labkit.manual_seed(0)
    L = np.linalg.cholesky(spd((), 3, 5))
    loc_l = labkit.tensor(LOC[0], requires_grad=True)
    L_l = labkit.tensor(L, requires_grad=True)
    d = labkit.distributions.MultivariateNormal(loc_l, scale_tril=L_l)
    state = labkit.get_rng_state()
    z = d.rsample((5,))
    labkit.set_rng_state(state)
    eps = labkit.randn(5, 3, dtype=labkit.float64)
    (z.sin().sum()).backward()
    loc_t = torch.tensor(LOC[0], requires_grad=True)
    L_t = torch.tensor(L, requires_grad=True)
    dt = torch.distributions.MultivariateNormal(loc_t, scale_tril=L_t)
    zt = dt.loc + (dt._unbroadcasted_scale_tril @ torch.tensor(eps.numpy()).unsqueeze(-1)).squeeze(-1)
    zt.sin().sum().backward()
    np.testing.assert_allclose(z.detach().numpy(), zt.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(loc_l.grad.numpy(), loc_t.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(L_l.grad.numpy(), L_t.grad.numpy(), rtol=1e-12)


def test_kl_between_multivariate_normals():
    def build(lib, l1, m1, l2, m2):
        p = lib.distributions.MultivariateNormal(l1, covariance_matrix=m1)
        q = lib.distributions.MultivariateNormal(l2, scale_tril=lib.linalg.cholesky(m2))
        return lib.distributions.kl_divergence(p, q)
    compare(build, [LOC, spd((2,), 3, 6), LOC[::-1].copy(), spd((), 3, 7)], rtol=1e-6)


def test_second_derivative_of_log_prob():
    def build(lib, loc, m, x):
        x = x.detach().requires_grad_()
        lp = lib.distributions.MultivariateNormal(loc, covariance_matrix=m).log_prob(x).sum()
        (g,) = lib.autograd.grad(lp, x, create_graph=True)
        return g
    compare(build, [LOC, spd((2,), 3, 8), X], requires_grad=[True, True, False], rtol=1e-6)


def test_errors():
    same_error(lambda lib: lib.distributions.MultivariateNormal(lib.zeros(())), "loc must be at")
    same_error(lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2)), "Exactly one of")
    same_error(lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), lib.eye(2),
                                                                scale_tril=lib.eye(2)),
               "Exactly one of")
    same_error(lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), lib.ones(2)),
               "at least two-dimensional")
    same_error(lambda lib: lib.distributions.MultivariateNormal(
        lib.zeros(2), lib.tensor([[1.0, 2.0], [2.0, 1.0]])), "PositiveDefinite()")
    same_error(lambda lib: lib.distributions.MultivariateNormal(
        lib.zeros(2), scale_tril=lib.tensor([[1.0, 1.0], [0.0, 1.0]])), "LowerCholesky()")
    same_error(lambda lib: lib.distributions.MultivariateNormal(
        lib.zeros(2), lib.eye(2)).log_prob(lib.zeros(3)), "event_shape")


def test_sample_covariance_is_right():
    labkit.manual_seed(1)
    cov = spd((), 3, 9)
    d = labkit.distributions.MultivariateNormal(labkit.zeros(3, dtype=labkit.float64),
                                                covariance_matrix=labkit.tensor(cov))
    s = d.sample((20000,)).numpy()
    np.testing.assert_allclose(np.cov(s.T), cov, rtol=0.1, atol=0.1)
