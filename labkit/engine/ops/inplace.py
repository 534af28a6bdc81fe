"""In-place ops (add_, mul_, x[idx] = v, +=, ...): they change memory and bump the version.

Under no_grad (the optimizer step) they write straight into the array. When the graph is being
recorded, the out-of-place Function is applied to a snapshot of the old value, the result is
copied into the tensor's memory, and the tensor takes the new node as its grad_fn.

On a view (y[0] += 1, h.t().mul_(2)) the change is recorded on the base too, as torch does: the
base's new value is the view op's `put_back` of the new view, and every view of that base then
re-reads its history from it (otherwise a view would still point at the base's old history).
"""
from ..function import Function
from ..grad_mode import mode
from ..hooks import tell_tracer
from ..creation import zeros_like
from ..tensor import Tensor, tensor_method
from . import arithmetic, unary
from .shape import Clone
from ..dtype import from_np
from ..promotion import category, fill_value, number_bound, result_np
from .common import data, float_operands, require_float
from .common import operands as _operands
from .table import Numpy


def _recording(x, args):
    if not mode.enabled:
        return False
    if x._rg:
        return True
    return any(isinstance(a, Tensor) and a._rg for a in args)


def inplace(x, name, write, fn_cls, *args):
    """Run `write(x._data)` in place, or record fn_cls(x, *args) and copy its result into x."""
    if mode.enabled and x._no_grad_view:
        raise RuntimeError(
            f"{name}: A view was created in no_grad mode and is being modified inplace with "
            "grad mode enabled (its base requires grad). This is ambiguous, so torch forbids "
            "it too: create the view and change it both inside or both outside no_grad().")
    if not _recording(x, args):
        _checked(name, x, write)
        x._bump_version()
        tell_tracer(fn_cls, (x,) + args, x)   # x now holds fn_cls(x_old, *args)
        return x
    base = x._base
    check_leaf(name, x)
    if base is not None and base.grad_fn is None and (base._rg or x._rg):
        # torch's rule: a view that requires grad, of a leaf (x = arange(6.).view(2, 3)
        # .requires_grad_() is such a leaf; its views may not be changed in place either)
        raise RuntimeError(
            f"{name}: a view of a leaf tensor that requires grad (shape {tuple(base.shape)}) is "
            "being changed in place; autograd needs the leaf's original value. Wrap parameter "
            "updates in `with labkit.no_grad():`, or .clone() the view and change the copy.")
    if x._multi_output:
        raise RuntimeError(
            f"{name}: {x._multi_output} is a view and is being modified inplace. This view is "
            "the output of a function that returns multiple views (split, chunk, unbind); such "
            "views may not "
            "be changed in place while autograd records (as in torch). Use the out-of-place "
            "form, or .clone() the view first.")
    if base is not None and x._view_of is not None and _of_multi_output(x):
        node = getattr(x.grad_fn, "node_name", type(x.grad_fn).__name__)
        raise RuntimeError(
            f"{name}: Output 0 of {node.replace('Backward0', '')} is a view and is being "
            "modified inplace. This view is the output of a function that returns multiple "
            "views. Such functions do not allow the output views to be modified inplace (a "
            "view of an output of split, chunk or unbind counts as one, as in torch). Use the "
            "out-of-place form, or .clone() the split's outputs first.")
    if base is not None and x._view_of is None:
        raise RuntimeError(
            f"{name}: in-place change of this view of a tensor that requires grad is not "
            "supported by labkit. Use the out-of-place form, or .clone() the view first.")
    _check_writeable(name, x)
    out = fn_cls.apply(_snapshot(x), *args)
    _check_result(name, x, out)
    if base is None:
        _store(name, x, out)
    else:
        _write_back(name, x, out)
    x._bump_version()
    tell_tracer(_Copy, (x, out), x)   # x now holds out
    _refresh_views(x)
    return x


def check_leaf(name, x):
    """torch refuses an in-place change of a leaf that requires grad (while recording) before
    it looks at the op's other arguments."""
    if x._rg and x.grad_fn is None and mode.enabled:
        raise RuntimeError(
            f"{name}: a leaf Variable that requires grad is being used in an in-place "
            "operation. autograd needs the original value of this leaf "
            "tensor. Wrap parameter updates in `with labkit.no_grad():`, "
            "or use the out-of-place form (w = w - lr * g).")
    base = x._base
    if base is not None and base.grad_fn is None and (base._rg or x._rg) and mode.enabled \
            and not x._no_grad_view:
        raise RuntimeError(
            f"{name}: a view of a leaf Variable that requires grad is being used in an in-place "
            f"operation (the leaf has shape {tuple(base.shape)}). Wrap parameter updates in "
            "`with labkit.no_grad():`, or .clone() the view and change the copy.")


def _of_multi_output(x):
    """x is a view of a view ... of an output of split/chunk/unbind."""
    while x._view_of is not None:
        x = x._view_of[0]
        if x._multi_output:
            return True
    return False


def _snapshot(t):
    """A copy of t's value that carries t's current history (the input of the recorded op)."""
    old = Tensor._make(t._data.copy(), t.device, t._rg)
    old.grad_fn, old._out_idx = t.grad_fn, t._out_idx
    tell_tracer(Clone, (t,), old)     # old is a copy of t
    return old


def _check_result(name, x, out):
    if out._data.shape != x._data.shape:
        raise RuntimeError(f"{name}: the result has shape {tuple(out.shape)} but the tensor "
                           f"changed in place has shape {tuple(x.shape)}; in-place ops cannot "
                           "change the shape. Use the out-of-place form.")
    if category(out._data.dtype) > category(x._data.dtype):     # torch's canCast
        raise RuntimeError(f"{name}: the result has dtype {out.dtype}, which does not fit this "
                           f"tensor's dtype {x.dtype}. Convert first, e.g. x = x.float(), or use "
                           "the out-of-place form.")


def _store(name, x, out):
    """x takes out's values (into its own memory) and out's history."""
    _checked(name, x, lambda d: d.__setitem__(Ellipsis, out._data))
    x.grad_fn, x._out_idx, x._rg = out.grad_fn, out._out_idx, out._rg


def _write_back(name, view, new):
    """`view` now holds `new`: record its parent's new value, up to the base that owns memory."""
    parent, op, args = view._view_of
    new_parent = op.put_back(_snapshot(parent), new, *args)
    if parent._base is None:
        _store(name, parent, new_parent)
    else:
        _write_back(name, parent, new_parent)


def _refresh_views(x):
    """After x (or its base) changed history, let every live view of the base read the new one."""
    root = x._base if x._base is not None else x
    views = root._views
    if views:
        for v in list(views):
            _refresh(v)
    if x._base is not None:
        _refresh(x)


def _refresh(view):
    version = view._vc[0]
    if view._hist_v == version:
        return
    if view._multi_output and view._rg and not view._no_grad_view:
        view.grad_fn = StaleMultiOutputView(view._multi_output)   # torch refuses to use it
        view._hist_v = version
        return
    if view._view_of is None:     # (an output of split: nothing to re-derive it from)
        view._hist_v = version
        return
    parent, op, args = view._view_of
    if parent._base is not None:
        _refresh(parent)
    if type(parent.grad_fn) is StaleMultiOutputView:   # a view of a stale split output: using
        view.grad_fn, view._hist_v = parent.grad_fn, version   # it raises torch's error then,
        return                                                 # not this write
    fresh = op.apply(parent, *args)
    view.grad_fn, view._out_idx, view._rg = fresh.grad_fn, fresh._out_idx, fresh._rg
    view._hist_v = version


class StaleMultiOutputView:
    """The grad_fn of an output of split/chunk/unbind whose base changed in place afterwards:
    its history no longer describes its values, and torch refuses to use it rather than re-derive
    it (the outputs share one node). Recording an op on it (reading its grad_fn) raises torch's
    error."""
    __slots__ = ("message",)

    def __init__(self, label):
        self.message = (f"{label} is a view and its base or another view of its base has been "
                        "modified inplace. This view is the output of a function that returns "
                        "multiple views. Such functions do not allow the output views to be "
                        "modified inplace. You should replace the inplace operation by an "
                        "out-of-place one (or .clone() the outputs before the change).")

    def __bool__(self):
        raise RuntimeError(self.message)

    def __getattr__(self, name):
        raise RuntimeError(self.message)


def _span(a):
    """(first byte, one past the last byte) of a dense array's memory, None when not dense
    (torch's overlap check gives up there too: 'too hard')."""
    if not (a.flags.c_contiguous or a.flags.f_contiguous) or a.size == 0:
        return None
    start = a.__array_interface__["data"][0] if hasattr(a, "__array_interface__") \
        else a.data.ptr
    return start, start + a.nbytes


def check_overlap(name, dst, src, partial_only=True):
    """torch refuses a write whose source overlaps the memory written (y[1:] = y[:-1]): the
    result would depend on the copy order. The same memory exactly is fine for copies."""
    a, b = _span(dst), _span(src)
    if a is None or b is None or a[1] <= b[0] or b[1] <= a[0] or (partial_only and a == b):
        return
    raise RuntimeError(f"{name}: unsupported operation: some elements of the input tensor and "
                       "the written-to tensor refer to a single memory location. Please clone() "
                       "the source first (y[1:] = y[:-1].clone()).")


def _check_writeable(name, x):
    if x._data.size and not getattr(x._data.flags, "writeable", True):  # (cupy: no flag;
        # an empty expanded view writes nothing: torch accepts it)
        raise RuntimeError(f"{name}: this tensor's memory is read-only (it is an expand()ed view "
                           "where several elements share one memory location). Call .clone() "
                           "first, then change the copy.")


def _checked(name, x, write):
    _check_writeable(name, x)
    d = x._data if x._data.size else x.device.xp.empty(x._data.shape, x._data.dtype)
    try:
        write(d)      # (an empty target: a scratch array, so the shapes are still checked)
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
        if ufunc == "subtract":
            arithmetic._check_bool(name, x, other)     # as torch: no bool subtraction
        if alpha != 1:
            other = _scaled(x, other, alpha)
        if isinstance(other, Tensor):
            if other.device is not x.device:
                raise RuntimeError(f"{name}: expected both tensors on the same device, found "
                                   f"{x.device} and {other.device}; move one with .to().")
            if other._data.shape != x._data.shape:
                _check_broadcasts_to(name, other, x)
            same = other._data.dtype is x._data.dtype and (ufunc != "true_divide"
                                                          or x._data.dtype.kind == "f")
        else:
            same = False
        if not same:     # the optimizer's w -= lr * g skips this: one dtype, nothing to promote
            _check_result_type(name, ufunc, x, other)
        elif not mode.enabled and mode.tracer is None and x.device.type == "cpu":
            try:         # the optimizer's step: straight into x's memory (numpy copies on
                f = getattr(x.device.xp, ufunc)          # overlap); a bad shape or a
                f(x._data, other._data, out=x._data)     # read-only x writes nothing and
            except (ValueError, TypeError):              # raises, and the general path
                pass                                     # below says why
            else:
                x._bump_version()
                return x
        operands = float_operands if ufunc == "true_divide" else _operands

        def write(d):
            a, b = operands(x, other)           # computed in torch's result dtype, then stored
            f = getattr(x.device.xp, ufunc)
            if same and x.device.type == "cpu":  # straight into d (numpy copies on overlap)
                f(a, b, out=d)
            else:        # cast as an array: a 0-d result would be stored as a Python number
                d[...] = x.device.xp.asarray(f(a, b)).astype(d.dtype, copy=False)   # (no wrap)
        return inplace(x, name, write, fn_cls, other)
    op.__name__ = name
    op.__doc__ = f"In-place {ufunc}: x.{name}(other) changes x and returns it."
    tensor_method(name, dunder)(op)
    return op


def _scaled(x, other, alpha):
    """alpha * other in the result dtype of x and other, as torch computes x + alpha * other
    (an int16 x minus 2 * a uint8 255 subtracts 510, not the 254 uint8 arithmetic wraps to)."""
    dt = result_np(x, other)
    if isinstance(other, Tensor) and other._data.dtype != dt:
        other = other.to(from_np(dt))
    if dt.kind == "b":                  # a bool sum: alpha is True or False
        return other * bool(alpha) if isinstance(other, Tensor) else bool(other) and bool(alpha)
    return other * alpha


def _check_result_type(name, ufunc, x, other):
    """In place, x keeps its dtype: torch refuses a result of a higher category."""
    dt = result_np(x, other)
    if ufunc == "true_divide" and dt.kind in "biu":   # (a complex quotient stays complex)
        dt = result_np(1.0)                    # true division of integers gives float32
    if category(dt) > category(x._data.dtype):
        raise RuntimeError(f"{name}: result type {dt} can't be cast to the desired output "
                           f"type {x.dtype} (x's dtype; in-place ops keep it). Use the "
                           f"out-of-place form, or convert first: x = x.to({dt}).")


add_ = _binary("add_", "add", arithmetic.Add, "__iadd__")
sub_ = _binary("sub_", "subtract", arithmetic.Sub, "__isub__")
mul_ = _binary("mul_", "multiply", arithmetic.Mul, "__imul__")
_true_div_ = _binary("div_", "true_divide", arithmetic.Div, "__itruediv__")


@tensor_method("div_", "divide_")
def div_(x, other, *, rounding_mode=None):
    if rounding_mode is None:
        return _true_div_(x, other)
    result = arithmetic.div(x, other, rounding_mode=rounding_mode)
    if category(result._data.dtype) > category(x._data.dtype):
        raise RuntimeError(f"div_: result type {result.dtype} can't be cast to the desired output "
                           f"type {x.dtype} (x's dtype; in-place ops keep it). Use the "
                           "out-of-place form, or convert first.")
    return x.copy_(result)


def _copy_numpy(gen, node, name, out):
    """The value (a number or a tensor) cast into a fresh buffer of the output's dtype."""
    return [f"{name} = {out}", f"copyto({name}, {gen.arg(node.args[1])}, casting='unsafe')"]


class _Fill(Function):
    node_name = "FillBackward0"
    op_name, numpy = "fill_", Numpy(_copy_numpy)

    @staticmethod
    def forward(ctx, x, value):
        out = x.device.xp.empty_like(x._data)
        out[...] = data(value)
        return out

    @staticmethod
    def backward(ctx, grad):
        return zeros_like(grad), (grad.sum() if ctx.needs_input_grad[1] else None)


class _Copy(Function):
    node_name = "CopyBackwards"
    op_name, numpy = "copy_", Numpy(_copy_numpy)

    @staticmethod
    def forward(ctx, x, src):
        out = x.device.xp.empty_like(x._data)
        out[...] = src._data
        return out

    @staticmethod
    def backward(ctx, grad):
        return zeros_like(grad), (grad if ctx.needs_input_grad[1] else None)


@tensor_method("zero_")
def zero_(x):
    return inplace(x, "zero_", lambda d: d.fill(0), _Fill, 0)


@tensor_method("fill_")
def fill_(x, value):
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value._data.ndim} dimensions. Use x.copy_(value) to copy a tensor "
                           "in, or fill with value.item().")
    if not isinstance(value, Tensor):
        value = fill_value(x._data.dtype, value)
    return inplace(x, "fill_", lambda d: d.__setitem__(Ellipsis, data(value)), _Fill, value)


@tensor_method("copy_")
def copy_(x, src, non_blocking=False):
    """Copy src's values into x (broadcasting src; across devices too: an explicit transfer,
    asynchronous from pinned memory with non_blocking=True, as to())."""
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_: expected a tensor, got {type(src).__name__}.")
    if src.device is not x.device:
        src = src.to(x.device, non_blocking=non_blocking)
    check_overlap("copy_", x._data, src._data)
    _check_broadcasts_to("copy_", src, x)
    return inplace(x, "copy_", lambda d: d.__setitem__(Ellipsis, src._data), _Copy, src)


def _check_broadcasts_to(name, src, x):
    """torch's rule for writing src into x: src broadcasts to x's shape *without* growing it
    (numpy also drops src's leading 1s: copying a [1] into a [] tensor)."""
    s, d = tuple(src.shape), tuple(x.shape)
    if len(s) > len(d) or any(a not in (1, b) for a, b in zip(s[::-1], d[::-1])):
        raise RuntimeError(f"{name}: output with shape {list(d)} doesn't match the broadcast "
                           f"shape {list(s)}: in place, the other operand (shape {s}) must "
                           f"broadcast to the changed tensor's shape {d} (in-place ops cannot "
                           "change the shape; reshape the operand or use the out-of-place form).")


@tensor_method("clamp_", "clip_")
def clamp_(x, min=None, max=None):
    if x._data.dtype.kind == "c":
        raise NotImplementedError("clamp is not supported for complex types (as in torch: "
                                  "complex numbers have no order). Clamp z.real or z.abs().")
    cls = unary.Clamp if min is not None and max is not None else \
        unary.ClampMin if min is not None else unary.ClampMax
    if min is None and max is None:
        raise RuntimeError("clamp_: at least one of min or max must be given.")
    if isinstance(min, Tensor) or isinstance(max, Tensor):     # tensor bounds: out of place,
        result = unary.clamp(x.clone(), min, max)              # then written back (as torch,
        if category(result._data.dtype) > category(x._data.dtype):   # in x's dtype)
            raise RuntimeError(f"clamp_: result type {result.dtype} can't be cast to the "
                               f"desired output type {x.dtype}. Convert first, or use clamp().")
        return x.copy_(result)
    # integer bounds are converted to x's dtype, as torch: one that does not fit raises, a
    # negative one wraps into an unsigned dtype (uint8.clamp_(-2, 2) clamps to [254, 2])
    lo, hi = number_bound(x._data.dtype, min), number_bound(x._data.dtype, max)
    return inplace(x, "clamp_", lambda d: x.device.xp.clip(d, lo, hi, out=d), cls, min, max)


@tensor_method("relu_")
def relu_(x):
    return inplace(x, "relu_", lambda d: x.device.xp.maximum(d, 0, out=d), unary.Relu)


def leaky_relu_(x, negative_slope=0.01):
    """F.leaky_relu_ (torch has no Tensor method of this name)."""
    from .activation import LeakyRelu
    require_float("leaky_relu_", x)
    return inplace(x, "leaky_relu_", lambda d: x.device.xp.multiply(
        d, negative_slope, out=d, where=~(d > 0)), LeakyRelu, negative_slope)


@tensor_method("neg_")
def neg_(x):
    arithmetic._check_bool("neg_", x)
    return inplace(x, "neg_", lambda d: x.device.xp.negative(d, out=d), arithmetic.Neg)


@tensor_method("masked_fill_")
def masked_fill_(x, mask, value):
    """Set x to value where mask (broadcast to x's shape) is True, in place."""
    _check_mask("masked_fill_", mask)
    if tuple(mask.shape) != tuple(x.shape):
        mask = mask.expand(x.shape)
    return x.__setitem__(mask, _fill_value(x, value)) or x


@tensor_method("masked_fill")
def masked_fill(x, mask, value):
    """x with value where mask is True; the result keeps x's dtype, as torch (a bool tensor
    filled with 1.5 stays bool)."""
    from .select import where
    _check_mask("masked_fill", mask)
    out = where(mask, _fill_value(x, value), x)
    if not out._data.flags.c_contiguous:     # torch fills a contiguous copy of x (x.t().masked_fill
        out._data = out.device.xp.ascontiguousarray(out._data)   # (...).view(-1) works there)
    return out


def _check_mask(name, mask):
    if not isinstance(mask, Tensor) or mask._data.dtype.kind != "b":
        raise RuntimeError(f"{name}: expected a bool tensor as mask, got "
                           f"{getattr(mask, 'dtype', type(mask).__name__)}. Build it with a "
                           "comparison, e.g. x > 0.")


def _fill_value(x, value):
    """value in x's dtype: a number converted as torch does, a 0-d tensor cast with .to."""
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"masked_fill: only supports a 0-dimensional value tensor, but "
                               f"got one with shape {tuple(value.shape)}. Use labkit.where(mask, "
                               "value, x) to fill from a tensor.")
        if x._data.dtype.kind in "iu":
            fill_value(x._data.dtype, value.item())    # as torch: -32768 does not fit uint8
        return value if value.dtype == x.dtype else value.to(x.dtype)
    return fill_value(x._data.dtype, value)


@tensor_method("clamp_min_")
def clamp_min_(x, min):
    return clamp_(x, min=min)


@tensor_method("clamp_max_")
def clamp_max_(x, max):
    return clamp_(x, max=max)
