"""torch.special.gammainc / gammaincc (torch.igamma / igammac) against torch: values over a
wide range of a and x (series and continued-fraction regions), the edge values (a = 0, x = 0,
x = inf, negative arguments -> nan), the gradient in x, torch's missing gradient in a, integer
errors; and Gamma.cdf / Chi2.cdf built on them."""
import numpy as np
import pytest

import labkit
from conftest import check_op

torch = pytest.importorskip("torch")


def test_values_over_a_wide_range(device):
    r = np.random.default_rng(0)
    a = np.exp(r.uniform(np.log(0.01), np.log(500), 300))
    x = a * np.exp(r.uniform(-3, 2, 300))
    for name in ("gammainc", "gammaincc"):
        check_op(lambda a, x: getattr(labkit.special, name)(a, x),
                 lambda a, x: getattr(torch.special, name)(a, x), [a, x],
                 requires_grad=[False, True], rtol=1e-8, atol=1e-13, device=device)


def test_edges_methods_and_dtypes():
    a = np.array([0.0, 1.0, -1.0, 0.5, 3.0, 2.0, np.nan])
    x = np.array([1.0, 0.0, 1.0, np.inf, -1.0, np.nan, 1.0])
    for fn in ("igamma", "igammac"):
        got = getattr(labkit, fn)(labkit.tensor(a), labkit.tensor(x))
        ref = getattr(torch, fn)(torch.tensor(a), torch.tensor(x))
        np.testing.assert_array_equal(got.numpy(), ref.numpy())
        got = getattr(labkit.tensor(a, dtype=labkit.float32), fn)(labkit.tensor(x, dtype=labkit.float32))
        assert got.dtype == labkit.float32
    for lib in (labkit, torch):
        with pytest.raises(NotImplementedError, match="igamma_cpu"):
            lib.special.gammainc(lib.tensor([1, 2]), lib.tensor([1, 2]))
        a_ = lib.tensor([2.0], requires_grad=True)
        with pytest.raises(NotImplementedError, match="the derivative for 'igamma: input'"):
            lib.special.gammainc(a_, lib.tensor([1.0])).sum().backward()


def test_gamma_and_chi2_cdf():
    conc, rate = np.array([0.5, 2.0, 30.0]), np.array([1.0, 0.5, 3.0])
    x = np.array([0.3, 4.0, 9.0])
    check_op(lambda c, r, v: labkit.distributions.Gamma(c, r).cdf(v),
             lambda c, r, v: torch.distributions.Gamma(c, r).cdf(v), [conc, rate, x],
             requires_grad=[False, True, True], rtol=1e-9)
    check_op(lambda k, v: labkit.distributions.Chi2(k).cdf(v),
             lambda k, v: torch.distributions.Chi2(k).cdf(v), [conc * 2, x],
             requires_grad=[False, True], rtol=1e-9)
