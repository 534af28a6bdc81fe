"""The matrix- and circle-valued families against torch: Wishart (from each of its three
parameters: log_prob, entropy, moments, rsample's shape and gradient, kl by Bregman), LKJCholesky
(log_prob, samples in the support) and VonMises (log_prob, variance, sampling on the circle)."""
import numpy as np
import pytest

import labkit
from distributions_oracle import compare, rng, same_error, validation_on  # noqa: F401

torch = pytest.importorskip("torch")


def spd(batch, n, seed):
    a = rng(seed).standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


@pytest.mark.parametrize("kind", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_wishart(kind):
    def build(lib, df, m, x):
        if kind == "scale_tril":
            m = lib.linalg.cholesky(m)
        d = lib.distributions.Wishart(df, **{kind: m})
        return (d.log_prob(x), d.entropy(), d.mean, d.variance, d.mode, d.covariance_matrix,
                d.precision_matrix, d.scale_tril)
    compare(build, [np.array([4.0, 6.5]), spd((2,), 3, 1), spd((2,), 3, 2)],
            requires_grad=[True, True, False], rtol=1e-6)


def test_wishart_rsample_kl_and_errors():
    """torch 2.13's rsample takes its valid samples for singular ones (it keeps
    support.check(sample) where it means the opposite), warns, redraws them in place and then
    cannot differentiate; labkit redraws only samples that fail the check, so only labkit's
    gradient is checked here."""
    got = []
    for lib in (labkit, torch):
        lib.manual_seed(0)
        cov = lib.tensor(spd((), 3, 3), requires_grad=True)
        d = lib.distributions.Wishart(lib.tensor(5.0), covariance_matrix=cov)
        if lib is labkit:
            s = d.rsample((4,))
            s.sum().backward()
            assert cov.grad is not None
        else:
            with torch.no_grad(), pytest.warns(UserWarning):
                s = d.rsample((4,))
        assert bool(d.support.check(s.detach()).all())
        q = lib.distributions.Wishart(lib.tensor(7.0), covariance_matrix=cov.detach() * 2)
        got.append((tuple(s.shape), lib.distributions.kl_divergence(d, q).item()))
    assert got[0][0] == got[1][0]
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-5)
    same_error(lambda lib: lib.distributions.Wishart(1.0, lib.eye(3)), "expected to be greater")
    same_error(lambda lib: lib.distributions.Wishart(4.0, lib.ones(3)), "at least two-dimensional")


@pytest.mark.parametrize("conc", [0.5, 1.0, 3.0])
def test_lkj_cholesky(conc):
    L = np.array([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.6, 0.8]])
    compare(lambda lib, c, v: lib.distributions.LKJCholesky(3, c).log_prob(v),
            [np.full((2,), conc), np.stack([L, np.eye(3)])], requires_grad=[True, False])
    labkit.manual_seed(0)
    d = labkit.distributions.LKJCholesky(4, conc)
    s = d.sample((5,))
    assert tuple(s.shape) == (5, 4, 4) and bool(d.support.check(s).all())
    same_error(lambda lib: lib.distributions.LKJCholesky(1), "greater than or equal to 2")


def test_von_mises():
    loc, kappa = rng(4).uniform(-3, 3, (2, 3)), np.array([[0.1, 1.0, 3.7], [3.8, 10.0, 50.0]])
    x = rng(5).uniform(-3, 3, (2, 3))
    compare(lambda lib, m, k, x: (lib.distributions.VonMises(m, k).log_prob(x),
                                  lib.distributions.VonMises(m, k).variance,
                                  lib.distributions.VonMises(m, k).mean),
            [loc, kappa, x], requires_grad=[True, True, False], rtol=1e-6)
    labkit.manual_seed(0)
    d = labkit.distributions.VonMises(labkit.tensor([0.5, -2.0]), labkit.tensor([4.0, 20.0]))
    s = d.sample((4000,))
    assert s.dtype == labkit.float32 and bool((s.abs() <= np.pi).all())
    circ_mean = np.angle(np.exp(1j * s.numpy()).mean(0))
    np.testing.assert_allclose(circ_mean, [0.5, -2.0], atol=0.05)
    assert tuple(d.expand((3, 2)).batch_shape) == (3, 2)
