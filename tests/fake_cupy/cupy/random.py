"""Fake cupy.random (test double): numpy's random functions, results on the fake device."""
import numpy as _np

from . import _function


class Generator:
    def __init__(self, bit_generator):
        self._g = _np.random.default_rng(bit_generator)

    def __getattr__(self, name):
        return _function(getattr(self._g, name))


class RandomState(Generator):
    def __init__(self, seed=None):
        self._g = _np.random.RandomState(seed)


def default_rng(seed=None):
    return Generator(seed)


def __getattr__(name):
    if name.startswith("__") or not hasattr(_np.random, name):
        raise AttributeError(f"module 'cupy.random' has no attribute '{name}' (fake cupy)")
    return _function(getattr(_np.random, name))
