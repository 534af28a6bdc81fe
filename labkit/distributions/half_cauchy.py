"""HalfCauchy(scale) = |Cauchy(0, scale)|."""
import math
from ..engine.creation import as_tensor
from .cauchy import Cauchy
from .half_normal import _Folded


class HalfCauchy(_Folded):
    def __init__(self, scale, validate_args=None):
        super().__init__(Cauchy(0, scale, validate_args=False), validate_args=validate_args)

    @property
    def mean(self):
        return self.scale.new_full(self._extended_shape(), math.inf)

    @property
    def variance(self):
        return self.base_dist.variance

    def log_prob(self, value):
        """A number or array value is read in the scale's dtype and device, as torch's."""
        return super().log_prob(as_tensor(value, dtype=self.scale.dtype,
                                          device=self.scale.device))
