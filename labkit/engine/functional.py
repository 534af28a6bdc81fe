"""Composite functions built from primitive ops (their gradients come for free)."""
from .ops.arithmetic import Add
from .ops.softmax import log_softmax, softmax  # noqa: F401  (re-exported)
from .ops.unary import relu, sigmoid, tanh  # noqa: F401  (re-exported)
from .tensor import Tensor


def _reduce(loss, reduction, name):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{name}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}.")


def _same_shape(name, input, target):
    if tuple(input.shape) != tuple(target.shape):
        raise RuntimeError(
            f"{name}: input shape {tuple(input.shape)} and target shape {tuple(target.shape)} "
            "differ; broadcasting them would silently compare the wrong pairs. Reshape one "
            "(e.g. target.view(-1, 1) or input.squeeze(1)) so they match.")


def mse_loss(input, target, reduction="mean"):
    """Mean squared error: mean((input - target) ** 2)."""
    _same_shape("mse_loss", input, target)
    return _reduce((input - target) ** 2, reduction, "mse_loss")


def l1_loss(input, target, reduction="mean"):
    _same_shape("l1_loss", input, target)
    return _reduce((input - target).abs(), reduction, "l1_loss")


def nll_loss(input, target, reduction="mean"):
    """-input[i, target[i]] averaged: input holds log-probabilities of shape (N, C)."""
    if input.ndim != 2 or target.ndim != 1 or target.shape[0] != input.shape[0]:
        raise RuntimeError(f"nll_loss: expected input (N, C) and target (N,), got "
                           f"{tuple(input.shape)} and {tuple(target.shape)}.")
    if target.data.dtype.kind not in "iu":
        raise RuntimeError(f"nll_loss: target must hold class indices (int64), got "
                           f"{target.dtype}. Use target.long().")
    n, c = input.shape
    if n and (int(target.data.min()) < 0 or int(target.data.max()) >= c):
        raise IndexError(f"nll_loss: target values must be class indices in [0, {c - 1}], got "
                         f"values from {int(target.data.min())} to {int(target.data.max())}.")
    rows = input.device.xp.arange(n)
    return _reduce(-input[rows, target.data], reduction, "nll_loss")


def cross_entropy(input, target, reduction="mean"):
    """Softmax cross-entropy from raw scores (logits) and class indices, computed stably."""
    return nll_loss(log_softmax(input, dim=1), target, reduction)


def linear(input, weight, bias=None):
    """input @ weight.T + bias (weight has shape (out_features, in_features))."""
    out = input @ weight.t()
    return out if bias is None else Add.apply(out, bias)


def binary_cross_entropy_with_logits(input, target, reduction="mean"):
    """Stable BCE from logits: max(x, 0) - x * t + log(1 + exp(-|x|))."""
    _same_shape("binary_cross_entropy_with_logits", input, target)
    loss = input.clamp(min=0) - input * target + (1 + (-input.abs()).exp()).log()
    return _reduce(loss, reduction, "binary_cross_entropy_with_logits")


__all__ = ["relu", "sigmoid", "tanh", "softmax", "log_softmax", "mse_loss", "l1_loss",
           "nll_loss", "cross_entropy", "linear", "binary_cross_entropy_with_logits"]
