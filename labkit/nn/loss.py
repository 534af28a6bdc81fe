"""Loss functions as modules: criterion = nn.CrossEntropyLoss(); loss = criterion(out, y).

reduction: 'mean' (the default) averages over the batch, 'sum' adds up, 'none' keeps one loss
per element."""
from . import functional as F
from .module import Module


class _Loss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"{type(self).__name__}: reduction must be 'mean', 'sum' or "
                             f"'none', got {reduction!r}.")
        self.reduction = reduction


class MSELoss(_Loss):
    """mean((input - target)^2): regression."""

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """mean(|input - target|): regression, less sensitive to outliers."""

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class NLLLoss(_Loss):
    """-input[i, target[i]] for log-probabilities input (N, C) and class indices target (N,)."""

    def forward(self, input, target):
        return F.nll_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(_Loss):
    """Classification from raw scores (logits, N x C) and class indices (N,): log_softmax then
    NLL, computed stably. Do not put a Softmax layer before it."""

    def forward(self, input, target):
        return F.cross_entropy(input, target, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary classification from raw scores and 0/1 (or soft) targets, sigmoid included."""

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, reduction=self.reduction)
