"""Linear (y = x W^T + b) and Identity."""

from ..engine.creation import empty
from ..engine.functional import linear
from ..engine.ops.linear import linear_layer
from ..engine.tensor import Tensor
from . import init
from .module import Module
from .parameter import Parameter


class Identity(Module):
    """Returns its input unchanged: a placeholder, e.g. to cut off a pretrained model's head."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """A fully connected layer: y = x @ weight.T + bias, weight of shape (out, in).

    Initialised as PyTorch does: weight and bias uniform in +-1/sqrt(in_features) (that is
    kaiming_uniform_ with a = sqrt(5)), so the outputs start at a sensible scale."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(empty(out_features, in_features, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.reset_affine_(self.weight, self.bias)

    def forward(self, input):
        p = self._parameters               # read directly: Module.__getattr__ costs 0.4 us each
        if "weight" in p and "bias" in p:  # (not there: a user replaced them with attributes)
            w, b = p["weight"], p["bias"]
            if isinstance(w, Tensor) and (b is None or isinstance(b, Tensor)):
                return linear_layer(input, w, b)
            return linear(input, w, b)
        return linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")
