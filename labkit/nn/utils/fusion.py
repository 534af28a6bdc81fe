"""Folding a BatchNorm into the layer before it, for inference (torch.nn.utils.fusion). In eval
a BatchNorm is the affine map y = (x - mean) * gamma / sqrt(var + eps) + beta with fixed
numbers, so it can be multiplied into the previous convolution's or linear layer's weight and
bias: one layer instead of two, the same outputs (up to rounding)."""
import copy

from ...engine.creation import ones_like, zeros_like
from ..parameter import Parameter


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """(weight, bias) Parameters of the convolution that equals conv then bn (in eval). The
    scale multiplies each output channel: dim 0 of a convolution's weight, dim 1 of a
    transposed one's (transpose=True)."""
    w_dtype = conv_w.dtype
    b_dtype = w_dtype if conv_b is None else conv_b.dtype
    conv_b = zeros_like(bn_rm) if conv_b is None else conv_b
    bn_w = ones_like(bn_rm) if bn_w is None else bn_w
    bn_b = zeros_like(bn_rm) if bn_b is None else bn_b
    inv_std = (bn_rv + bn_eps).rsqrt()
    shape = ([1, -1] if transpose else [-1, 1]) + [1] * (conv_w.dim() - 2)
    weight = (conv_w * (bn_w * inv_std).reshape(shape)).to(w_dtype)
    bias = ((conv_b - bn_rm) * inv_std * bn_w + bn_b).to(b_dtype)
    return Parameter(weight, conv_w.requires_grad), Parameter(bias, conv_b.requires_grad)


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """(weight, bias) Parameters of the Linear that equals linear then bn (in eval)."""
    w_dtype = linear_w.dtype
    b_dtype = w_dtype if linear_b is None else linear_b.dtype
    linear_b = zeros_like(bn_rm) if linear_b is None else linear_b
    scale = bn_w * (bn_rv + bn_eps).rsqrt()
    weight = (linear_w * scale.unsqueeze(-1)).to(w_dtype)
    bias = ((linear_b - bn_rm) * scale + bn_b).to(b_dtype)
    return Parameter(weight, linear_w.requires_grad), Parameter(bias, linear_b.requires_grad)


def _check_eval(a, b):
    if a.training or b.training:
        raise AssertionError("Fusion only for eval! Call .eval() on both modules first (a "
                             "training BatchNorm uses the batch's statistics, not fixed ones).")
    if b.running_mean is None or b.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None (a "
                             "BatchNorm with track_running_stats=False cannot be folded).")


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A new convolution (a deep copy of conv) computing bn(conv(x)) of eval mode."""
    _check_eval(conv, bn)
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean,
                                                    bn.running_var, bn.eps, bn.weight,
                                                    bn.bias, transpose)
    return fused


def fuse_linear_bn_eval(linear, bn):
    """A new Linear (a deep copy of linear) computing bn(linear(x)) of eval mode."""
    if linear.training or bn.training:
        _check_eval(linear, bn)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(f"To fuse, linear.out_features == bn.num_features or "
                             f"bn.num_features == 1, got linear.out_features="
                             f"{linear.out_features} and bn.num_features={bn.num_features}")
    _check_eval(linear, bn)
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean,
                                                      bn.running_var, bn.eps, bn.weight,
                                                      bn.bias)
    return fused
