"""labkit.nn.functional: the layers as plain functions (torch.nn.functional).

The engine's composites and losses are re-exported; dropout and batch_norm, which need a random
mask or running statistics, are written here from tensor ops.
"""
import math

from ..engine.creation import bernoulli_mask, zeros
from ..engine.functional import (binary_cross_entropy_with_logits, cross_entropy, l1_loss,  # noqa
                                 linear, log_softmax, mse_loss, nll_loss, relu, sigmoid,
                                 softmax, tanh)
from ..engine.grad_mode import no_grad
from ..engine.ops.softmax import (functional_log_softmax as log_softmax,  # noqa: F811 (the
                                  functional_softmax as softmax)  # implicit dim, as torch's F)
from ..engine.ops.activation import gelu, leaky_relu  # noqa: F401
from ..engine.ops.conv import conv1d, conv2d, conv_transpose2d  # noqa: F401
from ..engine.ops.embedding import embedding  # noqa: F401
from ..engine.ops.counting import one_hot  # noqa: F401
from ..engine.ops.fold import fold, unfold  # noqa: F401
from ..engine.ops.native_norm import NativeBatchNorm
from ..engine.ops.nn_activation import (celu, elu, glu, hardsigmoid, hardswish,  # noqa: F401
                                        hardtanh, logsigmoid, mish, relu6, selu, silu,
                                        softmin, softplus, softsign, tanhshrink)
from ..engine.ops.pool import max_pool1d, max_pool2d  # noqa: F401
from ..engine.ops.resample import (adaptive_avg_pool1d, adaptive_avg_pool2d,  # noqa: F401
                                   avg_pool1d, avg_pool2d, interpolate, pad)
from .functional_dropout import dropout1d, dropout2d, dropout3d  # noqa: F401
from .functional_gumbel import gumbel_softmax  # noqa: F401
from .functional_loss import (binary_cross_entropy, huber_loss, kl_div,  # noqa: F401
                              smooth_l1_loss)
from .functional_norm import group_norm, instance_norm, layer_norm, normalize  # noqa: F401
from .functional_norm import empty_batch_norm, prelu  # noqa: F401


def _keep_mask(input, shape, p):
    """torch's mask: empty(shape).bernoulli_(1 - p).div_(1 - p) in the input's dtype; for
    p = 1 a zero, with no draw (as torch: the stream does not advance)."""
    if p == 1:
        return zeros((), dtype=input.dtype, device=input.device)
    return bernoulli_mask(shape, 1 - p, input.dtype, input.device).div_(1 - p)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability p and scale the rest by 1/(1-p), so the expected
    value is unchanged; in evaluation (training=False) return the input as it is."""
    if not 0 <= p <= 1:
        raise ValueError(f"dropout: probability p must be between 0 and 1, got {p}.")
    if not training or p == 0 or input.numel() == 0:
        return input
    mask = _keep_mask(input, input.shape, p)
    return input.mul_(mask) if inplace else input * mask


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalise each channel (dim 1) to mean 0, variance 1, then scale by weight and shift by
    bias. Training uses the batch's statistics and updates the running ones in place
    (running = (1 - momentum) * running + momentum * batch); evaluation uses the running ones."""
    if input.ndim < 2:
        raise ValueError(f"batch_norm: expected an (N, C, ...) input, got shape "
                         f"{tuple(input.shape)}.")
    n = input.shape[0] * math.prod(input.shape[2:])
    if training and n == 1:        # torch's _verify_batch_size, before its argument checks
        raise ValueError(f"batch_norm: expected more than 1 value per channel when training, "
                         f"got input of shape {tuple(input.shape)}. Use a batch of more than "
                         "one example, or call model.eval() to use the running statistics.")
    if momentum is None:           # torch's signature: a float (the modules turn None into one)
        raise TypeError("batch_norm(): argument 'momentum' must be float, not None; "
                        "momentum=None (a cumulative average) belongs to nn.BatchNorm*d.")
    if not training and running_mean is None:
        raise RuntimeError("batch_norm: running_mean must be defined in evaluation mode; pass "
                           "the running statistics, or training=True to use the batch's.")
    if input.numel() == 0:
        return empty_batch_norm(input, weight, bias)
    dims = (0,) + tuple(range(2, input.ndim))
    if training:
        if running_mean is not None:
            with no_grad():
                mean, var = input.mean(dims), input.var(dims, correction=0)
                running_mean.mul_(1 - momentum).add_(mean * momentum)
                running_var.mul_(1 - momentum).add_(var * (momentum * n / (n - 1)))
        return NativeBatchNorm.apply(input, weight, bias, None, eps)
    return NativeBatchNorm.apply(input, weight, bias, (running_mean, running_var), eps)


upsample = interpolate   # torch's older name, still in tutorials


__all__ = ["relu", "leaky_relu", "gelu", "sigmoid", "tanh", "softmax", "log_softmax", "linear",
           "conv2d", "max_pool2d", "unfold", "fold", "dropout", "batch_norm", "embedding",
           "mse_loss", "l1_loss", "nll_loss", "cross_entropy",
           "binary_cross_entropy_with_logits",
           "conv1d", "conv_transpose2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d",
           "adaptive_avg_pool2d", "interpolate", "upsample", "pad", "dropout1d", "dropout2d",
           "dropout3d", "layer_norm", "group_norm", "instance_norm", "normalize", "softplus",
           "logsigmoid", "elu", "selu", "celu", "hardtanh", "relu6", "hardsigmoid",
           "hardswish", "silu", "mish", "softsign", "tanhshrink", "softmin", "glu",
           "smooth_l1_loss", "huber_loss", "binary_cross_entropy", "kl_div", "max_pool1d",
           "prelu"]
from .attention import multi_head_attention_forward, scaled_dot_product_attention  # noqa
__all__ += ["scaled_dot_product_attention", "multi_head_attention_forward"]
from .functional_distance import cosine_similarity, pairwise_distance, pdist  # noqa: E402
from .functional_unpool import max_unpool1d, max_unpool2d, max_unpool3d  # noqa: E402,F401
from .multilabel_margin import multilabel_margin_loss  # noqa: E402,F401
from .ctc_loss import ctc_loss  # noqa: E402,F401
from .functional_inplace import (celu_, channel_shuffle, elu_, hardtanh_,  # noqa: E402,F401
                                native_channel_shuffle, relu_, rrelu_, selu_, upsample_bilinear,
                                upsample_nearest)
__all__ += ["cosine_similarity", "pairwise_distance"]
from .functional_grid import affine_grid, grid_sample  # noqa: E402
__all__ += ["affine_grid", "grid_sample"]
from ..engine.ops.conv3d import conv3d  # noqa: E402
__all__ += ["conv3d"]
from ..engine.ops.conv_transpose3d import conv_transpose3d  # noqa: E402
__all__ += ["conv_transpose3d"]
from .functional_loss_margin import (cosine_embedding_loss, gaussian_nll_loss,  # noqa: E402
                                     hinge_embedding_loss, margin_ranking_loss,
                                     multi_margin_loss, multilabel_soft_margin_loss,
                                     poisson_nll_loss, soft_margin_loss, triplet_margin_loss,
                                     triplet_margin_with_distance_loss)
__all__ += ["cosine_embedding_loss", "gaussian_nll_loss", "hinge_embedding_loss",
            "margin_ranking_loss", "multi_margin_loss", "multilabel_soft_margin_loss",
            "poisson_nll_loss", "soft_margin_loss", "triplet_margin_loss",
            "triplet_margin_with_distance_loss"]
from .functional_extra import (adaptive_max_pool1d, adaptive_max_pool1d_with_indices,  # noqa
                               adaptive_max_pool2d, adaptive_max_pool2d_with_indices, bilinear,
                               hardshrink, local_response_norm, softshrink, threshold,
                               threshold_)
__all__ += ["adaptive_max_pool1d", "adaptive_max_pool2d", "bilinear", "hardshrink",
            "local_response_norm", "softshrink", "threshold"]
from .functional_pool3d import adaptive_avg_pool3d, avg_pool3d, max_pool3d  # noqa: E402
__all__ += ["adaptive_avg_pool3d", "avg_pool3d", "max_pool3d"]
from .functional_lp_pool import lp_pool1d, lp_pool2d, lp_pool3d  # noqa: E402
from .functional_random import alpha_dropout, feature_alpha_dropout, rrelu  # noqa: E402
from ..engine.ops.conv import conv_transpose1d  # noqa: E402
__all__ += ["lp_pool1d", "lp_pool2d", "lp_pool3d", "alpha_dropout", "feature_alpha_dropout",
            "rrelu", "conv_transpose1d"]
from ..engine.ops.inplace import leaky_relu_  # noqa: E402,F401
from .embedding_bag import embedding_bag  # noqa: E402,F401
from .rms_norm import rms_norm  # noqa: E402,F401
from .pixel_shuffle import pixel_shuffle, pixel_unshuffle  # noqa: E402,F401
from .functional_pools_more import (adaptive_max_pool3d,  # noqa: E402,F401
                                    adaptive_max_pool3d_with_indices, assert_int_or_pair,
                                    fractional_max_pool2d, fractional_max_pool2d_with_indices,
                                    fractional_max_pool3d, fractional_max_pool3d_with_indices,
                                    max_pool1d_with_indices, max_pool2d_with_indices,
                                    max_pool3d_with_indices)

# a torch API that labkit lacks is named as such in the AttributeError
from ..engine.unsupported import module_getattr  # noqa: E402
__getattr__ = module_getattr(__name__, "torch.nn.functional")
