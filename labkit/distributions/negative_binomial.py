"""NegativeBinomial(total_count, probs=|logits=): failures before total_count successes,
sampled as Poisson(Gamma(total_count, odds))."""
from ..engine import Size
from ..engine.grad_mode import no_grad
from ..nn import functional as F
from . import constraints
from ._random import poisson
from .binary_param import BinaryParam
from .distribution import Distribution
from .gamma import Gamma
from .utils import lazy_property


class NegativeBinomial(BinaryParam, Distribution):
    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        super().__init__(self._init_param(probs, logits, total_count),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(NegativeBinomial, _instance)
        self._expand_param(new, batch_shape)
        super(NegativeBinomial, new).__init__(Size(batch_shape), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.total_count * self.logits.exp()

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / (-self.logits).sigmoid()

    @lazy_property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=(-self.logits).exp(),
                     validate_args=False)

    def sample(self, sample_shape=Size()):
        with no_grad():
            return poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = (self.total_count * F.logsigmoid(-self.logits)
                                 + value * F.logsigmoid(self.logits))
        log_normalization = (-(self.total_count + value).lgamma() + (1.0 + value).lgamma()
                             + self.total_count.lgamma())
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
