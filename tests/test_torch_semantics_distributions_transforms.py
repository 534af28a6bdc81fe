"""Transforms and TransformedDistribution against torch: each transform's forward, inverse and
log|det J| (values and gradients), composition, the tanh-squashed Gaussian of SAC, shapes
through StickBreaking/Reshape, biject_to / transform_to, and transform equality and caching."""
import numpy as np
import pytest

import labkit
from distributions_oracle import compare, rng, validation_on  # noqa: F401

torch = pytest.importorskip("torch")

X = rng(0).uniform(-1.5, 1.5, (2, 3))
POSX = rng(1).uniform(0.3, 2.0, (2, 3))


def _t(lib, name, *args):
    return getattr(lib.distributions.transforms, name)(*args)


@pytest.mark.parametrize("name,args,data", [
    ("ExpTransform", (), X), ("SigmoidTransform", (), X), ("TanhTransform", (), X),
    ("SoftplusTransform", (), X), ("PowerTransform", (2.5,), POSX),
    ("AffineTransform", (0.5, -2.0), X), ("StickBreakingTransform", (), X),
    ("LowerCholeskyTransform", (), rng(2).uniform(-1, 1, (2, 3, 3))),
])
def test_forward_inverse_log_abs_det_jacobian(name, args, data):
    def build(lib, x):
        t = _t(lib, name, *args)
        y = t(x)
        out = [y, t.inv(y)]
        if name != "LowerCholeskyTransform":
            out.append(t.log_abs_det_jacobian(x, y))
        return tuple(out)
    compare(build, [data], rtol=1e-6)


def test_affine_with_tensor_parameters_and_event_dim():
    def build(lib, loc, scale, x):
        t = lib.distributions.transforms.AffineTransform(loc, scale, event_dim=1)
        y = t(x)
        return y, t.inv(y), t.log_abs_det_jacobian(x, y), t.sign
    compare(build, [X[0], X[1] + 3, X], rtol=1e-7)


def test_tanh_normal_policy_of_sac():
    """SAC's action distribution: TransformedDistribution(Normal(mu, std), [Tanh, Affine])."""
    def build(lib, mu, log_std, a):
        D = lib.distributions
        d = D.TransformedDistribution(D.Normal(mu, log_std.exp()),
                                      [D.transforms.TanhTransform(),
                                       D.transforms.AffineTransform(0.0, 2.0)])
        return (d.log_prob(a), d.log_prob(a).sum(-1), tuple(d.batch_shape), d.has_rsample,
                d.icdf(a * 0 + 0.3), d.cdf(a))
    compare(build, [X, X * 0.3, np.tanh(X[::-1].copy()) * 1.5], rtol=1e-6)


def test_compose_and_independent_event_dims():
    def build(lib, loc, scale, x):
        D = lib.distributions
        base = D.Independent(D.Normal(loc, scale), 1)
        t = D.transforms.ComposeTransform([D.transforms.AffineTransform(1.0, 2.0),
                                           D.transforms.ExpTransform()])
        d = D.TransformedDistribution(base, t.parts)
        return (d.log_prob(x), t.log_abs_det_jacobian(x.log(), x), tuple(d.event_shape),
                t.inv(x))
    compare(build, [X, POSX, POSX], rtol=1e-6)


def test_stick_breaking_shapes_and_simplex_distribution():
    def build(lib, loc, scale):
        D = lib.distributions
        d = D.TransformedDistribution(D.Normal(loc, scale), D.transforms.StickBreakingTransform())
        y = D.transforms.StickBreakingTransform()(loc)
        return tuple(d.event_shape), tuple(d.batch_shape), d.log_prob(y), type(d.support).__name__ == "_IndependentConstraint"
    compare(build, [X, POSX], rtol=1e-6)


@pytest.mark.parametrize("constraint", ["positive", "unit_interval", "simplex", "real",
                                        "lower_cholesky", "greater_than", "interval"])
def test_biject_to_and_transform_to(constraint):
    def build(lib, x):
        C = lib.distributions.constraints
        c = {"greater_than": lambda: C.greater_than(1.5), "interval": lambda: C.interval(-1.0, 3.0)
             }.get(constraint, lambda: getattr(C, constraint))()
        data = x if constraint != "lower_cholesky" else x.reshape(2, 3)[:, :2].reshape(2, 1, 2).expand(2, 2, 2)
        out = []
        for reg in (lib.distributions.biject_to, lib.distributions.transform_to):
            if constraint == "lower_cholesky" and reg is lib.distributions.biject_to:
                continue
            y = reg(c)(data)
            out += [y, bool(c.check(y).all())]
        return tuple(out)
    compare(build, [X], rtol=1e-6)


def test_transform_equality_inverse_and_cache():
    for lib in (labkit, torch):
        T = lib.distributions.transforms
        e = T.ExpTransform()
        assert e == T.ExpTransform() and e.inv.inv is e and e.inv == T.ExpTransform().inv
        c = T.ExpTransform(cache_size=1)
        x = lib.tensor([0.5])
        y = c(x)
        assert c(x) is y and c.inv(y) is x
        with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
            T.ExpTransform(cache_size=2)
        assert repr(T.ComposeTransform([e, T.TanhTransform()])).startswith("ComposeTransform(")
        assert T.identity_transform(x) is x
    with pytest.raises(ValueError, match="transforms must be a Transform"):
        labkit.distributions.TransformedDistribution(labkit.distributions.Normal(0.0, 1.0), 3)
