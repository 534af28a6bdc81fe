"""soft_margin_loss as one op (torch's SoftMarginLossBackward0): log(1 + exp(-y x)) for
targets y in {-1, 1}, reduced inside. As torch, the formula is taken literally (exp may
overflow to inf), the target is a constant (passed in a tuple: not a graph input, and an
error if it requires grad), and the gradient is -y z / (1 + z), z = exp(-y x)."""
from ..function import Function
from .erf import _quiet
from .loss_reduction import mean_scale, reduce_array, reduce_tensor, vmap_loss


class SoftMarginLoss(Function):
    node_name = "SoftMarginLossBackward0"

    @staticmethod
    def forward(ctx, x, consts, reduction):
        (t,) = consts
        xp = x.device.xp
        d = x._data
        with _quiet(xp):
            loss = xp.asarray(xp.log1p(xp.exp(-t._data * d)), dtype=d.dtype)
        ctx.save_for_backward(x, t)
        ctx.reduction, ctx.n = reduction, loss.size      # (broadcast: the loss's size)
        return reduce_array(xp, loss, reduction)

    @staticmethod
    def backward(ctx, grad):
        x, t = ctx.saved_tensors
        z = (-t * x).exp()
        return -t * z / (1 + z) * (grad * mean_scale(ctx.reduction, ctx.n)), None, None

    @staticmethod
    def jvp(args, tangents, out):
        (x, (t,), reduction), tx = args, tangents[0]
        if tx is None:
            return None
        z = (-t * x).exp()
        return reduce_tensor(-t * z / (1 + z) * tx, reduction)

    @staticmethod
    def vmap(args, batched):
        return vmap_loss(SoftMarginLoss, args, batched, 1, args[2])
