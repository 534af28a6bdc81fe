"""Activation layers: the nonlinearities between linear layers, as modules for Sequential."""
from ..engine.creation import full
from . import functional as F
from .module import Module
from .parameter import Parameter


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
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


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


class LogSoftmax(Softmax):
    """log(softmax(x)) along dim, computed stably; pair it with NLLLoss."""

    def forward(self, input):
        return F.log_softmax(input, dim=self.dim)


class Softmin(Softmax):
    """softmax(-x) along dim."""

    def forward(self, input):
        return F.softmin(input, dim=self.dim)


class _Simple(Module):
    """An activation without settings beyond inplace: forward is F.<_fn>(input)."""
    _fn = None
    _inplace_arg = True

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        fn = getattr(F, self._fn)
        return fn(input, inplace=self.inplace) if self._inplace_arg else fn(input)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class SiLU(_Simple):
    """x * sigmoid(x) (swish)."""
    _fn = "silu"


class Mish(_Simple):
    """x * tanh(softplus(x))."""
    _fn = "mish"


class ReLU6(_Simple):
    """min(max(x, 0), 6)."""
    _fn = "relu6"


class SELU(_Simple):
    """ELU scaled so activations keep mean 0, variance 1 through deep nets."""
    _fn = "selu"


class Hardsigmoid(_Simple):
    _fn = "hardsigmoid"


class Hardswish(_Simple):
    _fn = "hardswish"


class LogSigmoid(_Simple):
    """log(sigmoid(x)), finite for any x."""
    _fn, _inplace_arg = "logsigmoid", False

    def __init__(self):
        super().__init__()


class Softsign(LogSigmoid):
    _fn = "softsign"


class Tanhshrink(LogSigmoid):
    _fn = "tanhshrink"


class ELU(Module):
    """x for x > 0, alpha * (exp(x) - 1) otherwise: smooth, with negative outputs."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class CELU(ELU):
    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class Softplus(Module):
    """log(1 + exp(beta x)) / beta: a smooth ReLU (linear above threshold)."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Module):
    """x clipped to [min_val, max_val]."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        if min_val > max_val:
            raise ValueError("min_val cannot be greater than max_val")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return (f"min_val={self.min_val}, max_val={self.max_val}"
                + (", inplace=True" if self.inplace else ""))


class GLU(Module):
    """a * sigmoid(b) for the two halves a, b of the input along dim."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class PReLU(Module):
    """LeakyReLU with a learned negative slope: one, or one per channel (num_parameters = C)."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(full((num_parameters,), init, device=device, dtype=dtype))

    def reset_parameters(self):
        self.weight.data.fill_(self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"
