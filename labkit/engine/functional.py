"""Composite functions built from primitive ops (their gradients come for free)."""
import warnings

from .autocast import autocast_op
from .ops.common import require_float
from .ops.cross_entropy import cross_entropy  # noqa: F401  (re-exported)
from .ops.loss_reduction import reduction_of
from .ops.linear import linear  # noqa: F401  (re-exported)
from .ops.mse_loss import MseLoss
from .ops.nll_loss import nll_loss  # noqa: F401  (re-exported)
from .ops.softmax import log_softmax, softmax  # noqa: F401  (re-exported)
from .ops.unary import relu, sigmoid, tanh  # noqa: F401  (re-exported)


def _reduce(loss, reduction, name):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{name}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}.")


def _weighted(loss, weight, input, reduction, name):
    """torch's element weights of mse_loss/l1_loss: the mean is sum(w * loss) / sum(w)."""
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError(f"{name}: weight has shape {tuple(weight.shape)} but the input has "
                         f"{tuple(input.shape)}; torch requires the same size (one weight per "
                         "element).")
    loss = loss * weight
    return loss.sum() / weight.sum() if reduction == "mean" else _reduce(loss, reduction, name)


def _warn_if_broadcast(input, target):
    """torch computes an elementwise loss of differently shaped input and target by
    broadcasting them, with this warning: valid code, almost always a bug ((N, 1) against (N,)
    makes an (N, N) table of every pair)."""
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size (e.g. target.view(-1, 1) or "
            "input.squeeze(1)).", UserWarning, stacklevel=3)


@autocast_op("mse_loss")
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error: mean((input - target) ** 2), one op (torch's MseLossBackward0);
    weight (broadcast to the input) scales each squared error, as torch 2.6+."""
    reduction = reduction_of(size_average, reduce, reduction)
    if weight is not None:
        _warn_if_broadcast(input, target)
        return _weighted((input - target) ** 2, weight, input, reduction, "mse_loss")
    _warn_if_broadcast(input, target)
    require_float("mse_loss", input)   # as torch: no mse of integers
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"mse_loss: reduction must be 'mean', 'sum' or 'none', got "
                         f"{reduction!r}.")
    return MseLoss.apply(input, target, reduction)


@autocast_op("l1_loss")
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error; weight (broadcast to the input) scales each element's error."""
    reduction = reduction_of(size_average, reduce, reduction)
    _warn_if_broadcast(input, target)
    loss = (input - target).abs()
    if weight is not None:
        return _weighted(loss, weight, input, reduction, "l1_loss")
    return _reduce(loss, reduction, "l1_loss")


@autocast_op("binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    """Stable BCE from logits (raw scores) and targets in [0, 1]. weight scales each element's
    loss; pos_weight (one per class, broadcast along the last dim) scales the positive term,
    -pos_weight * t * log sigmoid(x): > 1 for rare positives (torch's recipe for imbalance)."""
    reduction = reduction_of(size_average, reduce, reduction)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape}) in binary_cross_entropy_with_logits (e.g. "
                         "target.view(-1, 1) or input.squeeze(1)).")
    from .ops.binary_cross_entropy import BinaryCrossEntropyWithLogits, constants
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    weights = constants("binary_cross_entropy_with_logits", weight=weight,
                        pos_weight=pos_weight)
    return BinaryCrossEntropyWithLogits.apply(input, target, weights, reduction)


__all__ = ["relu", "sigmoid", "tanh", "softmax", "log_softmax", "mse_loss", "l1_loss",
           "nll_loss", "cross_entropy", "linear", "binary_cross_entropy_with_logits"]
