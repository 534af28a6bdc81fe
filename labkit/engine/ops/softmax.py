"""softmax and log_softmax, computed stably (subtract the max before exp)."""
from ..autocast import autocast_op
from ..dtype import dtype as dtype_cls
from ..function import Function
from ..tensor import tensor_method
from .common import float_data, require_float
from . import rules


def _max(xp, d, dim):
    """The max along dim to subtract (nothing to subtract when the tensor is empty)."""
    return d.max(axis=dim, keepdims=True) if d.size else xp.zeros((), d.dtype)


class Softmax(Function):
    node_name = "SoftmaxBackward0"
    @staticmethod
    def onnx(w, node, out):
        w.emit("Softmax", [w.name(node.args[0])], out, axis=node.args[1])

    @staticmethod
    def forward(ctx, x, dim):
        require_float("softmax", x)
        xp = x.device.xp
        d = x._data
        e = xp.exp(d - _max(xp, d, dim))
        y = xp.asarray(e / e.sum(axis=dim, keepdims=True))  # an array even for 0-d x
        ctx.save_for_backward(y)
        ctx.dim = dim
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return y * (grad - (grad * y).sum(ctx.dim, keepdim=True)), None

    @staticmethod
    def jvp(args, tangents, out):
        (x, dim), t = args, tangents[0]
        if t is None or dim is None:
            return None if t is None else t * 0
        return out * (t - (out * t).sum(dim, keepdim=True))

    @classmethod
    def vmap(cls, args, batched):
        x, dim = args
        return cls.apply(x.unsqueeze(1), 1).squeeze(1) if dim is None else cls.apply(x, dim + 1)


class LogSoftmax(Function):
    node_name = "LogSoftmaxBackward0"
    @staticmethod
    def onnx(w, node, out):
        w.emit("LogSoftmax", [w.name(node.args[0])], out, axis=node.args[1])

    @staticmethod
    def forward(ctx, x, dim):
        require_float("log_softmax", x)
        xp = x.device.xp
        d = x._data
        shifted = d - _max(xp, d, dim)
        y = xp.asarray(shifted - xp.log(xp.exp(shifted).sum(axis=dim, keepdims=True)))
        ctx.save_for_backward(y)
        ctx.dim = dim
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad - y.exp() * grad.sum(ctx.dim, keepdim=True), None

    @staticmethod
    def jvp(args, tangents, out):
        (x, dim), t = args, tangents[0]
        if t is None or dim is None:
            return None if t is None else t * 0
        return t - (out.exp() * t).sum(dim, keepdim=True)

    @classmethod
    def vmap(cls, args, batched):
        x, dim = args
        return cls.apply(x.unsqueeze(1), 1).squeeze(1) if dim is None else cls.apply(x, dim + 1)


def _dim(x, dim, name):
    if dim is None:
        raise TypeError(f"{name}: pass dim explicitly, e.g. {name}(x, dim=-1) for the last dim "
                        "(which dim holds the classes matters, so labkit does not guess).")
    nd = max(x.ndim, 1)
    if not -nd <= dim < nd:
        raise IndexError(f"{name}: dim {dim} is out of range for shape {tuple(x.shape)}.")
    return dim % nd if x.ndim else None


def _as(x, dtype, _stacklevel):
    """Cast x to dtype first, as torch does (softmax in float32 of a half-precision tensor).
    The third positional is F.softmax's _stacklevel but torch.softmax's / Tensor.softmax's
    dtype: one function serves all three, so a dtype given there counts as dtype."""
    if dtype is None and isinstance(_stacklevel, dtype_cls):
        dtype = _stacklevel
    return x if dtype is None or x.dtype == dtype else x.to(dtype)


@tensor_method("softmax")
@autocast_op("softmax")
def softmax(x, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along dim: non-negative, sums to 1. dtype= converts x first (as
    torch: a float16 input summed in float32)."""
    return Softmax.apply(_as(x, dtype, _stacklevel), _dim(x, dim, "softmax"))


@tensor_method("log_softmax")
@autocast_op("log_softmax")
def log_softmax(x, dim=None, _stacklevel=3, dtype=None):
    """log(softmax(x)) without overflow or log(0); dtype= converts x first."""
    return LogSoftmax.apply(_as(x, dtype, _stacklevel), _dim(x, dim, "log_softmax"))
