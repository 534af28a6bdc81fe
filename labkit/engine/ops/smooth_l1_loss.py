"""smooth_l1_loss and huber_loss as one op each (torch's SmoothL1LossBackward0 /
HuberLossBackward0), with the reduction inside.

With d = input - target: smooth L1 is 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta;
Huber is beta (here delta) times it. Their gradients are torch's, clamp(d / beta, -1, 1)
and clamp(d, -delta, delta), written with Tensor ops (their own derivative is 1 / beta, or 1,
strictly inside the band, 0 elsewhere).
"""
import math

from ..function import Function
from .common import operands
from .loss_reduction import mean_scale, reduce_array, reduce_tensor, vmap_loss
from .select import where


def _diff(x, t):
    if t._data.dtype.kind == "b":          # (a bool target: x - t refuses it, as torch)
        t = t.to(x.dtype)
    return x - t


class SmoothL1Loss(Function):
    node_name = "SmoothL1LossBackward0"
    huber = False

    @classmethod
    def _slope(cls, d, beta):
        """d / beta (Huber: d) strictly inside the band, sign(d) (times delta) outside:
        torch's slope, whose own derivative is 0 on the band's edge too; a nan difference
        has a nan slope (torch's kernel: not sign(nan) = 0) whose derivative is 0."""
        inside = d.abs() < beta
        outside = where(d.isnan(), math.nan, d.sign())
        if cls.huber:
            return where(inside, d, outside * beta)
        return where(inside, d / beta, outside)

    @classmethod
    def forward(cls, ctx, x, t, reduction, beta):
        xp = x.device.xp
        a, b = operands(x, t)
        d = a - b
        ad = xp.abs(d)
        quad = 0.5 * d * d
        loss = xp.where(ad < beta, quad if cls.huber else quad / beta,
                        beta * (ad - 0.5 * beta) if cls.huber else ad - 0.5 * beta)
        ctx.save_for_backward(x, t)
        ctx.reduction, ctx.beta = reduction, beta
        return reduce_array(xp, xp.asarray(loss, dtype=d.dtype), reduction)

    @classmethod
    def backward(cls, ctx, grad):
        x, t = ctx.saved_tensors
        need = ctx.needs_input_grad
        d = _diff(x, t)
        g = cls._slope(d, ctx.beta) * (grad * mean_scale(ctx.reduction, d.numel()))
        return (g if need[0] else None), (-g if need[1] else None), None, None

    @classmethod
    def jvp(cls, args, tangents, out):
        (x, t, reduction, beta), (tx, tt) = args, tangents[:2]
        td = tx if tt is None else -tt if tx is None else tx - tt
        if td is None:
            return None
        return reduce_tensor(cls._slope(_diff(x, t), beta) * td, reduction)

    @classmethod
    def vmap(cls, args, batched):
        return vmap_loss(cls, args, batched, 2, args[2])


class HuberLoss(SmoothL1Loss):
    node_name = "HuberLossBackward0"
    huber = True
