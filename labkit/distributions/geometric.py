"""Geometric(probs=) or (logits=): the number of failures before the first success."""
from ..engine import Size
from ..engine.creation import empty
from ..engine.grad_mode import no_grad
from ..engine.typeinfo import finfo
from ..nn import functional as F
from . import constraints
from .binary_param import BinaryParam
from .distribution import Distribution
from .utils import broadcast_all


class Geometric(BinaryParam, Distribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        super().__init__(self._init_param(probs, logits), validate_args=validate_args)
        if self._validate_args and probs is not None:
            value = self.probs
            valid = value > 0
            if not bool(valid.all()):
                raise ValueError(f"Expected parameter probs ({type(value).__name__} of shape "
                                 f"{tuple(value.shape)}) of distribution {self!r} to be positive "
                                 f"but found invalid values:\n{value.detach()[~valid]}")

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Geometric, _instance)
        self._expand_param(new, batch_shape)
        super(Geometric, new).__init__(Size(batch_shape), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return self.probs.new_zeros(self.probs.shape)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        tiny = finfo(self.probs.dtype).tiny
        with no_grad():
            u = empty(shape, dtype=self.probs.dtype, device=self.probs.device).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone()
        probs[(probs == 1) & (value == 0)] = 0
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs,
                                                  reduction="none") / self.probs
