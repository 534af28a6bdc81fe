"""Reductions: sum, mean, max/min (all or along a dim), amax/amin, var, std, argmax/argmin."""
import builtins
import contextlib

import numpy as np

from ..dtype import scalar_type_name
from ..function import Function, _call
from ..promotion import check_grad_dtype
from ..tensor import Tensor, tensor_method
from .table import Numpy
from . import rules

from .. import return_types as _rt


def _dims(dim, ndim, empty_is_all=True):
    """dim (None, int or tuple) as a sorted tuple of non-negative axes; as torch, an empty
    tuple or list means every dim (numpy would reduce nothing)."""
    if dim is None:
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if not dims:
        return tuple(range(ndim)) if empty_is_all else ()
    out, seen = [], []
    n = builtins.max(ndim, 1)
    for d in dims:
        if not -n <= d < n:
            raise IndexError(f"dimension {d} is out of range for a tensor with {ndim} dimension(s) "
                             f"(valid: {-n} to {n - 1}).")
        seen.append(d % n)       # (0-d: (0, -1) names dim 0 twice, as torch says)
        if ndim:                 # a 0-d tensor accepts dim 0 or -1 and reduces nothing
            out.append(d % ndim)
    if len(set(seen)) != len(seen):
        raise RuntimeError(f"dims {dims}: a dimension appears more than once; list each dim of "
                           f"the tensor (it has {ndim}) at most once.")
    return tuple(sorted(out))


def _opmath(d):
    """float16 and bfloat16 arrays as float32, the type torch accumulates them in (its opmath
    type): numpy keeps float16 squares and running sums in float16, where they overflow."""
    return d.astype("float32") if d.dtype.itemsize == 2 and d.dtype.kind in "fV" else d


def _expand_back(grad, shape, dims, keepdim):
    """Re-insert reduced dims (when not kept) and broadcast the gradient to the input shape."""
    if not keepdim and dims and len(shape):
        kept = tuple(1 if i in dims else s for i, s in enumerate(shape))
        grad = grad.reshape(kept)
    return grad.expand(shape)


def _expand_arrays(g, shape, dims, keepdim, xp):
    """_expand_back on arrays (backward_arrays): a read-only broadcast view, as the Tensor
    form gives."""
    if type(g) is np.ndarray and g.ndim == 0 and g.dtype.kind == "f":
        # a loss's sum or mean: every stride 0, built directly (broadcast_to's wrapper: 3 us)
        out = np.ndarray(shape, g.dtype, g, 0, (0,) * len(shape))
        out.flags.writeable = False
        return out
    if not keepdim and dims and len(shape):
        g = g.reshape(tuple(1 if i in dims else s for i, s in enumerate(shape)))
    return xp.broadcast_to(g, shape)


def _float_in(node):
    return node.args[0].dtype.kind == "f"


def _reduce_numpy(op, gen, node, name, out):
    x, dims, keepdim = node.args
    return [f"{name} = {gen.arg(x)}.{op}(axis={gen.lit(dims)}, keepdims={gen.lit(keepdim)}, "
            f"out={out})"]


class Sum(Function):
    node_name = "SumBackward1"
    numpy = Numpy(lambda gen, node, name, out: _reduce_numpy("sum", gen, node, name, out),
                  when=_float_in)

    @staticmethod
    def onnx(w, node, out):
        x, dims, keepdim = node.args
        axes = list(dims) if dims is not None else list(range(len(w.ref(node).shape)))
        w.emit("ReduceSum", [w.name(x), w.const(axes, "int64")], out, keepdims=int(bool(keepdim)))

    @staticmethod
    def forward(ctx, x, dims, keepdim):
        ctx.shape, ctx.dims, ctx.keepdim = x._data.shape, dims, keepdim
        d = x._data
        if dims is None and d.dtype.kind == "f":   # x.sum(): no keywords to pass (0.5 us)
            return x.device.xp.asarray(d.sum())
        if d.dtype.kind not in "fVc":        # torch sums bool and every integer type in int64
            return x.device.xp.asarray(d.sum(axis=dims, keepdims=keepdim, dtype="int64"))
        if d.dtype.kind == "V":              # bfloat16: accumulate in float32, as torch
            return x.device.xp.asarray(d.sum(axis=dims, keepdims=keepdim, dtype="float32")
                                       .astype(d.dtype))
        return x.device.xp.asarray(d.sum(axis=dims, keepdims=keepdim))

    @staticmethod
    def backward(ctx, grad):
        return _expand_back(grad, ctx.shape, ctx.dims, ctx.keepdim), None, None

    @staticmethod
    def backward_arrays(ctx, grad):
        return _expand_arrays(grad, ctx.shape, ctx.dims, ctx.keepdim, ctx._device.xp), None, None

    jvp = classmethod(rules.same_op)
    vmap = classmethod(rules.dims_after_batch)


class SumAll(Sum):
    node_name = "SumBackward0"
    op_name = "sum"


class Mean(Function):
    node_name = "MeanBackward1"
    numpy = Numpy(lambda gen, node, name, out: _reduce_numpy("mean", gen, node, name, out),
                  when=_float_in)

    @staticmethod
    def onnx(w, node, out):
        x, dims, keepdim = node.args
        w.emit("ReduceMean", [w.name(x)], out, axes=list(dims), keepdims=int(bool(keepdim)))

    @staticmethod
    def forward(ctx, x, dims, keepdim):
        if x._data.dtype.kind not in "fVc":
            raise RuntimeError(f"mean(): input dtype must be floating point, got {x.dtype}. "
                               "Convert first: x.float().mean().")
        ctx.shape, ctx.dims, ctx.keepdim = x._data.shape, dims, keepdim
        n = 1
        for d in dims:
            n *= x._data.shape[d]
        ctx.n = n
        d = x._data
        if n and d.dtype.kind == "f" and d.dtype.itemsize >= 4:
            # numpy's mean is this sum and division (the same bits) behind a Python wrapper
            return x.device.xp.asarray(d.sum(axis=dims, keepdims=keepdim) / n)
        # float16 (numpy sums it in float32), bfloat16 (summed in float32 here, as torch),
        # and n = 0 (nan; torch does not warn)
        with (_quiet(x.device.xp) if n == 0 else contextlib.nullcontext()):
            if d.dtype.kind == "V":
                return x.device.xp.asarray(d.mean(axis=dims, keepdims=keepdim, dtype="float32")
                                           .astype(d.dtype))
            return x.device.xp.asarray(d.mean(axis=dims, keepdims=keepdim))

    @staticmethod
    def backward(ctx, grad):
        if not ctx.n:   # torch's order, expand then divide: the division by 0 meets an
            #             empty tensor, so a second derivative through it is 0, not 0 * inf
            return _expand_back(grad, ctx.shape, ctx.dims, ctx.keepdim) / 0, None, None
        return _expand_back(grad / ctx.n, ctx.shape, ctx.dims, ctx.keepdim), None, None

    @staticmethod
    def backward_arrays(ctx, grad):
        if not ctx.n:                      # n = 0: the Tensor form's nan, without a warning
            return NotImplemented
        xp = ctx._device.xp
        return _expand_arrays(xp.asarray(grad / ctx.n), ctx.shape, ctx.dims, ctx.keepdim,
                              xp), None, None

    jvp = classmethod(rules.same_op)
    vmap = classmethod(rules.dims_after_batch)


class MeanAll(Mean):
    node_name = "MeanBackward0"
    op_name = "mean"


class Amax(Function):
    """Max over dims; ties share the gradient evenly (amax and the all-element max)."""
    node_name = "AmaxBackward0"
    pick = "max"
    nan_wins = False  # torch: x.max() sends the gradient to a nan that won; amax gives nan

    @classmethod
    def forward(cls, ctx, x, dims, keepdim):
        _check_nonempty(cls.pick if cls.nan_wins else cls.__name__.lower(), x,
                        () if cls.nan_wins else dims)   # max(): torch's RuntimeError
        y = x.device.xp.asarray(getattr(x._data, cls.pick)(axis=dims, keepdims=True))
        out = y if keepdim else y.reshape(tuple(s for i, s in enumerate(y.shape) if i not in dims))
        ctx.save_for_backward(x, out)   # the output too: an in-place change to it is caught
        ctx.keep_shape, ctx.dims, ctx.nan_wins = y.shape, dims, cls.nan_wins
        return out

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        if ctx.nan_wins:     # max() / min(): torch's evenly_distribute_backward
            return evenly_distribute(grad, x, y.detach()), None, None
        # torch's scale_grad_by_count: (grad / count) * mask, so 0 * inf is nan here (as torch)
        mask = (x == y.detach().reshape(ctx.keep_shape)).to(x.dtype)
        return grad.reshape(ctx.keep_shape) / mask.sum(ctx.dims, keepdim=True) * mask, None, None


    @classmethod
    def jvp(cls, args, tangents, out):
        (x, dims, keepdim), t = args, tangents[0]
        if t is None:
            return None
        kept = tuple(1 if i in dims else s for i, s in enumerate(x.shape))
        y = out if keepdim else out.reshape(kept)
        hit = (x == y).to(x.dtype)                 # ties share, as in backward
        return (t * hit).sum(dims, keepdim=keepdim) / hit.sum(dims, keepdim=keepdim)

    vmap = classmethod(rules.dims_after_batch)


def _check_nonempty(name, x, dims, exc=RuntimeError):
    shape = x._data.shape
    if x._data.size == 0 and (not shape or not dims):
        raise exc(f"{name}(): cannot reduce an empty tensor (shape {tuple(shape)}) to "
                           "one value; there is no extreme of nothing. Give a dim whose size is "
                           "not 0, or check the input is not empty.")
    for d in dims:
        if shape[d] == 0:
            raise IndexError(f"{name}(): expected reduction dim {d} to have non-zero size, but the "
                             f"input has shape {tuple(shape)}. Reduce over another dim, or check "
                             "the input is not empty.")


def evenly_distribute(grad, x, y):
    """The gradient of a whole-tensor max/min/median y (0-d): grad / count at the elements
    equal to y (at the nans when y is nan), 0 elsewhere. Filled in, as torch's CPU
    evenly_distribute_backward, not multiplied by a mask: an inf gradient gives 0, not nan,
    at the other elements (sqrt(x.max()) at max 0)."""
    from .select import where
    mask = (x == y) | (x.isnan() & y.isnan())   # tensor ops only: vmap batches it
    return where(mask, grad / mask.sum(), 0.0)


class Amin(Amax):
    node_name = "AminBackward0"
    pick = "min"


class MaxAll(Amax):
    node_name = "MaxBackward1"
    op_name = "max"
    nan_wins = True


class MinAll(Amin):
    node_name = "MinBackward1"
    op_name = "min"
    nan_wins = True


class MaxDim(Function):
    """(values, indices) along one dim; the gradient goes to the index that won."""
    node_name = "MaxBackward0"
    pick = "max"

    @classmethod
    def forward(cls, ctx, x, dim, keepdim):
        xp = x.device.xp
        idx = getattr(xp, "arg" + cls.pick)(x._data, axis=dim)
        idx_k = xp.expand_dims(idx, dim)
        vals = xp.take_along_axis(x._data, idx_k, axis=dim)
        if not keepdim:
            vals = vals.squeeze(dim)
        ctx.shape, ctx.dim, ctx.idx = x._data.shape, dim, idx_k
        out_idx = idx_k if keepdim else idx
        ctx.mark_non_differentiable(out_idx)
        return vals, out_idx

    @staticmethod
    def backward(ctx, grad, _grad_idx):
        g = grad if grad.ndim == len(ctx.shape) else grad.unsqueeze(ctx.dim)
        return _ScatterAlong.apply(g, ctx.idx, ctx.shape, ctx.dim), None, None


class MinDim(MaxDim):
    node_name = "MinBackward0"
    pick = "min"


class _ScatterAlong(Function):
    """Put g into zeros of `shape` at idx along dim (the backward of max/min along a dim)."""
    node_name = "ScatterBackward0"

    @staticmethod
    def forward(ctx, g, idx, shape, dim):
        xp = g.device.xp
        positions = xp.arange(shape[dim]).reshape([-1 if i == dim else 1 for i in range(len(shape))])
        ctx.idx, ctx.dim = idx, dim
        return xp.where(positions == idx, g._data, xp.zeros((), g._data.dtype))

    @staticmethod
    def backward(ctx, grad):
        return _GatherAlong.apply(grad, ctx.idx, ctx.dim), None, None, None


class _GatherAlong(Function):
    node_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, x, idx, dim):
        ctx.idx, ctx.dim, ctx.shape = idx, dim, x._data.shape
        return x.device.xp.take_along_axis(x._data, idx, axis=dim)

    @staticmethod
    def backward(ctx, grad):
        return _ScatterAlong.apply(grad, ctx.idx, ctx.shape, ctx.dim), None, None


def _real_np(dt):
    """A complex dtype's parts (a variance of complex numbers is real, as torch's)."""
    return dt.type(0).real.dtype if dt.kind == "c" else dt


def _var_backward(ctx, grad, x):
    """torch's var_backward: 2 / (n - correction) * grad * (x - mean). Over the whole tensor
    (no dim, or 0-d) with n <= correction it is grad * (nan where x equals the mean, else inf),
    constant in x; along dims 2 / 0 is inf and a negative n - correction stays negative."""
    from .select import where
    dof = ctx.dof
    if ctx.whole:
        if dof <= 0:
            xd = x.detach()
            return grad * where(xd == xd.mean(), float("nan"), float("inf")).to(x.dtype)
        return grad * (2.0 / dof) * (x - x.mean())
    kept = tuple(1 if i in ctx.dims else s for i, s in enumerate(x.shape))
    g = grad if ctx.keepdim else grad.reshape(kept)
    return g * (2.0 / dof if dof else float("inf")) * (x - x.mean(ctx.dims, keepdim=True))


class Var(Function):
    """Variance with `correction` (1 = unbiased, torch's default)."""
    node_name = "VarBackward0"

    @staticmethod
    def forward(ctx, x, dims, correction, keepdim):
        if x._data.dtype.kind not in "fVc":
            raise RuntimeError(f"var(): input dtype must be floating point, got {x.dtype}.")
        ctx.whole = dims is None or x._data.ndim == 0   # all of x: torch's backward differs
        dims = tuple(range(x._data.ndim)) if dims is None else dims
        n = 1
        for d in dims:
            n *= x._data.shape[d]
        ctx.save_for_backward(x)
        ctx.dims, ctx.keepdim, ctx.dof = dims, keepdim, float(n - correction)
        with _dof_check("var", n, correction, x.device.xp):
            v = _opmath(x._data).var(axis=dims, ddof=correction, keepdims=keepdim)
        return x.device.xp.asarray(v).astype(_real_np(x._data.dtype), copy=False)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return _var_backward(ctx, grad, x), None, None, None

    @classmethod
    def jvp(cls, args, tangents, out):
        (x, dims, correction, keepdim), t = args, tangents[0]
        if t is None:
            return None
        dims = tuple(range(x.ndim)) if dims is None else dims   # var() over everything
        n = 1
        for d in dims:
            n *= x.shape[d]
        centered = x - x.mean(dims, keepdim=True)        # 2 / (n - c) * sum((x - mean) * t)
        t_var = (centered * t).sum(dims, keepdim=keepdim) * (2.0 / builtins.max(n - correction, 0))
        if cls is Var:
            return t_var
        from .select import where
        zero = out == 0
        return where(zero, 0.0, t_var / where(zero, 1.0, 2 * out))

    vmap = classmethod(rules.dims_after_batch)


def _quiet(xp):
    """numpy warns about empty slices (nan) where torch is silent; cupy never warns. Only
    entered on that path: catch_warnings is not free."""
    if hasattr(xp, "errstate"):
        import warnings
        stack = contextlib.ExitStack()
        stack.enter_context(xp.errstate(divide="ignore", invalid="ignore"))
        stack.enter_context(warnings.catch_warnings())
        warnings.simplefilter("ignore", RuntimeWarning)
        return stack
    return contextlib.nullcontext()


def _dof_check(name, n, correction, xp):
    """torch's warning when n - correction <= 0 (the result is inf or nan), not numpy's."""
    if n - correction <= 0:
        import warnings
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=2)
        return _quiet(xp)
    return contextlib.nullcontext()


class Std(Function):
    node_name = "StdBackward0"

    @staticmethod
    def forward(ctx, x, dims, correction, keepdim):
        if x._data.dtype.kind not in "fVc":
            raise RuntimeError(f"std(): input dtype must be floating point, got {x.dtype}.")
        ctx.whole = dims is None or x._data.ndim == 0   # all of x: torch's backward differs
        dims = tuple(range(x._data.ndim)) if dims is None else dims
        n = 1
        for d in dims:
            n *= x._data.shape[d]
        with _dof_check("std", n, correction, x.device.xp):
            y = _opmath(x._data).std(axis=dims, ddof=correction, keepdims=keepdim)
        y = x.device.xp.asarray(y).astype(_real_np(x._data.dtype), copy=False)
        ctx.save_for_backward(x, y)
        ctx.dims, ctx.keepdim, ctx.dof = dims, keepdim, float(n - correction)
        return y

    @staticmethod
    def backward(ctx, grad):
        """torch's std_backward: var's backward of grad / (2 std), then 0 where std is 0
        (masked after dividing, as torch: a second derivative there is nan, as in torch)."""
        x, y = ctx.saved_tensors
        return _var_backward(ctx, (grad / (y * 2)).masked_fill(y == 0, 0.0), x), None, None, None

    jvp = classmethod(Var.jvp.__func__)   # the variance's tangent, then d sqrt
    vmap = classmethod(rules.dims_after_batch)


@tensor_method("sum")
def sum(x, dim=None, keepdim=False, dtype=None):
    """Sum of all elements, or along dim (an int or a tuple of ints)."""
    if dtype is not None:    # as torch: the sum is computed and returned in dtype (int8 wraps)
        check_grad_dtype("sum", x, dtype)
        return sum(x.to(dtype), dim, keepdim).to(dtype)
    if dim is None:
        if isinstance(x, Tensor):          # x.sum(), a loss: straight to the op
            return _call(SumAll, (x, None, False), x.device, x._rg)
        return SumAll.apply(x, None, False)
    return Sum.apply(x, _dims(dim, x._data.ndim), keepdim)


def _float_only(name, x):
    """torch checks the dtype before the dims: the same error first."""
    if x._data.dtype.kind not in "fVc":    # V: bfloat16, c: complex
        words = ("std and var only support floating point and complex dtypes" if name != "mean"
                 else "could not infer output dtype. Input dtype must be either a floating "
                 f"point or complex dtype. Got: {scalar_type_name(x)}")      # torch's words
        raise RuntimeError(f"{name}(): {words} ({x.dtype}). Convert first: x.float().{name}().")


@tensor_method("mean")
def mean(x, dim=None, keepdim=False, *, dtype=None):
    if dtype is not None:    # as torch: x converted to dtype first (mean(dtype=float32) of ints)
        x = x.to(dtype)
    _float_only("mean", x)
    if dim is None:
        return MeanAll.apply(x, _dims(None, x._data.ndim), False)
    return Mean.apply(x, _dims(dim, x._data.ndim), keepdim)


def _max_min(x, dim, keepdim, all_cls, dim_cls, result):
    if dim is None:
        return all_cls.apply(x, _dims(None, x._data.ndim), False)
    d = _dims(dim, x._data.ndim)
    if not d:                    # a 0-d tensor: its one element is the max, at index 0
        values, indices = dim_cls.apply(x.reshape(1), 0, False)
        return result(values.reshape(()), indices.reshape(()))  # keepdim: still 0-d
    d = d[0]
    _check_nonempty(dim_cls.pick, x, (d,))
    return result(*dim_cls.apply(x, d, keepdim))


@tensor_method("max")
def max(x, dim=None, keepdim=False, *, other=None):
    """The largest element; with dim, a (values, indices) pair along that dim; with a tensor
    (max(x, y) or other=y), the elementwise maximum, as labkit.maximum."""
    if isinstance(dim, Tensor) or other is not None:
        return x.maximum(dim if other is None else other)
    return _max_min(x, dim, keepdim, MaxAll, MaxDim, _rt.max)


@tensor_method("min")
def min(x, dim=None, keepdim=False, *, other=None):
    if isinstance(dim, Tensor) or other is not None:
        return x.minimum(dim if other is None else other)
    return _max_min(x, dim, keepdim, MinAll, MinDim, _rt.min)


@tensor_method("amax")
def amax(x, dim=(), keepdim=False):
    return Amax.apply(x, _whole_dims("amax", x, dim), keepdim)


@tensor_method("amin")
def amin(x, dim=(), keepdim=False):
    return Amin.apply(x, _whole_dims("amin", x, dim), keepdim)


def _whole_dims(name, x, dim):
    if dim is None or (not isinstance(dim, int) and len(dim) == 0):
        _check_nonempty(name, x, ())     # every dim: torch's RuntimeError on an empty tensor
        return tuple(range(x._data.ndim))
    return _dims(dim, x._data.ndim)


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased in (None, True) else 0


@tensor_method("var")
def var(x, dim=None, unbiased=None, keepdim=False, *, correction=None):
    if isinstance(dim, bool):            # x.var(False): the old positional `unbiased`
        dim, unbiased = None, dim
    _float_only("var", x)
    return Var.apply(x, None if dim is None else _dims(dim, x._data.ndim),
                     _correction(unbiased, correction), keepdim)


@tensor_method("std")
def std(x, dim=None, unbiased=None, keepdim=False, *, correction=None):
    if isinstance(dim, bool):            # x.std(False): the old positional `unbiased`
        dim, unbiased = None, dim
    _float_only("std", x)
    return Std.apply(x, None if dim is None else _dims(dim, x._data.ndim),
                     _correction(unbiased, correction), keepdim)


class ArgMax(Function):
    """Index of the largest element (of the flattened tensor when dim is None); an op like
    any other (not differentiable: its output is integer), so a tracer sees it."""
    pick = "argmax"

    @classmethod
    def forward(cls, ctx, x, dim, keepdim):
        xp = x.device.xp
        if x._data.dtype.kind == "b":
            raise RuntimeError(f"{cls.pick}(): does not support bool input (as torch). Convert "
                               f"first: mask.long().{cls.pick}().")
        if dim is None:
            _check_nonempty(cls.pick, x, (), IndexError)
            out = xp.asarray(getattr(x._data, cls.pick)())
            return out.reshape((1,) * x._data.ndim) if keepdim else out
        (dim,) = _dims(dim, x._data.ndim) or (None,)
        if dim is None:              # a 0-d tensor: its one element, at index 0, stays 0-d
            return xp.zeros((), "int64")
        _check_nonempty(cls.pick, x, (dim,))
        out = getattr(x._data, cls.pick)(axis=dim)
        return xp.expand_dims(out, dim) if keepdim else out


class ArgMin(ArgMax):
    pick = "argmin"


@tensor_method("argmax")
def argmax(x, dim=None, keepdim=False):
    """Index of the largest element (flattened when dim is None); not differentiable."""
    return ArgMax.apply(x, dim, keepdim)


@tensor_method("argmin")
def argmin(x, dim=None, keepdim=False):
    return ArgMin.apply(x, dim, keepdim)
