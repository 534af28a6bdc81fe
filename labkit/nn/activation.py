"""Activation layers: the nonlinearities between linear layers, as modules for Sequential."""
from . import functional as F
from .module import Module


class ReLU(Module):
    """max(x, 0)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return input.relu_() if self.inplace else input.relu()

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """x for x > 0, negative_slope * x otherwise: negative inputs keep a small gradient."""

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        if inplace:
            raise NotImplementedError("LeakyReLU(inplace=True) is not supported by labkit; "
                                      "use the default inplace=False.")
        self.negative_slope = negative_slope

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}"


class Sigmoid(Module):
    """1 / (1 + exp(-x)), in (0, 1)."""

    def forward(self, input):
        return input.sigmoid()


class Tanh(Module):
    def forward(self, input):
        return input.tanh()


class GELU(Module):
    """x * Phi(x) (Phi the normal CDF), smooth ReLU of transformers; approximate='tanh' gives
    the faster tanh form."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate='{self.approximate}'"


class Softmax(Module):
    """exp(x) / sum(exp(x)) along dim: turns scores into probabilities. For training use
    CrossEntropyLoss on the raw scores instead (it includes a stable log-softmax)."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, dim=self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"
