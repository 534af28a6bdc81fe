"""The probs= / logits= parameterization that Bernoulli, Binomial, NegativeBinomial, Geometric,
ContinuousBernoulli and LogitRelaxedBernoulli share: exactly one is given, the other is
computed from it when first read (torch's lazy_property pairs)."""
from ..engine import Size
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits


class BinaryParam:
    def _init_param(self, probs, logits, total_count=None):
        """Store the given parameter (and total_count, broadcast with it, in its dtype);
        return the batch shape."""
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name, given = ("probs", probs) if probs is not None else ("logits", logits)
        if total_count is None:
            (value,) = broadcast_all(given)
        else:
            count, value = broadcast_all(total_count, given)
            self.total_count = count.type_as(value)
        setattr(self, name, value)
        self._param = value
        return value.size()

    def _expand_param(self, new, batch_shape):
        """Give `new` (self expanded to batch_shape) self's parameters, expanded."""
        for name in ("total_count", "probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(Size(batch_shape)))
        new._param = new.__dict__.get("logits", new.__dict__.get("probs"))

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()
