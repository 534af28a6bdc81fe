"""nn.RReLU: leaky ReLU whose negative slope is drawn uniformly from [lower, upper] per
element in training (a regulariser), and fixed at their mean in eval."""
from . import functional as F
from .module import Module


class RReLU(Module):
    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace
                                                             else "")
