"""Randomised activations and SELU's dropout: rrelu (a random leaky slope per element while
training, their mean in evaluation) and alpha_dropout / feature_alpha_dropout (dropped values
set to SELU's negative saturation, then an affine map that keeps mean 0 and variance 1)."""
from ..engine.creation import bernoulli_mask, empty
from .functional import leaky_relu

_ALPHA = 1.7580993408473766        # -SELU's scale * alpha: the value SELU saturates at


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """x where x >= 0, else x * a with a ~ U(lower, upper) per element when training, and
    a = (lower + upper) / 2 in evaluation (a leaky_relu)."""
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    a = empty(tuple(input.shape), dtype=input.dtype, device=input.device).uniform_(lower, upper)
    out = input.where(input >= 0, input * a)
    return input.copy_(out) if inplace else out


def _alpha_dropout(input, p, training, inplace, feature):
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input.numel() == 0:
        return input
    if feature and input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2) if feature else tuple(input.shape)
    keep = bernoulli_mask(shape, 1 - p, input.dtype, input.device)
    a = 1.0 / ((_ALPHA * _ALPHA * p + 1) * (1 - p)) ** 0.5
    b = (keep - 1) * (_ALPHA * a) + _ALPHA * a * p
    out = input * (keep * a) + b
    return input.copy_(out) if inplace else out


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _alpha_dropout(input, p, training, inplace, False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _alpha_dropout(input, p, training, inplace, True)
