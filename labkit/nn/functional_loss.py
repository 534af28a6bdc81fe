"""The losses of torch.nn.functional beyond mse/l1/cross-entropy/nll/bce-with-logits.

binary_cross_entropy, smooth_l1_loss and huber_loss are one op each (torch's grad_fn, and for
bce its clamped logs); kl_div is a composition of ops. A weight multiplies each element's loss
before the reduction, as in torch.
"""
from ..engine.autocast import autocast_op
from ..engine.functional import _reduce, _warn_if_broadcast
from ..engine.ops.binary_cross_entropy import BinaryCrossEntropy, constants
from ..engine.ops.smooth_l1_loss import HuberLoss, SmoothL1Loss
from ..engine.ops.loss_reduction import reduction_of
from ..engine.ops.broadcast import broadcast_tensors
from ..engine.creation import tensor
from ..engine.ops.special_math import xlogy

_REDUCTIONS = ("mean", "sum", "none")


def _reduction(name, reduction, extra=()):
    if reduction not in _REDUCTIONS + extra:
        raise ValueError(f"{reduction} is not a valid value for reduction ({name} takes "
                         f"{', '.join(map(repr, _REDUCTIONS + extra))}).")


@autocast_op("smooth_l1_loss")
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = input - target): squared
    near zero, absolute (robust to outliers) far away. beta=0 is the L1 loss."""
    reduction = reduction_of(size_average, reduce, reduction)
    _reduction("smooth_l1_loss", reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _warn_if_broadcast(input, target)
    if beta == 0:                    # torch: the L1 loss (its graph too)
        return _reduce((input - target).abs(), reduction, "smooth_l1_loss")
    return SmoothL1Loss.apply(*_expanded(input, target), reduction, float(beta))


@autocast_op("huber_loss")
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta): smooth_l1_loss times delta."""
    _reduction("huber_loss", reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _warn_if_broadcast(input, target)
    input, target = _expanded(input, target)
    if weight is None:
        return HuberLoss.apply(input, target, reduction, float(delta))
    return _reduce(HuberLoss.apply(input, target, "none", float(delta)) * weight, reduction,
                   "huber_loss")


def _expanded(input, target):
    """torch's loss functions broadcast differently shaped operands first (ExpandBackward0)."""
    if tuple(input.shape) == tuple(target.shape):
        return input, target
    return broadcast_tensors(input, target)


@autocast_op("binary_cross_entropy")
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """-(t log x + (1 - t) log(1 - x)) for probabilities x (after a sigmoid) and targets t in
    [0, 1]; weight rescales each element's loss. From raw scores use the stabler
    binary_cross_entropy_with_logits."""
    reduction = reduction_of(size_average, reduce, reduction)
    _reduction("binary_cross_entropy", reduction)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"Using a target size ({tuple(target.shape)}) that is different to the "
                         f"input size ({tuple(input.shape)}) is deprecated. Please ensure they "
                         "have the same size (e.g. target.view(-1, 1) or input.squeeze(1)).")
    weights = constants("binary_cross_entropy", weight=weight)
    if weight is not None and tuple(weight.shape) != tuple(input.shape):
        weight = weight.expand(*input.shape)        # torch broadcasts it to the input
        weights = (weight,)
    return BinaryCrossEntropy.apply(input, target, weights, reduction)


@autocast_op("kl_div")
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """KL(target || model) with input = the model's log-probabilities: sum of
    target * (log target - input). log_target=True takes target as log-probabilities too.
    reduction='batchmean' divides by the batch size, the true KL divergence per example
    ('mean' divides by every element, as torch, which is rarely what is meant)."""
    reduction = reduction_of(size_average, reduce, reduction)
    _reduction("kl_div", reduction, ("batchmean",))
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = xlogy(target, target) - target * input   # 0 log 0 = 0; nan below 0
    if reduction == "batchmean":   # torch divides by the batch size as a tensor (DivBackward0)
        return loss.sum() / tensor(input.shape[0] if input.ndim else 1, device=input.device)
    return _reduce(loss, reduction, "kl_div")

