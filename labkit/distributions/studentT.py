"""StudentT(df, loc, scale): rsample = loc + scale * N / sqrt(Chi2(df) / df)."""
import math

from ..engine import Size
from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import _standard_normal, broadcast_all


class StudentT(Distribution):
    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = Size(batch_shape)
        new.df = self.df.expand(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        super(StudentT, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        m = self.loc.clone()
        m[self.df <= 1] = float("nan")
        return m

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        m = self.df.clone()
        big = self.df > 2
        m[big] = self.scale[big].pow(2) * self.df[big] / (self.df[big] - 2)
        m[(self.df <= 2) & (self.df > 1)] = math.inf
        m[self.df <= 1] = float("nan")
        return m

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        X = _standard_normal(shape, dtype=self.df.dtype, device=self.df.device)
        Z = self._chi2.rsample(sample_shape)
        Y = X * (Z / self.df).rsqrt()
        return self.loc + self.scale * Y

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        Z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
             + (0.5 * self.df).lgamma() - (0.5 * (self.df + 1.0)).lgamma())
        return -0.5 * (self.df + 1.0) * (y ** 2.0 / self.df).log1p() - Z

    def entropy(self):
        lbeta = (0.5 * self.df).lgamma() + math.lgamma(0.5) - (0.5 * (self.df + 1)).lgamma()
        return (self.scale.log()
                + 0.5 * (self.df + 1) * ((0.5 * (self.df + 1)).digamma() - (0.5 * self.df).digamma())
                + 0.5 * self.df.log() + lbeta)
