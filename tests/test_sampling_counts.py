"""torch.poisson and torch.binomial: shapes, dtypes, the zero gradient and errors as torch;
the draws' mean and variance (not torch's numbers: labkit's generator) within statistical
bounds, and reproducible from a seed."""
import numpy as np
import pytest

import labkit
from snippets import check

pytest.importorskip("torch")


@pytest.mark.parametrize("code", [
    "L.poisson(L.tensor([1., 5., 0.])).shape", "L.poisson(L.zeros(2, 3, dtype=L.float64)).dtype",
    "L.poisson(L.zeros(0))", "L.poisson(L.tensor([-1.]))", "L.poisson(L.tensor([1, 2]))",
    "L.binomial(L.tensor([10., 5.]), L.tensor([1., 0.]))",
    "L.binomial(L.tensor([3, 2]), L.tensor([0.5, 0.5]))",
])
def test_forms_and_errors(code):
    check(f"out = {code}")


def test_zero_gradient():
    check("r = L.tensor([1., 2.], requires_grad=True); leaves = [r]; "
          "out = (L.poisson(r) * 0 + r.detach(), L.poisson(r).requires_grad)")
    r = labkit.tensor([1., 2.], requires_grad=True)
    labkit.poisson(r).sum().backward()
    assert r.grad.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("rate", [0.3, 3.0, 40.0])
def test_poisson_moments_and_seed(rate):
    labkit.manual_seed(5)
    a = labkit.poisson(labkit.full((40000,), rate)).numpy()
    labkit.manual_seed(5)
    b = labkit.poisson(labkit.full((40000,), rate)).numpy()
    assert np.array_equal(a, b) and np.all(a == np.round(a)) and a.min() >= 0
    se = np.sqrt(rate / a.size)
    assert abs(a.mean() - rate) < 5 * se
    assert abs(a.var() / rate - 1) < 0.05


def test_binomial_moments():
    labkit.manual_seed(1)
    n, p = labkit.full((40000,), 12.0), labkit.full((40000,), 0.25)
    a = labkit.binomial(n, p).numpy()
    assert a.min() >= 0 and a.max() <= 12
    assert abs(a.mean() - 3.0) < 5 * np.sqrt(12 * 0.25 * 0.75 / a.size)
