"""Normalisations as functions: layer_norm, group_norm, instance_norm, normalize (and prelu,
whose per-channel weight broadcasts the same way).

layer_norm and group_norm are one op each, as torch's (native_norm.py); instance_norm is, as
in torch, a batch norm of a view. normalize divides by a vector norm whose gradient is defined as torch's (zero) for a zero
vector, where the plain formula x / |x| would give nan.
"""
import math

from ..engine.autocast import autocast_op
from ..engine.function import Function
from ..engine.grad_mode import no_grad
from ..engine.ops.erf import _quiet
from ..engine.ops.fused_activation import Prelu
from ..engine.ops.native_norm import NativeBatchNorm, NativeGroupNorm, NativeLayerNorm
from ..engine.ops.select import where


@autocast_op("layer_norm")
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise each example over its last len(normalized_shape) dims (mean 0, variance 1),
    then scale by weight and shift by bias (both of normalized_shape)."""
    if isinstance(normalized_shape, int):     # torch's functional takes a shape, not an int
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        f"of ints, not int; write ({normalized_shape},) (nn.LayerNorm takes an "
                        "int).")
    shape = tuple(normalized_shape)
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
    norm of the (1, N * C, ...) view, whose channels are the examples' channels. Running
    statistics (per channel) are updated with the mean over the examples of their statistics,
    and used instead of them when use_input_stats is False."""
    if use_input_stats and math.prod(input.shape[2:]) == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{list(input.shape)}")
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be "
                         "None")
    if not use_input_stats and running_mean is None:
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    n, c = input.shape[:2]
    x = input.reshape(1, n * c, *input.shape[2:])
    w = None if weight is None else weight.repeat(n)
    b = None if bias is None else bias.repeat(n)
    if use_input_stats and running_mean is not None and (n == 0 or x.numel()):
        with no_grad():             # torch: the mean over the N examples (nan for none)
            dims, k = tuple(range(2, input.ndim)), math.prod(input.shape[2:])
            var = input.var(dims, correction=0) * (k / (k - 1))
            running_mean.mul_(1 - momentum).add_(input.mean(dims).mean(0) * momentum)
            running_var.mul_(1 - momentum).add_(var.mean(0) * momentum)
    if not x.numel():
        return empty_batch_norm(x, w, b).reshape(input.shape)
    stats = None if use_input_stats else (running_mean.repeat(n), running_var.repeat(n))
    return NativeBatchNorm.apply(x, w, b, stats, eps).reshape(input.shape)


def empty_batch_norm(input, weight, bias):
    """torch's batch norm of no elements: a copy (so the graph still reaches the input) times
    weight[0] plus bias[0], an IndexError where they are empty too."""
    out = input.clone()
    if weight is not None:
        out = out * weight[0]
    return out if bias is None else out + bias[0]


class _Norm(Function):
    """The p-norm along dim, kept as a size-1 dim (torch's linalg.vector_norm, whose node name
    it has). Its gradient at a zero vector, and at a zero element for p < 1, is zero."""
    node_name = "LinalgVectorNormBackward0"

    @staticmethod
    def forward(ctx, x, p, dim):
        xp = x.device.xp
        a = xp.abs(x._data)
        with _quiet(xp):                # p < 0: |0| ** p is inf, and the norm 0, as torch
            norm = (a ** p).sum(axis=dim, keepdims=True) ** (1.0 / p) if p != 1 else \
                a.sum(axis=dim, keepdims=True)
        norm = norm.astype(a.dtype, copy=False)   # numpy gives float32 for bfloat16 ** float
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
            if p < 1:
                slope = where(x != 0, slope, 0.0)
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
    p, dim = float(p), dim % nd
    if (p < 0 or math.isinf(p)) and input.ndim and input.shape[dim] == 0:
        raise RuntimeError(f"normalize: linalg.vector_norm cannot compute the {p:g} norm on the "
                           f"dimension {dim} because this dimension is empty (input shape "
                           f"{tuple(input.shape)}) and the operation does not have an identity")
    if math.isinf(p):           # the largest (smallest) |x|: ties share the gradient, as torch
        a = input.abs()
        norm = a.amax(dim, keepdim=True) if p > 0 else a.amin(dim, keepdim=True)
    elif p == 0:                # the count of nonzero elements: no gradient
        norm = (input != 0).sum(dim, keepdim=True).to(input.dtype)
    else:
        norm = _Norm.apply(input, p, dim)       # torch's graph: norm, clamp_min, expand
    return input / norm.clamp_min(eps).expand_as(input)


@autocast_op("prelu")
def prelu(input, weight):
    """x where x > 0, else weight * x, with a learned slope (one, or one per channel, dim 1);
    as torch, the weight is viewed as (C, 1, ...) for inputs of 2 or more dims, then one op."""
    if weight.numel() != 1:
        channels = input.shape[1] if input.ndim >= 2 else None
        if weight.ndim != 1 or channels != weight.shape[0]:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {weight.numel()} and channel size = "
                               f"{channels}.")
    if input.ndim >= 2:
        weight = weight.view((weight.numel(),) + (1,) * (input.ndim - 2))
    elif input.ndim == 0:           # one slope for a 0-d input: a 0-d output, as torch
        weight = weight.reshape(())
    return Prelu.apply(input, weight)
