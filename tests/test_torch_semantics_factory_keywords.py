"""Factories called with torch's keyword names (torch.arange(start=0, end=10, step=1) from the
ZTM course, arange(end=3), zeros(size=...), randint(low=, high=, size=) ...): the keyword layer
reads the parameter names through pass-through decorators (the allocation-error wrapper's
*args hid them, so start= collided with a translated end=); values, shapes and dtypes as torch."""
import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")

CASES = [
    lambda t: t.arange(start=0, end=10, step=1),
    lambda t: t.arange(end=3),
    lambda t: t.arange(2, end=6),
    lambda t: t.arange(start=1, end=2.5, step=0.5),
    lambda t: t.arange(0, 10, step=3),
    lambda t: t.arange(5),
    lambda t: t.zeros(size=(2, 3)),
    lambda t: t.full(size=(2,), fill_value=3.0),
    lambda t: t.linspace(start=0, end=1, steps=3),
    lambda t: t.eye(n=2, m=3),
    lambda t: t.ones(size=[2]),
    lambda t: t.arange(3, out=t.empty(3, dtype=t.long)),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_matches_torch(i):
    t, m = CASES[i](torch), CASES[i](labkit)
    assert tuple(m.shape) == tuple(t.shape)
    assert str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    np.testing.assert_array_equal(m.numpy(), t.numpy())


def test_random_factories_take_keywords():
    for lib in (torch, labkit):
        assert tuple(lib.randint(low=0, high=3, size=(2,)).shape) == (2,)
        assert tuple(lib.randn(size=(2, 2)).shape) == (2, 2)
        assert tuple(lib.randperm(n=3).shape) == (3,)
