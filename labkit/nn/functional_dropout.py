"""Channel dropout (dropout1d/2d/3d): zero whole feature maps, not single elements.

Neighbouring pixels of a feature map are strongly correlated, so zeroing single ones barely
regularises a convolutional net; zeroing a whole channel (each with probability p, scaling the
rest by 1/(1-p)) does. All three are torch's feature dropout: the mask has shape
(N, C, 1, ..., 1) whatever the rank, so dropout2d of a 2-D (N, C) input drops single elements
and of a 3-D input drops (N, C, L) rows, as torch does (it warns that these ranks are deprecated).
"""
import warnings


def _feature_dropout(input, p, training, inplace):
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input.numel() == 0:
        return input
    if input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    from .functional import _keep_mask
    mask = _keep_mask(input, tuple(input.shape[:2]) + (1,) * (input.ndim - 2), p)
    return input.mul_(mask) if inplace else input * mask


def _unbatched(run, input, batched, inplace):
    """Feature dropout of an unbatched input: add the batch dim, drop, take it off again."""
    if batched:
        return run(input)
    out = run(input.unsqueeze_(0) if inplace else input.unsqueeze(0))
    return out.squeeze_(0) if inplace else out.squeeze(0)


def _warn_rank(name, k, input):
    warnings.warn(f"{name}: Received a {input.ndim}-D input to {name}, which is deprecated and "
                  f"will result in an error in a future release. To retain the behavior and "
                  f"silence this warning, please use dropout instead. Note that {name} exists to "
                  f"provide channel-wise dropout on inputs with {k} spatial dimensions, a channel "
                  f"dimension, and an optional batch dimension (i.e. {k + 1}D or {k + 2}D "
                  f"inputs).", stacklevel=3)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero each channel of an (N, C, L) or (C, L) input with probability p."""
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D "
                           f"input. Note that dropout1d exists to provide channel-wise dropout "
                           f"on inputs with 1 spatial dimension, a channel dimension, and an "
                           f"optional batch dimension (i.e. 2D or 3D inputs).")
    return _unbatched(lambda x: _feature_dropout(x, p, training, inplace), input,
                      input.ndim == 3, inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero each channel of an (N, C, H, W) input with probability p (a 3-D input is read as
    (N, C, L), as torch still does)."""
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (3, 4):
        _warn_rank("dropout2d", 2, input)
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero each channel of an (N, C, D, H, W) or (C, D, H, W) input with probability p."""
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (4, 5):
        _warn_rank("dropout3d", 3, input)
    return _unbatched(lambda x: _feature_dropout(x, p, training, inplace), input,
                      input.ndim == 5, inplace)
