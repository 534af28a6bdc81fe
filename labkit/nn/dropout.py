"""Dropout: a regulariser that zeroes random units while training (and only then)."""
from . import functional as F
from .module import Module


class Dropout(Module):
    """Zero each element with probability p in training mode (scaling the rest by 1/(1-p));
    in eval mode it passes the input through. model.eval() switches it off."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(Dropout):
    """Zero whole channels of (N, C, L) inputs: see Dropout2d."""

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(Dropout):
    """Zero whole channels (feature maps) of (N, C, H, W) inputs with probability p: for
    convolutional layers, whose neighbouring pixels are too correlated for Dropout to help."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(Dropout):
    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)
