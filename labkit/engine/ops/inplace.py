"""In-place ops (add_, mul_, x[idx] = v, +=, ...): they change memory and bump the version.

Under no_grad (the optimizer step) they write straight into the array. When the graph is being
recorded, the out-of-place Function is applied to a snapshot of the old value, the result is
copied into the tensor's memory, and the tensor takes the new node as its grad_fn.
"""
from ..function import Function
from ..grad_mode import mode
from ..tensor import Tensor, tensor_method
from . import arithmetic, unary
from .common import data


def _recording(x, args):
    if not mode.enabled:
        return False
    if x._rg:
        return True
    return any(isinstance(a, Tensor) and a._rg for a in args)


def inplace(x, name, write, fn_cls, *args):
    """Run `write(x.data)` in place, or record fn_cls(x, *args) and copy its result into x."""
    if _recording(x, args):
        if x._rg and x.grad_fn is None:
            raise RuntimeError(
                f"{name}: a leaf tensor that requires grad is being changed in place. autograd "
                "needs the original value. Wrap parameter updates in `with labkit.no_grad():`, "
                "or use the out-of-place form (w = w - lr * g).")
        if x._base is not None and x._base._rg:
            raise RuntimeError(
                f"{name}: in-place change of a view of a tensor that requires grad is not "
                "supported by labkit. Use the out-of-place form, or .clone() the view first.")
        old = Tensor._make(x.data.copy(), x.device, x._rg)
        old.grad_fn, old._out_idx = x.grad_fn, x._out_idx
        out = fn_cls.apply(old, *args)
        _checked(name, x, lambda d: d.__setitem__(Ellipsis, out.data))
        x.grad_fn, x._out_idx, x._rg = out.grad_fn, out._out_idx, out._rg
    else:
        _checked(name, x, write)
    x._bump_version()
    return x


def _checked(name, x, write):
    if not x.data.flags.writeable:
        raise RuntimeError(f"{name}: this tensor's memory is read-only (it is an expand()ed view "
                           "where several elements share one memory location). Call .clone() "
                           "first, then change the copy.")
    try:
        write(x.data)
    except TypeError as e:
        if "cast" not in str(e):
            raise
        raise RuntimeError(f"{name}: the result would not fit this tensor's dtype {x.dtype} "
                           f"({e}). Convert first, e.g. x = x.float(), or use the out-of-place "
                           "form.") from None
    except ValueError as e:
        raise RuntimeError(f"{name}: cannot write a result into a tensor of shape "
                           f"{tuple(x.shape)} in place: {e}. In-place ops cannot change the "
                           "shape; use the out-of-place form.") from None


def _binary(name, ufunc, fn_cls, dunder):
    def op(x, other, alpha=1):
        if alpha != 1:
            other = other * alpha
        if isinstance(other, Tensor) and other.device is not x.device:
            raise RuntimeError(f"{name}: expected both tensors on the same device, found "
                               f"{x.device} and {other.device}; move one with .to().")
        o = data(other)
        return inplace(x, name, lambda d: getattr(x.device.xp, ufunc)(d, o, out=d), fn_cls, other)
    op.__name__ = name
    op.__doc__ = f"In-place {ufunc}: x.{name}(other) changes x and returns it."
    tensor_method(name, dunder)(op)
    return op


add_ = _binary("add_", "add", arithmetic.Add, "__iadd__")
sub_ = _binary("sub_", "subtract", arithmetic.Sub, "__isub__")
mul_ = _binary("mul_", "multiply", arithmetic.Mul, "__imul__")
div_ = _binary("div_", "true_divide", arithmetic.Div, "__itruediv__")


class _Fill(Function):
    node_name = "FillBackward0"

    @staticmethod
    def forward(ctx, x, value):
        out = x.device.xp.empty_like(x.data)
        out[...] = data(value)
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad * 0, (grad.sum() if ctx.needs_input_grad[1] else None)


class _Copy(Function):
    node_name = "CopyBackwards"

    @staticmethod
    def forward(ctx, x, src):
        out = x.device.xp.empty_like(x.data)
        out[...] = src.data
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad * 0, (grad if ctx.needs_input_grad[1] else None)


@tensor_method("zero_")
def zero_(x):
    return inplace(x, "zero_", lambda d: d.fill(0), _Fill, 0)


@tensor_method("fill_")
def fill_(x, value):
    return inplace(x, "fill_", lambda d: d.__setitem__(Ellipsis, data(value)), _Fill, value)


@tensor_method("copy_")
def copy_(x, src):
    """Copy src's values into x (broadcasting src; across devices too: an explicit transfer)."""
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_: expected a tensor, got {type(src).__name__}.")
    if src.device is not x.device:
        src = src.to(x.device)
    return inplace(x, "copy_", lambda d: d.__setitem__(Ellipsis, src.data), _Copy, src)


@tensor_method("clamp_", "clip_")
def clamp_(x, min=None, max=None):
    cls = unary.Clamp if min is not None and max is not None else \
        unary.ClampMin if min is not None else unary.ClampMax
    if min is None and max is None:
        raise RuntimeError("clamp_: at least one of min or max must be given.")
    return inplace(x, "clamp_", lambda d: x.device.xp.clip(d, min, max, out=d), cls, min, max)


@tensor_method("relu_")
def relu_(x):
    return inplace(x, "relu_", lambda d: x.device.xp.maximum(d, 0, out=d), unary.Relu)


@tensor_method("neg_")
def neg_(x):
    return inplace(x, "neg_", lambda d: x.device.xp.negative(d, out=d), arithmetic.Neg)


@tensor_method("masked_fill_")
def masked_fill_(x, mask, value):
    """Set x to value where mask is True, in place."""
    return x.__setitem__(mask, value) or x


@tensor_method("masked_fill")
def masked_fill(x, mask, value):
    from .select import where
    return where(mask, value, x)
