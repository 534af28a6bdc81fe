"""The rest of torch.distributions' families against torch: Gumbel, Pareto, Weibull,
Kumaraswamy, InverseGamma, LogisticNormal, FisherSnedecor, Multinomial, NegativeBinomial --
properties, entropy, log_prob, cdf/icdf where torch has them, gradients, kl, shapes."""
import numpy as np
import pytest

import labkit
from distributions_oracle import compare, outputs, rng, same_error, validation_on  # noqa: F401

torch = pytest.importorskip("torch")

POS = rng(1).uniform(0.5, 2.5, (2, 3))
POS2 = rng(2).uniform(2.5, 5.0, (2, 3))
REAL = rng(3).uniform(-2, 2, (2, 3))
X = rng(4).uniform(0.1, 0.9, (2, 3))


def test_gumbel():
    compare(lambda lib, m, s, x, u: outputs(lib.distributions.Gumbel(m, s), x, cdf=True, icdf=u)
            + (lib.distributions.kl_divergence(lib.distributions.Gumbel(m, s),
                                               lib.distributions.Gumbel(s, s + 1)),),
            [REAL, POS, REAL[::-1].copy(), X], rtol=1e-6)


def test_pareto_and_weibull():
    compare(lambda lib, s, a, x: outputs(lib.distributions.Pareto(s, a), x + s.detach() + 0.5,
                                         cdf=True) + (lib.distributions.kl_divergence(
                                             lib.distributions.Pareto(s, a),
                                             lib.distributions.Pareto(s * 0.5, a + 1)),),
            [POS, POS2, X], rtol=1e-6)
    compare(lambda lib, s, c, x: outputs(lib.distributions.Weibull(s, c), x, cdf=True),
            [POS, POS2, X], rtol=1e-6)


def test_kumaraswamy_inverse_gamma_logistic_normal():
    compare(lambda lib, a, b, x: outputs(lib.distributions.Kumaraswamy(a, b), x),
            [POS + 1, POS2, X], rtol=1e-6)
    compare(lambda lib, a, b, x: outputs(lib.distributions.InverseGamma(a, b), x),
            [POS2, POS, X], rtol=1e-6)
    simplex = rng(5).dirichlet(np.ones(4), 2)
    compare(lambda lib, m, s, v: (lib.distributions.LogisticNormal(m, s).log_prob(v),
                                  tuple(lib.distributions.LogisticNormal(m, s).event_shape)),
            [REAL, POS, simplex], rtol=1e-6)


def test_fisher_snedecor():
    compare(lambda lib, a, b, x: outputs(lib.distributions.FisherSnedecor(a, b), x,
                                         entropy=False), [POS2, POS2[::-1].copy() + 2, X], rtol=1e-6)


def test_multinomial():
    probs = rng(6).dirichlet(np.ones(4), 2)
    counts = np.array([[2.0, 0.0, 1.0, 2.0], [0.0, 5.0, 0.0, 0.0]])
    compare(lambda lib, p, c: outputs(lib.distributions.Multinomial(5, probs=p), c,
                                      props=("mean", "variance")), [probs, counts],
            requires_grad=[True, False], rtol=1e-6)
    got = []
    for lib in (labkit, torch):
        lib.manual_seed(0)
        d = lib.distributions.Multinomial(7, lib.tensor(probs))
        s = d.sample((3,))
        assert bool((s.sum(-1) == 7).all()) and bool(d.support.check(s).all())
        got.append((tuple(s.shape), str(s.dtype)[-7:], repr(d.support)))
    assert got[0] == got[1]
    same_error(lambda lib: lib.distributions.Multinomial(lib.tensor(3), lib.ones(3)),
               "inhomogeneous total_count")


@pytest.mark.parametrize("kind", ["probs", "logits"])
def test_negative_binomial(kind):
    k = np.array([[0.0, 1.0, 4.0], [2.0, 7.0, 0.0]])
    def build(lib, n, p, v):
        d = lib.distributions.NegativeBinomial(n, **{kind: p if kind == "probs" else p.logit()})
        return outputs(d, v, entropy=False)
    compare(build, [POS2, X, k], requires_grad=[True, True, False], rtol=1e-6)
    labkit.manual_seed(0)
    s = labkit.distributions.NegativeBinomial(4.0, probs=labkit.tensor([0.3])).sample((3000,))
    np.testing.assert_allclose(float(s.mean()), 4.0 * 0.3 / 0.7, rtol=0.1)


@pytest.mark.parametrize("name,args", [("Gumbel", (0.0, 1.0)), ("Pareto", (1.0, 2.0)),
                                       ("Weibull", (1.0, 2.0)), ("Kumaraswamy", (2.0, 3.0)),
                                       ("InverseGamma", (3.0, 2.0)), ("FisherSnedecor", (3.0, 5.0)),
                                       ("NegativeBinomial", (3.0, 0.4))])
def test_shapes_support_and_expand(name, args):
    got = []
    for lib in (labkit, torch):
        d = getattr(lib.distributions, name)(*args)
        e = d.expand((2, 3))
        x = e.sample((4,))
        got.append((tuple(d.batch_shape), tuple(e.batch_shape), tuple(x.shape),
                    tuple(e.log_prob(x).shape), d.has_rsample, type(d.support).__name__,
                    bool(d.support.check(x).all())))
    assert got[0] == got[1]
