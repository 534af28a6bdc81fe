"""The Distribution API around the numbers, against torch: validate_args and its ValueError
messages, arg_constraints and support reprs, constraint checks, expand, sample_n, the
NotImplementedError of missing pieces, and MixtureSameFamily (values, gradients, shapes)."""
import numpy as np
import pytest

import labkit
from distributions_oracle import compare, rng, same_error, validation_on  # noqa: F401

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("build,match", [
    (lambda lib: lib.distributions.Normal(lib.tensor([0.0]), lib.tensor([-1.0])),
     "to satisfy the constraint GreaterThan(lower_bound=0.0)"),
    (lambda lib: lib.distributions.Gamma(lib.tensor([0.0]), 1.0), "GreaterThan(lower_bound=0.0)"),
    (lambda lib: lib.distributions.Beta(lib.tensor([1.0]), lib.tensor([-2.0])), "Expected parameter"),
    (lambda lib: lib.distributions.Dirichlet(lib.tensor([1.0, -1.0])),
     "IndependentConstraint(GreaterThan(lower_bound=0.0), 1)"),
    (lambda lib: lib.distributions.Dirichlet(lib.tensor(1.0)), "at least one-dimensional"),
    (lambda lib: lib.distributions.Poisson(lib.tensor([-1.0])), "GreaterThanEq(lower_bound=0.0)"),
    (lambda lib: lib.distributions.Bernoulli(lib.tensor([1.5])),
     "Interval(lower_bound=0.0, upper_bound=1.0)"),
    (lambda lib: lib.distributions.Uniform(1.0, 0.0),
     "distribution Uniform(low: 1.0, high: 0.0) to satisfy the constraint LessThan(upper_bound=0.0)"),
    (lambda lib: lib.distributions.Exponential(lib.tensor([1.0])).log_prob(lib.tensor([-1.0])),
     "within the support (GreaterThanEq(lower_bound=0.0))"),
    (lambda lib: lib.distributions.Beta(2.0, 2.0).log_prob(lib.tensor([1.5])), "Interval("),
    (lambda lib: lib.distributions.Dirichlet(lib.ones(3)).log_prob(lib.tensor([0.5, 0.6, 0.1])),
     "Simplex()"),
    (lambda lib: lib.distributions.Normal(lib.zeros(3), 1.0).log_prob(lib.zeros(2)),
     "Value is not broadcastable with batch_shape+event_shape"),
    (lambda lib: lib.distributions.OneHotCategorical(lib.ones(3)).log_prob(lib.tensor([1.0, 1.0, 0.0])),
     "OneHot()"),
    (lambda lib: lib.distributions.Categorical(lib.ones(3)).log_prob(lib.tensor(3)),
     "IntegerInterval(lower_bound=0, upper_bound=2)"),
    (lambda lib: lib.distributions.Independent(lib.distributions.Normal(0.0, 1.0), 1),
     "Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape)"),
    (lambda lib: lib.distributions.Distribution().mean, ""),
    (lambda lib: lib.distributions.Distribution().mode, "does not implement mode"),
    (lambda lib: lib.distributions.Poisson(1.0).rsample(), ""),
])
def test_errors_match_torch(build, match):
    same_error(build, match)


def test_validation_off_gives_values_not_errors():
    out = []
    for lib in (labkit, torch):
        d = lib.distributions.Exponential(lib.tensor([1.0]), validate_args=False)
        out.append(d.log_prob(lib.tensor([-1.0])).numpy())
    np.testing.assert_allclose(out[0], out[1])


@pytest.mark.parametrize("name", ["real", "positive", "nonnegative", "unit_interval", "simplex",
                                  "boolean", "nonnegative_integer", "positive_integer",
                                  "lower_cholesky", "lower_triangular", "positive_definite",
                                  "positive_semidefinite", "symmetric", "square", "real_vector",
                                  "one_hot", "corr_cholesky"])
def test_constraint_checks_and_reprs(name):
    data = [np.array([[0.0, 1.0], [0.5, 0.5]]), np.array([[1.0, 0.0], [0.3, 2.0]]),
            np.array([[2.0, 1.0], [1.0, 2.0]]), np.array([[-1.0, 2.0], [0.0, 1.0]]),
            np.array([[1.0, 0.0], [0.6, 0.8]])]
    got = []
    for lib in (labkit, torch):
        c = getattr(lib.distributions.constraints, name)
        got.append([repr(c), c.event_dim, c.is_discrete] +
                   [c.check(lib.tensor(d)).numpy().tolist() for d in data])
    assert got[0] == got[1]


def test_parametrised_constraints():
    for lib in (labkit, torch):
        C = lib.distributions.constraints
        v = lib.tensor([-1.0, 0.0, 0.5, 2.0])
        got = [C.interval(0.0, 2.0).check(v), C.half_open_interval(0.0, 2.0).check(v),
               C.greater_than(0.0).check(v), C.greater_than_eq(0.0).check(v),
               C.less_than(0.5).check(v), C.integer_interval(0, 2).check(v),
               C.independent(C.positive, 1).check(v.reshape(2, 2)),
               C.cat([C.positive, C.real], 0, [2, 2]).check(v),
               C.stack([C.positive, C.real, C.real, C.positive], 0).check(v),
               C.multinomial(3).check(lib.tensor([[1.0, 2.0], [2.0, 2.0]]))]
        assert not C.is_dependent(C.real) and C.is_dependent(C.dependent)
        if lib is labkit:
            mine = [g.numpy().tolist() for g in got]
        else:
            assert mine == [g.numpy().tolist() for g in got]


def test_expand_sample_n_and_shapes():
    rows = []
    for lib in (labkit, torch):
        D = lib.distributions
        items = [D.Normal(lib.zeros(3), 1.0), D.Categorical(logits=lib.zeros(3, 4)),
                 D.Dirichlet(lib.ones(2, 3)), D.MultivariateNormal(lib.zeros(2), lib.eye(2)),
                 D.Independent(D.Normal(lib.zeros(2, 3), 1.0), 1), D.Bernoulli(lib.tensor(0.3)),
                 D.LogNormal(0.0, 1.0), D.OneHotCategorical(lib.ones(4)),
                 D.Binomial(3, lib.tensor([0.5])), D.StudentT(lib.tensor([3.0]))]
        for d in items:
            e = d.expand((5,) + tuple(d.batch_shape))
            with pytest.warns(FutureWarning, match="will be deprecated"):
                n = d.sample_n(2)
            rows.append((type(d).__name__, tuple(e.batch_shape), tuple(e.event_shape),
                         tuple(e.sample().shape), tuple(n.shape), tuple(e.mean.shape),
                         e._validate_args, d.has_rsample, d.has_enumerate_support,
                         sorted(type(d).arg_constraints) if isinstance(type(d).arg_constraints, dict)
                         else None, repr(d).replace(lib.__name__ + ".", "")))
    half = len(rows) // 2
    for mine, ref in zip(rows[:half], rows[half:]):
        assert mine == ref


def _mixture(lib, logits, loc, scale):
    D = lib.distributions
    return D.MixtureSameFamily(D.Categorical(logits=logits), D.Normal(loc, scale))


def test_mixture_same_family_values_and_gradients():
    lg, loc, sc = rng(0).standard_normal((2, 3)), rng(1).standard_normal((2, 3)), rng(2).uniform(0.5, 2, (2, 3))
    x = rng(3).standard_normal((4, 2))
    compare(lambda lib, lg, loc, sc, x: (
        _mixture(lib, lg, loc, sc).log_prob(x), _mixture(lib, lg, loc, sc).mean,
        _mixture(lib, lg, loc, sc).variance, _mixture(lib, lg, loc, sc).cdf(x)),
        [lg, loc, sc, x], requires_grad=[True, True, True, False], rtol=1e-6)


def test_mixture_of_multivariate_components_and_sampling():
    got = []
    for lib in (labkit, torch):
        D = lib.distributions
        lib.manual_seed(0)
        mix = D.Categorical(lib.ones(3))
        comp = D.Independent(D.Normal(lib.tensor(rng(4).standard_normal((3, 2))),
                                      lib.ones(3, 2)), 1)
        gmm = D.MixtureSameFamily(mix, comp)
        s = gmm.sample((5,))
        got.append((tuple(s.shape), tuple(gmm.batch_shape), tuple(gmm.event_shape),
                    gmm.log_prob(lib.zeros(4, 2)).numpy().round(10).tolist(), repr(gmm.support)))
    assert got[0] == got[1]
    same_error(lambda lib: lib.distributions.MixtureSameFamily(
        lib.distributions.Categorical(lib.ones(3)),
        lib.distributions.Normal(lib.zeros(4), 1.0)), "does not equal")
    same_error(lambda lib: lib.distributions.MixtureSameFamily(
        lib.distributions.Normal(0.0, 1.0), lib.distributions.Normal(lib.zeros(4), 1.0)),
        "needs to be an  instance of torch.distributions.Categorical")


def test_every_torch_submodule_and_its_names_import():
    """`from torch.distributions.relaxed_bernoulli import LogitRelaxedBernoulli` is how real
    programs reach classes the package does not re-export: each torch submodule exists here,
    holding the public distributions and transforms torch's holds."""
    import importlib
    import pkgutil
    import torch.distributions
    missing = []
    for info in pkgutil.iter_modules(torch.distributions.__path__):
        theirs = importlib.import_module(f"torch.distributions.{info.name}")
        ours = importlib.import_module(f"labkit.distributions.{info.name}")
        for name in getattr(theirs, "__all__", []):
            if not hasattr(ours, name):
                missing.append(f"{info.name}.{name}")
    assert not missing, missing
