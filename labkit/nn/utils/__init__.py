"""labkit.nn.utils: helpers around training (torch.nn.utils)."""
from . import rnn  # noqa: F401
from .clip_grad import clip_grad_norm_

__all__ = ["clip_grad_norm_", "rnn"]
