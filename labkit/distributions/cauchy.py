"""Cauchy(loc, scale): heavy tails, no mean or variance (nan and inf, as torch)."""
import math
import numbers

from ..engine import Size
from ..engine.creation import empty
from ..engine.grad_mode import no_grad
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all


class Cauchy(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            batch_shape = Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Cauchy, _instance)
        batch_shape = Size(batch_shape)
        new.loc, new.scale = self.loc.expand(batch_shape), self.scale.expand(batch_shape)
        super(Cauchy, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.loc.new_full(self._extended_shape(), float("nan"))

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self.loc.new_full(self._extended_shape(), float("inf"))

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with no_grad():      # torch's cauchy_: tan(pi (u - 1/2))
            u = empty(shape, dtype=self.loc.dtype, device=self.loc.device).uniform_()
            eps = (math.pi * (u - 0.5)).tan()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value):
        return (math.pi * (value - 0.5)).tan() * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
