"""Channel dropout (dropout1d/2d/3d): zero whole feature maps, not single elements.

Neighbouring pixels of a feature map are strongly correlated, so zeroing single ones barely
regularises a convolutional net; zeroing a whole channel (each with probability p, scaling the
rest by 1/(1-p)) does.
"""


def _channel_dropout(name, k, input, p, training, inplace):
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (k + 1, k + 2):
        raise RuntimeError(f"{name}: expected a {k + 1}-D (C, ...) or {k + 2}-D (N, C, ...) "
                           f"input, got shape {tuple(input.shape)}.")
    if not training or p == 0:
        return input
    spatial = input.ndim - k
    from .functional import _keep_mask
    mask = _keep_mask(input, tuple(input.shape[:spatial]) + (1,) * k, p)
    return input.mul_(mask) if inplace else input * mask


def dropout1d(input, p=0.5, training=True, inplace=False):
    return _channel_dropout("dropout1d", 1, input, p, training, inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero each channel of an (N, C, H, W) or (C, H, W) input with probability p."""
    return _channel_dropout("dropout2d", 2, input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    return _channel_dropout("dropout3d", 3, input, p, training, inplace)
