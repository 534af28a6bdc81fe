"""labkit.autograd.variable (torch.autograd.variable): where the deprecated Variable lives."""
from ..legacy import Variable  # noqa: F401
