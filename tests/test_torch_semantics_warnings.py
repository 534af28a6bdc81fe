"""Where torch silently gives inf or nan (log(0), 1/0, 0/0, overflow, the mean of nothing),
labkit gives the same values without numpy's RuntimeWarnings; where torch warns (var/std with
no degrees of freedom), labkit gives torch's UserWarning, not numpy's."""
import warnings

import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")

CASES = {
    "log": lambda lib: lib.tensor([0.0, -1.0, 2.0]).log(),
    "div": lambda lib: lib.tensor(1.0) / lib.tensor([0.0, -0.0, 2.0]),
    "zero_div": lambda lib: lib.tensor([0.0, 1.0]) / 0,
    "sqrt": lambda lib: lib.tensor([-1.0, 4.0]).sqrt(),
    "exp": lambda lib: lib.tensor([1000.0]).exp(),
    "pow": lambda lib: lib.tensor([0.0, 2.0]) ** -1,
    "cosh": lambda lib: lib.tensor([1000.0]).cosh(),
    "half_overflow": lambda lib: lib.tensor([60000.0], dtype=lib.float16) * 2,
    "mean_empty": lambda lib: lib.zeros(0).mean(),
    "mean_empty_dim": lambda lib: lib.zeros(2, 0).mean(1),
    "softmax_all_masked": lambda lib: lib.tensor([float("-inf")] * 2).softmax(0),
    "logsumexp_all_masked": lambda lib: lib.tensor([float("-inf")] * 2).logsumexp(0),
    "inf_times_zero": lambda lib: lib.tensor([0.0]) * float("inf"),
    "log_tril_mask": lambda lib: lib.log(lib.tril(lib.ones(3, 3))),
    "log_grad": lambda lib: _grad(lib, lambda x: x.log(), [0.0]),
    "sqrt_grad": lambda lib: _grad(lib, lambda x: x.sqrt(), [0.0]),
    "reciprocal_grad": lambda lib: _grad(lib, lambda x: 1 / x, [0.0]),
}


def _grad(lib, f, values):
    x = lib.tensor(values, requires_grad=True)
    f(x).sum().backward()
    return x.grad


def run(lib, make):
    with warnings.catch_warnings(record=True) as caught:
        labkit._runtime.quiet_numpy_float_warnings()   # pytest resets the filters set at import
        out = make(lib)
    return out, [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_values_and_no_numpy_warning(name):
    mine, mine_warnings = run(labkit, CASES[name])
    theirs, their_warnings = run(torch, CASES[name])
    np.testing.assert_array_equal(mine.detach().numpy(), theirs.detach().numpy())
    assert mine_warnings == their_warnings == []


@pytest.mark.parametrize("make", [lambda lib: lib.ones(1).var(), lambda lib: lib.ones(2, 1).std(dim=1),
                                  lambda lib: lib.zeros(0).var(), lambda lib: lib.ones(3).var(correction=3)])
def test_no_degrees_of_freedom_warns_like_torch(make):
    mine, mine_warnings = run(labkit, make)
    theirs, their_warnings = run(torch, make)
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())
    assert [c for c, _ in mine_warnings] == [UserWarning]
    assert mine_warnings[0][1] in their_warnings[0][1]      # torch appends "(Triggered internally ...)"


def test_a_programs_own_numpy_code_still_warns():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.log(np.zeros(1))
    assert [w.category for w in caught] == [RuntimeWarning]
