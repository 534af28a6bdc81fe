"""Continuous univariate families against torch: Exponential, Laplace, Cauchy, Gamma, Chi2,
Beta, StudentT, LogNormal, HalfNormal, HalfCauchy -- properties, entropy, log_prob, cdf, icdf,
their gradients, and (for the expanded batch) shapes."""
import numpy as np
import pytest

from distributions_oracle import compare, outputs, rng, validation_on  # noqa: F401

POS = rng(1).uniform(0.5, 2.5, (2, 3))
POS2 = rng(2).uniform(0.5, 2.5, (2, 3))
REAL = rng(3).uniform(-2, 2, (2, 3))
X = rng(4).uniform(0.1, 3.0, (2, 3))
U = rng(5).uniform(0.05, 0.95, (2, 3))


def test_exponential():
    compare(lambda lib, r, x, u: outputs(lib.distributions.Exponential(r), x, cdf=True, icdf=u),
            [POS, X, U])


def test_laplace():
    compare(lambda lib, m, s, x, u: outputs(lib.distributions.Laplace(m, s), x, cdf=True, icdf=u),
            [REAL, POS, X, U])


def test_cauchy():
    compare(lambda lib, m, s, x, u: outputs(lib.distributions.Cauchy(m, s), x, props=("mean", "variance", "mode"),
                                            cdf=True, icdf=u), [REAL, POS, X, U])


def test_gamma_and_chi2():
    compare(lambda lib, a, b, x: outputs(lib.distributions.Gamma(a, b), x), [POS, POS2, X])
    compare(lambda lib, k, x: outputs(lib.distributions.Chi2(k), x) + (lib.distributions.Chi2(k).df,),
            [POS * 3, X])


def test_beta():
    compare(lambda lib, a, b, x: outputs(lib.distributions.Beta(a, b), x)
            + (lib.distributions.Beta(a, b).concentration1,),
            [POS + 1, POS2 + 1, U], rtol=1e-6)


def test_student_t():
    df = np.array([[0.5, 1.5, 3.0], [4.0, 2.0, 10.0]])
    compare(lambda lib, d, m, s, x: outputs(lib.distributions.StudentT(d, m, s), x),
            [df, REAL, POS, X], rtol=1e-6)


def test_log_normal_half_normal_half_cauchy():
    compare(lambda lib, m, s, x, u: outputs(lib.distributions.LogNormal(m, s), x, cdf=True, icdf=u),
            [REAL, POS, X, U])
    compare(lambda lib, s, x, u: outputs(lib.distributions.HalfNormal(s), x, cdf=True, icdf=u),
            [POS, X, U])
    compare(lambda lib, s, x, u: outputs(lib.distributions.HalfCauchy(s), x, props=("mean", "mode"),
                                         cdf=True, icdf=u), [POS, X, U])


@pytest.mark.parametrize("name,args", [("Exponential", (1.5,)), ("Laplace", (0.0, 2.0)),
                                       ("Cauchy", (1.0, 0.5)), ("Gamma", (2.0, 3.0)),
                                       ("Beta", (2.0, 3.0)), ("StudentT", (3.0,)),
                                       ("LogNormal", (0.0, 1.0)), ("HalfNormal", (1.0,)),
                                       ("Chi2", (3.0,))])
def test_number_parameters_give_scalar_batch_and_expand(name, args):
    import labkit
    import torch
    shapes = []
    for lib in (labkit, torch):
        d = getattr(lib.distributions, name)(*args)
        e = d.expand((4, 2))
        x = e.sample((3,))
        shapes.append((tuple(d.batch_shape), tuple(d.event_shape), tuple(e.batch_shape),
                       tuple(x.shape), tuple(e.log_prob(x).shape), d.has_rsample,
                       repr(d.support), str(x.dtype).split(".")[-1]))
    assert shapes[0] == shapes[1]
