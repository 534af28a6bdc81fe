"""Weibull(scale, concentration) = scale * Exponential(1)^(1/concentration), as a
TransformedDistribution."""
from ..engine import Size
from . import constraints
from .exponential import Exponential
from .gumbel import euler_constant
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .utils import broadcast_all


class Weibull(TransformedDistribution):
    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base_dist = Exponential(self.scale.new_ones(self.scale.shape), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration_reciprocal),
                      AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Weibull, _instance)
        batch_shape = Size(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        base_dist = self.base_dist.expand(batch_shape)
        transforms = [PowerTransform(exponent=new.concentration_reciprocal),
                      AffineTransform(loc=0, scale=new.scale)]
        super(Weibull, new).__init__(base_dist, transforms, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.scale * (1 + self.concentration_reciprocal).lgamma().exp()

    @property
    def mode(self):
        c = self.concentration
        return self.scale * ((c - 1) / c) ** c.reciprocal()

    @property
    def variance(self):
        r = self.concentration_reciprocal
        return self.scale.pow(2) * ((1 + 2 * r).lgamma().exp() - (2 * (1 + r).lgamma()).exp())

    def entropy(self):
        r = self.concentration_reciprocal
        return euler_constant * (1 - r) + (self.scale * r).log() + 1
