"""labkit.distributions against torch.distributions: the same samples for a seed (they draw in
torch's order), the same log_prob / entropy / kl values and gradients, and the same errors."""
import numpy as np
import pytest

import labkit
from labkit import distributions as D

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def validation_on():
    """torch.compile (dynamo, used by other tests) turns torch's argument validation off for
    the whole process: compare with it on, as a fresh torch has it."""
    before = torch.distributions.Distribution._validate_args
    torch.distributions.Distribution.set_default_validate_args(True)
    yield
    torch.distributions.Distribution.set_default_validate_args(before)


def same(a, b, atol=1e-6):
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=atol, rtol=1e-6)


def pair(make):
    """Run make(lib) on labkit and on torch from the same seed."""
    labkit.manual_seed(0)
    torch.manual_seed(0)
    return make(labkit), make(torch)


@pytest.mark.parametrize("kind", ["probs", "logits"])
@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 1, 5)])
def test_categorical_samples_log_prob_entropy(kind, shape):
    def make(lib):
        x = lib.randn(*shape)
        d = lib.distributions.Categorical(**{kind: x.softmax(-1) if kind == "probs" else x})
        s = d.sample((2,))
        return s, d.log_prob(s), d.entropy(), d.probs, d.logits, d.mode, d.sample()
    for a, b in zip(*pair(make)):
        same(a, b)


def test_categorical_log_prob_gradient_and_broadcast_value():
    logits = np.random.RandomState(0).randn(3, 4).astype(np.float32)
    lk = labkit.tensor(logits, requires_grad=True)
    th = torch.tensor(logits, requires_grad=True)
    for lib, p in ((labkit, lk), (torch, th)):
        d = lib.distributions.Categorical(logits=p)
        (d.log_prob(lib.tensor([[0], [3]])).sum() + d.entropy().sum()).backward()
    same(lk.grad, th.grad)


@pytest.mark.parametrize("scalar", [True, False])
def test_normal_sample_rsample_log_prob_cdf_entropy_kl(scalar):
    def make(lib):
        loc, scale = (0.5, 2.0) if scalar else (lib.randn(3), lib.rand(3) + 0.5)
        d = lib.distributions.Normal(loc, scale)
        q = lib.distributions.Normal(0.0, 1.0)
        v = lib.tensor([0.25, -1.0, 3.0])
        return (d.sample(), d.sample((2,)), d.rsample((4,)), d.log_prob(v), d.cdf(v), d.entropy(),
                lib.distributions.kl_divergence(d, q), d.variance, d.stddev)
    for a, b in zip(*pair(make)):
        same(a, b)


def test_normal_rsample_carries_gradients_sample_does_not():
    grads = []
    for lib in (labkit, torch):
        lib.manual_seed(3)
        mu = lib.zeros(3, requires_grad=True)
        sigma = lib.ones(3, requires_grad=True)
        d = lib.distributions.Normal(mu, sigma)
        assert not d.sample().requires_grad
        z = d.rsample()
        (z * z).sum().backward()
        grads.append((mu.grad, sigma.grad))
    for a, b in zip(*grads):
        same(a, b)


def test_bernoulli_and_uniform_and_independent():
    def make(lib):
        p = lib.tensor([0.0, 0.2, 0.5, 1.0])
        b = lib.distributions.Bernoulli(probs=p)
        bl = lib.distributions.Bernoulli(logits=lib.tensor([-1.0, 0.0, 2.0, 3.0]))
        v = lib.tensor([0.0, 1.0, 1.0, 1.0])
        u = lib.distributions.Uniform(lib.tensor([0.0, -1.0]), lib.tensor([2.0, 1.0]))
        ind = lib.distributions.Independent(lib.distributions.Normal(lib.zeros(3, 2), lib.ones(3, 2)), 1)
        return (b.sample(), b.log_prob(v), b.entropy(), b.mode, b.variance, bl.probs, bl.log_prob(v),
                lib.distributions.kl_divergence(bl, b), u.sample((3,)), u.log_prob(lib.tensor([1.0, 0.5])),
                u.entropy(), u.cdf(lib.tensor([1.0, 0.5])), ind.log_prob(lib.zeros(3, 2)), ind.entropy(),
                lib.distributions.kl_divergence(ind, ind))
    for a, b in zip(*pair(make)):
        same(a, b)
    i_lk = D.Independent(D.Normal(labkit.zeros(3, 2), labkit.ones(3, 2)), 1)
    assert (tuple(i_lk.batch_shape), tuple(i_lk.event_shape)) == ((3,), (2,))


@pytest.mark.parametrize("make", [
    lambda lib: lib.distributions.Normal(0.0, -1.0),
    lambda lib: lib.distributions.Categorical(probs=lib.tensor([0.5, -0.1])),
    lambda lib: lib.distributions.Bernoulli(probs=lib.tensor([1.5])),
    lambda lib: lib.distributions.Categorical(probs=lib.tensor([0.5, 0.5])).log_prob(lib.tensor([3])),
    lambda lib: lib.distributions.Normal(0.0, 1.0).log_prob(1.0),
    lambda lib: lib.distributions.Categorical(),
    lambda lib: lib.distributions.Categorical(logits=lib.tensor(1.0)),
])
def test_invalid_arguments_raise_like_torch(make):
    with pytest.raises(Exception) as theirs:
        make(torch)
    with pytest.raises(type(theirs.value)):
        make(labkit)


def test_validation_can_be_switched_off_and_missing_pairs_are_named():
    d = D.Normal(0.0, -1.0, validate_args=False)
    assert np.isnan(d.log_prob(labkit.tensor(0.0)).item())
    with pytest.raises(NotImplementedError, match="Cauchy"):
        D.kl_divergence(D.Cauchy(0.0, 1.0), D.Bernoulli(probs=0.5))
    with pytest.raises(AttributeError, match="torch.distributions.Wishart"):
        D.Wishart
