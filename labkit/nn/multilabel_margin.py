"""multilabel_margin_loss / nn.MultiLabelMarginLoss: a hinge loss for inputs with several
correct classes. target lists the correct class indices of each example, ended by -1 (the
rest ignored); each correct class y should score at least 1 above every incorrect class i:
loss = sum over (y, i) of max(0, 1 - (x[y] - x[i])) / C. Written with differentiable ops."""
from ..engine.ops.loss_reduction import reduction_of
from ..engine.ops.select import where
from .loss import _Loss


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = reduction_of(size_average, reduce, reduction)
    if str(target.dtype) != "labkit.int64":
        raise RuntimeError(f"multilabel_margin_loss: expected scalar type Long but found "
                           f"{str(target.dtype).split('.')[-1].capitalize()} (target holds "
                           "class indices ended by -1; use target.long()).")
    if input.dim() not in (1, 2) or tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"multilabel_margin_loss: inconsistent target size: "
                           f"{list(target.shape)} for input of size: {list(input.shape)} "
                           "(input (N, C) or (C,), target of the same shape).")
    single = input.dim() == 1
    x, y = (input.unsqueeze(0), target.unsqueeze(0)) if single else (input, target)
    c = x.shape[1]
    listed = (y != -1).long().cumprod(1).bool()         # the indices before the first -1
    safe = where(listed, y, 0)
    is_target = x.new_zeros(x.shape, dtype=safe.dtype).scatter_add(1, safe, listed.long()) > 0
    margins = 1 - x.gather(1, safe).unsqueeze(2) + x.unsqueeze(1)      # (N, j, i)
    counted = listed.unsqueeze(2) & ~is_target.unsqueeze(1)
    loss = where(counted, margins.clamp(min=0), 0.0).sum((1, 2)) / max(c, 1)
    loss = loss.squeeze(0) if single else loss
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()


class MultiLabelMarginLoss(_Loss):
    def forward(self, input, target):
        return multilabel_margin_loss(input, target, reduction=self.reduction)
