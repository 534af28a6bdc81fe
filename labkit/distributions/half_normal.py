"""HalfNormal(scale) = |Normal(0, scale)| and the folding they share with HalfCauchy."""
import math
from ..engine.ops.select import where
from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform


class _Folded(TransformedDistribution):
    """|base| for a base symmetric about 0 with the given scale: the density doubles on
    [0, inf), the cdf is 2 F - 1, the entropy loses log 2."""
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, base_dist, validate_args=None):
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(type(self), _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return self.scale.new_zeros(self.scale.shape)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return where(value >= 0, log_prob, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class HalfNormal(_Folded):
    def __init__(self, scale, validate_args=None):
        super().__init__(Normal(0, scale, validate_args=False), validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)
