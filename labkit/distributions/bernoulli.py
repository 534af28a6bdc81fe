"""Bernoulli(probs=) or (logits=): a 0/1 outcome, with log_prob through BCE-with-logits."""
from ..engine import Size
from ..engine.ops.sampling import bernoulli
from ..nn import functional as F
from . import constraints
from .exp_family import ExponentialFamily
from .binary_param import BinaryParam
from .utils import broadcast_all


class Bernoulli(BinaryParam, ExponentialFamily):
    has_enumerate_support = True
    support = constraints.boolean
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        super().__init__(self._init_param(probs, logits), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Bernoulli, _instance)
        self._expand_param(new, batch_shape)
        super(Bernoulli, new).__init__(Size(batch_shape), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        mode[self.probs == 0.5] = float("nan")
        return mode

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        from ..engine.grad_mode import no_grad
        with no_grad():
            return bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        from ..engine.creation import arange
        values = arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    @property
    def _natural_params(self):
        return (self.probs / (1 - self.probs)).log(),

    def _log_normalizer(self, x):
        return x.exp().log1p()
