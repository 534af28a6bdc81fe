"""AlphaDropout and FeatureAlphaDropout: the dropout that goes with SELU networks. Dropped
values are set to SELU's negative saturation value and the result is shifted and scaled so
mean and variance stay those of the input (a self-normalising network stays normalised)."""
from . import functional as F
from .dropout import Dropout


class AlphaDropout(Dropout):
    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(Dropout):
    """Drops whole channels (as Dropout2d) the AlphaDropout way."""

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
