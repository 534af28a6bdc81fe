"""AdamW: Adam with decoupled weight decay. The weights shrink by lr * weight_decay each step,
outside the adaptive scaling, instead of adding an L2 term to the gradient (which Adam would
rescale per parameter). It is the usual choice for transformers."""
from .adam import Adam


class AdamW(Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable, differentiable=differentiable,
                         fused=fused, decoupled_weight_decay=True)
