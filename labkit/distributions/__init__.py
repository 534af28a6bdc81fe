"""torch.distributions, the part course programs use: Categorical and Bernoulli for policy
gradients, Normal and Uniform for VAEs and noise, Independent, kl_divergence.

Each distribution is written with Tensor ops, as torch writes it, so log_prob, entropy, rsample
and kl_divergence carry gradients, and samples draw from labkit's generator in torch's order
(torch.multinomial, torch.normal, torch.bernoulli, torch.rand), giving torch's numbers for a seed.
"""
from .distribution import Distribution  # noqa: F401
from .bernoulli import Bernoulli  # noqa: F401
from .categorical import Categorical  # noqa: F401
from .independent import Independent  # noqa: F401
from .kl import kl_divergence, register_kl  # noqa: F401
from .normal import Normal  # noqa: F401
from .uniform import Uniform  # noqa: F401
from ..engine.unsupported import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__, "torch.distributions")
