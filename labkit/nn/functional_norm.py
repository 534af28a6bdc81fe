"""Normalisations as functions: layer_norm, group_norm, instance_norm, normalize (and prelu,
whose per-channel weight broadcasts the same way).

layer_norm and group_norm are one op each, as torch's (native_norm.py); instance_norm is, as
in torch, a batch norm of a view. normalize divides by a vector norm whose gradient is defined as torch's (zero) for a zero
vector, where the plain formula x / |x| would give nan.
"""
import math

from ..engine.autocast import autocast_op
from ..engine.function import Function
from ..engine.ops.native_norm import NativeBatchNorm, NativeGroupNorm, NativeLayerNorm
from ..engine.ops.select import where


@autocast_op("layer_norm")
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise each example over its last len(normalized_shape) dims (mean 0, variance 1),
    then scale by weight and shift by bias (both of normalized_shape)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    if k == 0 or tuple(input.shape[input.ndim - k:]) != shape or input.ndim < k:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and tuple(p.shape) != shape:
            raise RuntimeError(f"layer_norm: expected {name} to be of same shape as "
                               f"normalized_shape, but got {name} of shape {list(p.shape)} and "
                               f"normalized_shape = {list(shape)}")
    return NativeLayerNorm.apply(input, weight, bias, k, eps)


@autocast_op("group_norm")
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalise each example's channels in num_groups groups (over the group's channels and
    all spatial positions), then scale and shift per channel. Independent of the batch size."""
    if input.ndim >= 2:       # torch's _verify_batch_size: one value per group is an error
        size = [input.shape[0] * input.shape[1] // num_groups, num_groups, *input.shape[2:]]
        if size[0] * math.prod(size[2:]) == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {size}")
    if input.ndim < 2 or input.shape[1] % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")
    return NativeGroupNorm.apply(input, weight, bias, num_groups, eps)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalise each channel of each example over its spatial positions: as torch, a batch
    norm of the (1, N * C, ...) view, whose channels are the examples' channels."""
    if running_mean is not None or not use_input_stats:
        raise NotImplementedError("instance_norm: running statistics are not supported by "
                                  "labkit; use track_running_stats=False.")
    n, c = input.shape[:2]
    x = input.reshape(1, n * c, *input.shape[2:])
    w = None if weight is None else weight.repeat(n)
    b = None if bias is None else bias.repeat(n)
    return NativeBatchNorm.apply(x, w, b, None, eps).reshape(input.shape)


class _Norm(Function):
    """The p-norm along dim, kept as a size-1 dim. Its gradient at a zero vector is zero."""
    node_name = "NormBackward1"

    @staticmethod
    def forward(ctx, x, p, dim):
        xp = x.device.xp
        a = xp.abs(x._data)
        norm = (a ** p).sum(axis=dim, keepdims=True) ** (1.0 / p) if p != 1 else \
            a.sum(axis=dim, keepdims=True)
        ctx.save_for_backward(x, norm)
        ctx.p = p
        return norm

    @staticmethod
    def backward(ctx, grad):
        x, norm = ctx.saved_tensors
        p = ctx.p
        nonzero = norm != 0
        safe = where(nonzero, norm, 1.0)
        if p == 1:
            slope = x.sign()
        elif p == 2:
            slope = x / safe
        else:
            slope = x.sign() * (x.abs() / safe).pow(p - 1)
        return grad * slope * nonzero, None, None


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p, eps) along dim: unit vectors (a zero vector stays zero)."""
    if out is not None:
        raise NotImplementedError("normalize: out= is not supported by labkit; assign the "
                                  "result instead.")
    nd = max(input.ndim, 1)
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, "
                         f"{nd - 1}], but got {dim})")
    if not p > 0 or p == float("inf"):
        raise NotImplementedError(f"normalize: labkit supports finite p > 0, got p={p}.")
    return input / _Norm.apply(input, float(p), dim % nd).clamp(min=eps)


@autocast_op("prelu")
def prelu(input, weight):
    """x where x > 0, else weight * x, with a learned slope (one, or one per channel, dim 1)."""
    if weight.numel() != 1:
        channels = input.shape[1] if input.ndim >= 2 else None
        if weight.ndim != 1 or channels != weight.shape[0]:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {weight.numel()} and channel size = "
                               f"{channels}.")
        weight = weight.reshape((-1,) + (1,) * (input.ndim - 2))
    return where(input > 0, input, weight * input)
