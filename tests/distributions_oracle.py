"""Helpers for the torch.distributions oracle tests: build one distribution on labkit and on
torch from the same float64 parameters, and compare what it computes (values and gradients)."""
import numpy as np
import pytest

import labkit
from conftest import check_op

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def validation_on():
    """torch.compile (dynamo, used by other tests) turns torch's argument validation off for
    the whole process: compare with it on, as a fresh torch has it."""
    before = torch.distributions.Distribution._validate_args
    torch.distributions.Distribution.set_default_validate_args(True)
    yield
    torch.distributions.Distribution.set_default_validate_args(before)


PROPERTIES = ("mean", "variance", "stddev", "mode")


def outputs(d, value=None, props=PROPERTIES, entropy=True, cdf=False, icdf=None):
    """The numbers a distribution gives: its properties, entropy, log_prob/cdf at value, icdf."""
    out = [getattr(d, p) for p in props]
    if entropy:
        out.append(d.entropy())
    if value is not None:
        out.append(d.log_prob(value))
        if cdf:
            out.append(d.cdf(value))
    if icdf is not None:
        out.append(d.icdf(icdf))
    return tuple(out)


def compare(build, arrays, requires_grad=None, rtol=1e-7, atol=1e-10):
    """build(lib, *tensors) -> outputs, run on labkit and torch twins of `arrays`: values,
    dtypes, shapes and gradients (a random upstream gradient) must agree."""
    return check_op(lambda *a: build(labkit, *a), lambda *a: build(torch, *a), arrays,
                    requires_grad=requires_grad, rtol=rtol, atol=atol)


def same_error(build, match=None):
    """build(lib) raises the same exception type (and, if given, message) on both."""
    errors = []
    for lib in (labkit, torch):
        with pytest.raises(Exception) as info:
            build(lib)
        errors.append(info.value)
    assert type(errors[0]) is type(errors[1]), (errors[0], errors[1])
    if match is not None:
        for e in errors:
            assert match in str(e), str(e)
    return errors


def rng(seed=0):
    return np.random.default_rng(seed)
