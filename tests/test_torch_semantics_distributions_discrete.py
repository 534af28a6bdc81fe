"""Discrete families against torch: Poisson, Binomial, Geometric, OneHotCategorical (and its
straight-through rsample), Bernoulli's enumerate_support -- log_prob, entropy, moments,
gradients, sample shapes/dtypes and support checks."""
import numpy as np
import pytest

import labkit
from distributions_oracle import compare, outputs, rng, same_error, validation_on  # noqa: F401

torch = pytest.importorskip("torch")

RATE = rng(1).uniform(0.5, 4.0, (2, 3))
P = rng(2).uniform(0.1, 0.9, (2, 3))
K = np.array([[0.0, 1.0, 3.0], [2.0, 5.0, 0.0]])


def test_poisson():
    compare(lambda lib, r, k: outputs(lib.distributions.Poisson(r), k, props=("mean", "variance", "mode"),
                                      entropy=False), [RATE, K], requires_grad=[True, False])


@pytest.mark.parametrize("kind", ["probs", "logits"])
def test_binomial(kind):
    n = np.full((2, 3), 5.0)
    def build(lib, n, p, k):
        d = lib.distributions.Binomial(n, **{kind: p if kind == "probs" else p.logit()})
        return outputs(d, k) + (d.probs, d.logits, d.enumerate_support())
    compare(build, [n, P, K], requires_grad=[False, True, False])


@pytest.mark.parametrize("kind", ["probs", "logits"])
def test_geometric(kind):
    def build(lib, p, k):
        d = lib.distributions.Geometric(**{kind: p if kind == "probs" else p.logit()})
        return outputs(d, k)
    compare(build, [P, K], requires_grad=[True, False])


def test_one_hot_categorical():
    logits = rng(3).standard_normal((2, 4))
    value = np.eye(4)[[1, 3]]
    def build(lib, lg, v):
        d = lib.distributions.OneHotCategorical(logits=lg)
        return outputs(d, v) + (d.enumerate_support(), d.probs)
    compare(build, [logits, value], requires_grad=[True, False])


def test_straight_through_rsample_gradient_is_the_probs_gradient():
    logits = rng(4).standard_normal((3, 5))
    grads = []
    for lib in (labkit, torch):
        lg = lib.tensor(logits, requires_grad=True)
        d = lib.distributions.OneHotCategoricalStraightThrough(logits=lg)
        s = d.rsample((2,))
        assert tuple(s.shape) == (2, 3, 5) and d.has_rsample
        assert ((s.detach() == 0) | (s.detach() == 1)).all()
        (s * lib.arange(5.0, dtype=lib.float64)).sum().backward()
        grads.append(lg.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


@pytest.mark.parametrize("name,kw", [("Poisson", {"rate": 2.0}),
                                     ("Binomial", {"total_count": 10, "probs": 0.3}),
                                     ("Geometric", {"probs": 0.3}),
                                     ("OneHotCategorical", {"probs": [0.2, 0.3, 0.5]}),
                                     ("Bernoulli", {"probs": 0.3})])
def test_samples_shape_dtype_and_support(name, kw):
    got = []
    for lib in (labkit, torch):
        lib.manual_seed(0)
        args = {k: lib.tensor(v) if isinstance(v, list) else v for k, v in kw.items()}
        d = getattr(lib.distributions, name)(**args)
        s = d.sample((200,))
        assert bool(d.support.check(s).all())
        got.append((tuple(s.shape), str(s.dtype).split(".")[-1], tuple(d.batch_shape),
                    tuple(d.event_shape), repr(d.support), d.has_enumerate_support))
    assert got[0] == got[1]


def test_poisson_and_binomial_sample_means_are_right():
    labkit.manual_seed(0)
    s = labkit.distributions.Poisson(labkit.tensor([0.5, 3.0, 20.0])).sample((4000,))
    np.testing.assert_allclose(s.mean(0).numpy(), [0.5, 3.0, 20.0], rtol=0.08)
    b = labkit.distributions.Binomial(labkit.tensor([10.0, 40.0]), labkit.tensor([0.3, 0.9]))
    np.testing.assert_allclose(b.sample((4000,)).mean(0).numpy(), [3.0, 36.0], rtol=0.05)


def test_support_errors_match():
    same_error(lambda lib: lib.distributions.Poisson(lib.tensor([1.0])).log_prob(lib.tensor([0.5])),
               "Expected value argument")
    same_error(lambda lib: lib.distributions.Binomial(5, lib.tensor([0.5])).log_prob(lib.tensor([6.0])),
               "within the support")
    same_error(lambda lib: lib.distributions.Geometric(lib.tensor([0.0])), "to be positive")
    same_error(lambda lib: lib.distributions.Binomial(5), "Either `probs` or `logits`")
    same_error(lambda lib: lib.distributions.Binomial(lib.tensor([5.0, 6.0]),
                                                      lib.tensor([0.5, 0.2])).entropy(),
               "Inhomogeneous total count")


BINARY_PARAM = [("bernoulli.Bernoulli", ()), ("binomial.Binomial", (4.0,)),
                ("negative_binomial.NegativeBinomial", (3.0,)), ("geometric.Geometric", ()),
                ("relaxed_bernoulli.LogitRelaxedBernoulli", (0.5,))]


@pytest.mark.parametrize("name,lead", BINARY_PARAM)
@pytest.mark.parametrize("kind", ["probs", "logits"])
@pytest.mark.parametrize("number", [False, True])
def test_probs_logits_pair_and_expand(name, lead, kind, number):
    """The probs/logits families share one parameterization (distributions/binary_param.py):
    the other parameter computed on first read, expand keeping whichever were read, shapes."""
    def build(lib, p):
        value = 0.3 if number else (p if kind == "probs" else p.logit())
        module, cls = name.split(".")
        d = getattr(getattr(lib.distributions, module), cls)(*lead, **{kind: value})
        first = (d.probs, d.logits, tuple(d.batch_shape))
        e = d.expand((4,) + tuple(d.batch_shape))
        return first + (e.probs, e.logits, tuple(e.batch_shape))
    compare(build, [P[0]], requires_grad=[True])
