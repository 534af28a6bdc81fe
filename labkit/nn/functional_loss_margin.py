"""Margin, embedding and likelihood losses: margin_ranking, hinge_embedding, soft_margin,
cosine_embedding, multilabel_soft_margin, multi_margin, triplet_margin, poisson_nll and
gaussian_nll (and triplet_margin_with_distance). Each is torch's own formula written with differentiable ops (its reference
implementation is a composite too), so values and gradients of every order are torch's;
soft_margin and multi_margin are one op each, as torch's (SoftMarginLossBackward0,
MultiMarginLossBackward0)."""
import math

from ..engine.functional import _reduce
from ..engine.grad_mode import no_grad
from ..engine.ops.loss_reduction import reduction_of
from ..engine.ops.binary_cross_entropy import constants
from ..engine.ops.broadcast import broadcast_shapes
from ..engine.ops.nn_activation import logsigmoid
from ..engine.ops.scalar_ops import add_scalar
from ..engine.ops.soft_margin_loss import MultiMarginLoss, SoftMarginLoss
from ..engine.ops.select import minimum, where
from .functional_distance import pairwise_distance


def _flags(name, size_average, reduce, reduction):
    reduction = reduction_of(size_average, reduce, reduction, stacklevel=4)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction ({name} takes 'mean', "
                         f"'sum' or 'none')")
    return reduction


def _same_shape(name, *pairs):
    for (a_name, a), (b_name, b) in zip(pairs, pairs[1:]):
        if a.dim() != b.dim():
            raise RuntimeError(f"{name}: All input tensors should have same dimension but got "
                               f"sizes: {a_name}: {list(a.shape)}, {b_name}: {list(b.shape)}")


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):
    """max(0, -target * (input1 - input2) + margin): target 1 says input1 should rank higher."""
    reduction = _flags("margin_ranking_loss", size_average, reduce, reduction)
    if not (input1.dim() == input2.dim() == target.dim()):
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {list(input1.shape)}, input2: "
                           f"{list(input2.shape)}, target: {list(target.shape)} ")
    loss = add_scalar(-target * (input1 - input2), margin).clamp_min(0)   # torch: AddBackward1
    return _reduce(loss, reduction, "margin_ranking_loss")


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """input where target is 1, max(0, margin - input) where it is -1 (input: a distance)."""
    reduction = _flags("hinge_embedding_loss", size_average, reduce, reduction)
    far = where(target != 1, (margin - input).clamp_min(0), 0.0)
    near = where(target != -1, input, 0.0)
    return _reduce(far + near, reduction, "hinge_embedding_loss")


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target * input)): the logistic loss for targets in {-1, 1}."""
    reduction = _flags("soft_margin_loss", size_average, reduce, reduction)
    wide = broadcast_shapes(tuple(input.shape), tuple(target.shape))
    if wide != tuple(input.shape):
        raise RuntimeError(f"soft_margin_loss: output with shape {list(input.shape)} doesn't "
                           f"match the broadcast shape {list(wide)} (the target may broadcast "
                           "to the input, not the input to the target).")
    return SoftMarginLoss.apply(input, constants("soft_margin_loss", target=target), reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                          reduction="mean"):
    """1 - cos(x1, x2) for target 1, max(0, cos(x1, x2) - margin) for target -1 (rows of
    (N, D) inputs, or two (D,) vectors), with torch's 1e-12 guard on the squared norms."""
    reduction = _flags("cosine_embedding_loss", size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() not in (1, 2) or \
            target.dim() != input1.dim() - 1:
        raise RuntimeError(f"cosine_embedding_loss: expected 1-D or 2-D inputs of the same "
                           f"dimension and a target with one dimension less, got input1 "
                           f"{list(input1.shape)}, input2 {list(input2.shape)}, target "
                           f"{list(target.shape)}")
    d = input1.dim() - 1
    prod = (input1 * input2).sum(d)
    mag = ((input1 * input1).sum(d) + 1e-12) * ((input2 * input2).sum(d) + 1e-12)
    cos = prod / mag.sqrt()
    loss = where(target == 1, 1 - cos, 0.0) + where(target == -1, (cos - margin).clamp_min(0), 0.0)
    return _reduce(loss, reduction, "cosine_embedding_loss")


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """Binary cross-entropy with logits for each of C labels, averaged over the labels."""
    reduction = _flags("multilabel_soft_margin_loss", size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    c = input.dim() - 1
    loss = loss.sum(c) / input.shape[c]
    return _reduce(loss, reduction, "multilabel_soft_margin_loss")


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """sum over the wrong classes i of max(0, margin - x[y] + x[i])^p, over C: the multi-class
    hinge loss (an SVM's)."""
    reduction = _flags("multi_margin_loss", size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if input.dim() > 2 or (input.dim() == 2 and target.dim() != 1) or \
            (input.dim() == 2 and target.shape[0] != input.shape[0]):
        raise RuntimeError(f"multi_margin_loss: inconsistent target size: {list(target.shape)} "
                           f"for input of size: {list(input.shape)}")
    consts = constants("multi_margin_loss", target=target.long(), weight=weight)
    return MultiMarginLoss.apply(input, consts, p, float(margin), reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """max(0, margin + d(a, p) - d(a, n)) with the p-norm distance: pull the positive closer
    than the negative by a margin (swap: also use d(p, n) when it is smaller)."""
    reduction = _flags("triplet_margin_loss", size_average, reduce, reduction)
    return _triplet(anchor, positive, negative, lambda x, y: pairwise_distance(x, y, p, eps),
                    margin, swap, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """triplet_margin_loss with any distance (a callable of two tensors, pairwise_distance
    when None), e.g. 1 - cosine_similarity."""
    reduction = _flags("triplet_margin_with_distance_loss", None, None, reduction)
    return _triplet(anchor, positive, negative, distance_function or pairwise_distance,
                    margin, swap, reduction)


def _triplet(anchor, positive, negative, dist, margin, swap, reduction):
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin} (a triplet loss pushes "
                         "the negative at least this much farther than the positive)")
    a, pos, neg = anchor.dim(), positive.dim(), negative.dim()
    if not (a == pos == neg):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have "
                           f"the same number of dimensions, but got: anchor {a}D, positive "
                           f"{pos}D, and negative {neg}D inputs")
    d_ap, d_an = dist(anchor, positive), dist(anchor, negative)
    if swap:
        d_an = minimum(d_an, dist(positive, negative))
    loss = (margin + d_ap - d_an).clamp_min(0)
    return _reduce(loss, reduction, "triplet_margin_loss")


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """Poisson negative log-likelihood of target counts given a rate (or its log); full adds
    Stirling's approximation of log(target!) for targets > 1."""
    reduction = _flags("poisson_nll_loss", size_average, reduce, reduction)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + where(target > 1, stirling, 0.0)
    return _reduce(loss, reduction, "poisson_nll_loss")


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 (log var + (input - target)^2 / var): the Gaussian negative log-likelihood, var
    predicted per element, per sample (one fewer dim) or shared; var is clamped to eps (the
    clamp is invisible to the gradient, as torch does it under no_grad)."""
    from ..engine.tensor import Tensor
    if not isinstance(var, Tensor):
        from ..engine.creation import full as _full
        var = _full(tuple(input.shape), float(var), dtype=input.dtype, device=input.device)
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(reduction + " is not valid")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction, "gaussian_nll_loss")
