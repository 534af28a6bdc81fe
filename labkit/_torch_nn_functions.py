"""The torch.X forms of nn.functional ops (torch.layer_norm, torch.dropout, torch.embedding
...): ATen's signatures, which differ from F's (dropout's `train` is required, batch_norm puts
weight before running_mean, embedding takes the weight first, losses take the reduction as an
int: 0 none, 1 mean, 2 sum), each mapped onto the F function. Omitted, that int is 0 (none) in
torch's bindings, whatever their printed default says: torch.kl_div(x, y) is elementwise."""
from .nn import functional as F

_REDUCTION = {0: "none", 1: "mean", 2: "sum"}


def _reduction(value):
    if value not in _REDUCTION:
        raise RuntimeError(f"reduction must be 0 (none), 1 (mean) or 2 (sum) in the torch.X "
                           f"form of a loss, got {value!r}")
    return _REDUCTION[value]


def dropout(input, p, train):
    return F.dropout(input, p, train)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    return F.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                           momentum, eps)


def embedding(weight, input, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("labkit's torch.embedding has no scale_grad_by_freq or sparse "
                                  "gradients; use nn.functional.embedding without them")
    return F.embedding(input, weight, None if padding_idx < 0 else padding_idx)


def kl_div(input, target, reduction=0, *, log_target=False):
    return F.kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    return F.binary_cross_entropy_with_logits(input, target, weight,
                                              reduction=_reduction(reduction),
                                              pos_weight=pos_weight)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    return F.rms_norm(input, normalized_shape, weight, eps)


# same signature as F's
pixel_shuffle, pixel_unshuffle = F.pixel_shuffle, F.pixel_unshuffle
cosine_similarity, pairwise_distance = F.cosine_similarity, F.pairwise_distance
selu, celu, prelu = F.selu, F.celu, F.prelu
hardshrink, threshold, threshold_, bilinear = F.hardshrink, F.threshold, F.threshold_, F.bilinear


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    return F.margin_ranking_loss(input1, input2, target, margin,
                                 reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    return F.cosine_embedding_loss(input1, input2, target, margin,
                                   reduction=_reduction(reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False,
                        reduction=0):
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=_reduction(reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                              reduction=_reduction(reduction))

__all__ = ["dropout", "layer_norm", "group_norm", "batch_norm", "instance_norm", "embedding",
           "kl_div", "binary_cross_entropy_with_logits", "rms_norm", "pixel_shuffle",
           "pixel_unshuffle", "cosine_similarity", "pairwise_distance", "selu", "celu", "prelu",
           "hardshrink", "threshold", "threshold_", "bilinear", "margin_ranking_loss",
           "hinge_embedding_loss", "cosine_embedding_loss", "triplet_margin_loss",
           "poisson_nll_loss"]
