"""mse_loss as one op, torch's MseLossBackward0: (input - target) ** 2, then the mean, the sum
or nothing ('none'). One node instead of three (sub, pow, mean) keeps the graph as torch draws
it and the training step short; backward is torch's 2 (input - target) * grad (/ n for the mean),
written with Tensor ops so that it can be differentiated again."""
from ..function import Function
from .common import operands
from . import rules


def _norm(reduction, n):
    """torch's factor: 2, or 2 / n for the mean (the gradient of an empty mean is empty)."""
    return 2.0 / n if reduction == "mean" and n else 2.0


class MseLoss(Function):
    node_name = "MseLossBackward0"

    @staticmethod
    def forward(ctx, x, t, reduction):
        ctx.save_for_backward(x, t)
        ctx.reduction = reduction
        a, b = operands(x, t)                  # torch's result dtype (float32 - float64: float64)
        sq = (a - b) ** 2                      # the bits of the composite (x - t) ** 2
        xp = x.device.xp
        if reduction == "none":
            return sq
        if sq.dtype.kind == "V":               # bfloat16: accumulate in float32, as torch
            acc = sq.astype("float32")
            return xp.asarray((acc.sum() if reduction == "sum" else acc.mean()).astype(sq.dtype)) \
                if acc.size or reduction == "sum" else xp.asarray(xp.nan, dtype=sq.dtype)
        if reduction == "sum":
            return xp.asarray(sq.sum())
        n = sq.size
        if not n:                              # torch: nan, without numpy's warning
            return xp.asarray(xp.nan, dtype=sq.dtype)
        if sq.dtype.kind == "f" and sq.dtype.itemsize >= 4:
            return xp.asarray(sq.sum() / n)    # numpy's mean without its Python wrapper
        return xp.asarray(sq.mean())           # float16 (summed in float32), bfloat16

    @staticmethod
    def backward_arrays(ctx, grad):
        """The same formula on arrays, in the forward's result dtype."""
        a, b = operands(*ctx.saved_tensors)
        need = ctx.needs_input_grad
        xp = ctx._device.xp
        d = xp.asarray(a - b)                  # broadcast shape: the engine sums it back
        d *= _norm(ctx.reduction, d.size)
        d *= grad
        return (d if need[0] else None), (xp.asarray(-d) if need[1] else None), None

    @staticmethod
    def backward(ctx, grad):
        x, t = ctx.saved_tensors
        need = ctx.needs_input_grad
        if t._data.dtype.kind == "b":          # (a bool target: x - t refuses it, as torch)
            t = t.to(x.dtype)
        diff = x - t
        gx = diff * _norm(ctx.reduction, diff.numel()) * grad
        return (gx if need[0] else None), (-gx if need[1] else None), None

    @staticmethod
    def jvp(args, tangents, out):
        (x, t, reduction), (tx, tt, _) = args, tangents
        td = tx if tt is None else -tt if tx is None else tx - tt
        if td is None:
            return None
        per = (x - t) * 2.0 * td
        return per if reduction == "none" else getattr(per, reduction)()

    @staticmethod
    def vmap(args, batched):
        (x, t, reduction), (xb, tb, _) = args, batched
        n = max(x.ndim - xb, t.ndim - tb)      # the logical rank
        per = MseLoss.apply(rules.lift(x, n) if xb else x, rules.lift(t, n) if tb else t,
                            "none")
        if reduction == "none":
            return per
        return getattr(per.reshape(per.shape[0], -1), reduction)(1)

    @staticmethod
    def onnx(w, node, out):
        x, t, reduction = node.args
        d, sq = out[0] + "_d", out[0] + "_sq"
        w.emit("Sub", [w.name(x), w.name(t)], [d])
        w.emit("Mul", [d, d], out if reduction == "none" else [sq])
        if reduction == "mean":
            w.emit("ReduceMean", [sq], out, keepdims=0)
        elif reduction == "sum":
            w.emit("ReduceSum", [sq], out, keepdims=0)

