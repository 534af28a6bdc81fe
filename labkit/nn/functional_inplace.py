"""The in-place and older spellings of F functions that torch keeps: F.relu_(x), F.elu_(x)
... (x changed and returned, as F.relu(x, inplace=True)), upsample_nearest/upsample_bilinear
(deprecated: interpolate with mode='nearest', or 'bilinear' with align_corners=True), and
channel_shuffle (ShuffleNet's mixing of grouped channels)."""
import warnings

from ..engine.ops.aliases import _copy_in


def _F():
    from . import functional
    return functional


def elu_(input, alpha=1.0):
    return _copy_in(input, _F().elu(input.clone(), alpha), "elu_")


def selu_(input):
    return _copy_in(input, _F().selu(input.clone()), "selu_")


def celu_(input, alpha=1.0):
    return _copy_in(input, _F().celu(input.clone(), alpha), "celu_")


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return _copy_in(input, _F().hardtanh(input.clone(), min_val, max_val), "hardtanh_")


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return _copy_in(input, _F().rrelu(input.clone(), lower, upper, training), "rrelu_")


def relu_(input):
    return input.relu_()


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: F.interpolate(input, size, scale_factor, mode='nearest')."""
    interpolate = _F().interpolate
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", UserWarning, stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: F.interpolate(..., mode='bilinear', align_corners=True)."""
    interpolate = _F().interpolate
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", UserWarning, stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def channel_shuffle(input, groups):
    """(N, C, *) with the C channels, seen as groups x (C / groups), transposed to
    (C / groups) x groups: each group's next layer sees channels from every group."""
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    n, c = input.shape[0], input.shape[1]
    if groups <= 0 or c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    rest = tuple(input.shape[2:])
    return input.reshape((n, groups, c // groups) + rest).transpose(1, 2) \
        .reshape((n, c) + rest)


native_channel_shuffle = channel_shuffle
