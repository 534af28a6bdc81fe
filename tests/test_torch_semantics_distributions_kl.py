"""kl_divergence against torch for every closed-form pair labkit registers (values and
gradients in both arguments), the dispatch to the most specific pair, register_kl, and the
NotImplementedError for a pair with none."""
import numpy as np
import pytest

import labkit
from distributions_oracle import compare, rng, same_error, validation_on  # noqa: F401

torch = pytest.importorskip("torch")

A = rng(0).uniform(0.5, 2.5, (3,))
B = rng(1).uniform(0.5, 2.5, (3,))
C = rng(2).uniform(0.5, 2.5, (3,))
E = rng(3).uniform(0.5, 2.5, (3,))
PR = rng(4).uniform(0.1, 0.9, (3,))
PR2 = rng(5).uniform(0.1, 0.9, (3,))


def _build(lib, name, *args):
    D = lib.distributions
    make = {
        "Normal": lambda a, b: D.Normal(a - 1, b), "Laplace": lambda a, b: D.Laplace(a - 1, b),
        "Cauchy": lambda a, b: D.Cauchy(a - 1, b), "Gamma": lambda a, b: D.Gamma(a, b),
        "Beta": lambda a, b: D.Beta(a, b), "Exponential": lambda a, b: D.Exponential(a),
        "Poisson": lambda a, b: D.Poisson(a), "Dirichlet": lambda a, b: D.Dirichlet(lib.stack([a, b], -1)),
        "Uniform": lambda a, b: D.Uniform(a - 3, a - 3 + b), "HalfNormal": lambda a, b: D.HalfNormal(b),
        "LogNormal": lambda a, b: D.LogNormal(a - 1, b),
        "Geometric": lambda p, b: D.Geometric(p), "Bernoulli": lambda p, b: D.Bernoulli(p),
        "Binomial": lambda p, b: D.Binomial(4, p), "Categorical": lambda p, b: D.Categorical(lib.stack([p, b], -1)),
        "OneHotCategorical": lambda p, b: D.OneHotCategorical(lib.stack([p, b], -1)),
    }[name]
    return make(*args)


SAME = ["Normal", "Laplace", "Cauchy", "Gamma", "Beta", "Exponential", "Poisson", "Dirichlet",
        "Uniform", "HalfNormal", "LogNormal"]
SAME_P = ["Geometric", "Bernoulli", "Binomial", "Categorical", "OneHotCategorical"]
CROSS = [("Normal", "Laplace"), ("Laplace", "Normal"), ("Exponential", "Gamma"),
         ("Exponential", "Normal"), ("Gamma", "Exponential"), ("Gamma", "Normal"),
         ("Beta", "Normal"), ("Uniform", "Normal"), ("Uniform", "Gamma"),
         ("Uniform", "Exponential"), ("Normal", "Gamma"), ("Laplace", "Beta"),
         ("Exponential", "Uniform")]


@pytest.mark.parametrize("name", SAME)
def test_same_family(name):
    compare(lambda lib, a, b, c, e: lib.distributions.kl_divergence(
        _build(lib, name, a, b), _build(lib, name, c, e)), [A, B, C, E], rtol=1e-6)


@pytest.mark.parametrize("name", SAME_P)
def test_same_family_probabilities(name):
    compare(lambda lib, p, b, q, e: lib.distributions.kl_divergence(
        _build(lib, name, p, b), _build(lib, name, q, e)), [PR, PR2, PR2, PR], rtol=1e-6)


@pytest.mark.parametrize("p,q", CROSS)
def test_cross_family(p, q):
    compare(lambda lib, a, b, c, e: lib.distributions.kl_divergence(
        _build(lib, p, a, b), _build(lib, q, c, e)), [A, B, C, E], rtol=1e-6)


def test_uniform_to_beta_and_beta_to_uniform():
    lo, w = np.array([0.1, 0.3]), np.array([0.5, 0.4])
    compare(lambda lib, l, w, a, b: lib.distributions.kl_divergence(
        lib.distributions.Uniform(l, l + w), lib.distributions.Beta(a, b)), [lo, w, A[:2], B[:2]])
    compare(lambda lib, a, b, l, w: lib.distributions.kl_divergence(
        lib.distributions.Beta(a, b), lib.distributions.Uniform(l - 1, l + w + 1)),
        [A[:2], B[:2], lo, w], rtol=1e-6)


def test_bernoulli_to_poisson():
    compare(lambda lib, p, r: lib.distributions.kl_divergence(
        lib.distributions.Bernoulli(p), lib.distributions.Poisson(r)), [PR, A])


def test_exponential_family_bregman_divergence_via_autograd():
    """A subclass with no pair of its own falls back to the exponential-family rule."""
    results = []
    for lib in (labkit, torch):
        class MyExp(lib.distributions.Exponential):
            pass
        p, q = MyExp(lib.tensor(A)), MyExp(lib.tensor(B))
        results.append(lib.distributions.kl_divergence(p, q).numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-10)


def test_register_kl_and_missing_pair():
    same_error(lambda lib: lib.distributions.kl_divergence(
        lib.distributions.Poisson(1.0), lib.distributions.Normal(0.0, 1.0)), "Bregman")
    same_error(lambda lib: lib.distributions.kl_divergence(
        lib.distributions.Cauchy(1.0, 1.0), lib.distributions.Normal(0.0, 1.0)), "No KL(p || q)")
    for lib in (labkit, torch):
        class P(lib.distributions.Normal):
            pass

        @lib.distributions.register_kl(P, lib.distributions.Normal)
        def _kl(p, q):
            return p.loc * 0 + 7.0
        assert float(lib.distributions.kl_divergence(P(0.0, 1.0), lib.distributions.Normal(1.0, 1.0))) == 7.0
        with pytest.raises(TypeError):
            lib.distributions.register_kl(3, P)
