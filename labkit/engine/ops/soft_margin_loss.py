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


class MultiMarginLoss(Function):
    """sum over the wrong classes j of w[y] max(0, margin - x[y] + x[j])^p, over C, per example
    (torch's MultiMarginLossBackward0); x is (N, C) or one example (C,). The target and the
    class weights are constants (a tuple), as in torch."""
    node_name = "MultiMarginLossBackward0"

    @staticmethod
    def forward(ctx, x, consts, p, margin, reduction):
        y, w = consts
        xp = x.device.xp
        d = x._data
        rows = d.reshape(1, -1) if d.ndim < 2 else d
        yd = y._data.reshape(-1)
        c = rows.shape[1]
        if yd.size and bool(((yd < 0) | (yd >= c)).any()):
            raise IndexError(f"multi_margin_loss: target values must be class indices in "
                             f"[0, {c - 1}], got {int(yd.min())} .. {int(yd.max())}.")
        picked = xp.take_along_axis(rows, yd[:, None], axis=1)
        z = xp.maximum(margin - picked + rows, 0)
        if p == 2:
            z = z * z
        if w is not None:
            z = z * w._data[yd][:, None]
        z[xp.arange(rows.shape[0]), yd] = 0
        loss = xp.asarray(z.sum(axis=1) / c, dtype=d.dtype)
        ctx.save_for_backward(x, y, w)
        ctx.p, ctx.margin, ctx.reduction = p, margin, reduction
        if d.ndim < 2:
            loss = loss.reshape(())
        return reduce_array(xp, loss, reduction)

    @staticmethod
    def slopes(x, y, w, p, margin):
        """d loss_i / d x (Tensor ops), rows (N, C)."""
        from ..tensor import Tensor
        from .select import where
        rows = x.reshape(1, -1) if x.ndim < 2 else x
        yc = y.reshape(-1, 1)
        c = rows.shape[1]
        z = margin - rows.gather(1, yc) + rows
        cls = Tensor._make(x.device.xp.arange(c).reshape(1, -1), x.device)
        active = (z > 0) & (cls != yc)
        dz = where(active, z * 2 if p == 2 else 1.0, 0.0)
        if w is not None:
            dz = dz * w[y.reshape(-1)].unsqueeze(1)
        dz = dz / c
        return dz - where(cls == yc, dz.sum(1, keepdim=True), 0.0)

    @staticmethod
    def backward(ctx, grad):
        x, y, w = ctx.saved_tensors
        s = MultiMarginLoss.slopes(x, y, w, ctx.p, ctx.margin)
        n = s.shape[0]
        g = grad.reshape(-1, 1) if ctx.reduction == "none" else \
            grad * mean_scale(ctx.reduction, n if x.ndim >= 2 else 1)
        return (s * g).reshape(x.shape), None, None, None, None

    @staticmethod
    def jvp(args, tangents, out):
        (x, (y, w), p, margin, reduction), tx = args, tangents[0]
        if tx is None:
            return None
        s = MultiMarginLoss.slopes(x, y, w, p, margin)
        per = (s * tx.reshape(s.shape)).sum(1)
        return reduce_tensor(per.reshape(()) if x.ndim < 2 else per, reduction)
