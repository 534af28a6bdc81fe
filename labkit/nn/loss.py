"""Loss functions as modules: criterion = nn.CrossEntropyLoss(); loss = criterion(out, y).

reduction: 'mean' (the default) averages over the batch, 'sum' adds up, 'none' keeps one loss
per element. A class or element weight given to a loss is a buffer: it moves with .to() and is
saved in the state_dict, as in torch."""
from ..engine.ops.loss_reduction import reduction_of
from . import functional as F
from .module import Module


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        reduction = reduction_of(size_average, reduce, reduction, stacklevel=4)
        if reduction not in self._reductions:
            raise ValueError(f"{type(self).__name__}: reduction must be "
                             f"{' or '.join(map(repr, self._reductions))}, got {reduction!r}.")
        self.reduction = reduction

    _reductions = ("mean", "sum", "none")


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    """mean((input - target)^2): regression."""

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """mean(|input - target|): regression, less sensitive to outliers."""

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


def _class_options(loss, **defaults):
    """The options the user changed from their defaults, passed on to the functional."""
    return {k: getattr(loss, k) for k, d in defaults.items()
            if (getattr(loss, k) is not None if d is None else getattr(loss, k) != d)}


class NLLLoss(_WeightedLoss):
    """-input[i, target[i]] for log-probabilities input (N, C) and class indices target (N,).
    weight (C,) rescales each class; targets equal to ignore_index add nothing."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, reduction=self.reduction,
                          **_class_options(self, weight=None, ignore_index=-100))


class CrossEntropyLoss(_WeightedLoss):
    """Classification from raw scores (logits, N x C) and class indices (N,): log_softmax then
    NLL, computed stably. Do not put a Softmax layer before it. weight (C,) rescales each
    class, targets equal to ignore_index add nothing, label_smoothing mixes the one-hot target
    with the uniform distribution."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, reduction=self.reduction,
                               **_class_options(self, weight=None, ignore_index=-100,
                                                label_smoothing=0.0))


class BCEWithLogitsLoss(_WeightedLoss):
    """Binary classification from raw scores and 0/1 (or soft) targets, sigmoid included.
    weight scales each element's loss, pos_weight (one per class) the positive examples'."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean",
                 pos_weight=None):
        super().__init__(weight, size_average, reduce, reduction)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, weight=self.weight,
                                                  reduction=self.reduction,
                                                  pos_weight=self.pos_weight)


class BCELoss(_WeightedLoss):
    """Binary cross-entropy of probabilities (after a Sigmoid) and 0/1 (or soft) targets.
    From raw scores BCEWithLogitsLoss is the stabler choice."""

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight,
                                      reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Squared for small errors (|d| < beta), absolute for large: robust regression."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """0.5 d^2 for |d| < delta, delta (|d| - 0.5 delta) beyond."""

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(_Loss):
    """KL divergence from log-probabilities (input) to a target distribution; use
    reduction='batchmean' for the mathematical KL per example."""
    _reductions = ("mean", "sum", "none", "batchmean")

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class NLLLoss2d(NLLLoss):
    """The old name of NLLLoss for (N, C, H, W) inputs (NLLLoss takes any number of dims)."""

