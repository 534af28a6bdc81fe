"""layer_norm, group_norm and batch_norm as one op each, as torch computes them, so that
`y.grad_fn` is NativeLayerNormBackward0 / NativeGroupNormBackward0 / NativeBatchNormBackward0
with (input, weight, bias) as its next_functions.

The three differ only in their layout: which elements share a mean and variance (a group) and
how the per-feature weight and bias broadcast. Each normalises x within its groups,
x_hat = (x - mean) / sqrt(var + eps) (var biased), then y = x_hat * weight + bias.

Backward is torch's formula, rstd * (g - mean(g) - x_hat * mean(g * x_hat)) with g = dy * weight,
written with Tensor ops that recompute the statistics from x, so that create_graph
differentiates through them (second derivatives); backward_arrays is the same formula on the
statistics forward kept. batch_norm in evaluation normalises with the running statistics:
constants, whose gradient is dy * weight * rstd.
"""
import math

import numpy as np

from ..function import Function
from .common import require_float
from . import rules


class Layout:
    """Where the groups are: x is viewed as `gshape`, reduced over `axes` (one mean per
    group); weight and bias are viewed as `pshape` to broadcast against x, and their
    gradients sum over x's `paxes`."""

    def __init__(self, gshape, axes, pshape, paxes):
        self.gshape, self.axes, self.pshape, self.paxes = gshape, axes, pshape, paxes
        self.count = math.prod(gshape[a] for a in axes)

    @staticmethod
    def layer(shape, k):
        nd = len(shape)
        return Layout(tuple(shape), tuple(range(nd - k, nd)), tuple(shape[nd - k:]),
                      tuple(range(nd - k)))

    @staticmethod
    def group(shape, groups):
        n, c = shape[0], shape[1]
        per = (c // groups) * math.prod(shape[2:])
        return Layout((n, groups, per), (2,), _channel(shape),
                      (0,) + tuple(range(2, len(shape))))

    @staticmethod
    def batch(shape):
        axes = (0,) + tuple(range(2, len(shape)))
        return Layout(tuple(shape), axes, _channel(shape), axes)


def _channel(shape):
    return (shape[1],) + (1,) * (len(shape) - 2)


def _acc(xp, d):
    """float16/bfloat16 are normalised in float32 (as torch's kernels accumulate)."""
    return d if d.dtype.kind == "f" and d.dtype.itemsize >= 4 else d.astype(np.float32)


def _moments(xp, g, lay):
    """(mean, biased var) of each group, kept as size-1 dims; empty groups give zeros (the
    output is empty then: nothing reads them), without numpy's warnings."""
    if not lay.count or not g.size:
        shape = tuple(1 if i in lay.axes else s for i, s in enumerate(g.shape))
        return xp.zeros(shape, g.dtype), xp.ones(shape, g.dtype)
    mean = g.sum(axis=lay.axes, keepdims=True) / lay.count
    d = g - mean
    return mean, (d * d).sum(axis=lay.axes, keepdims=True) / lay.count


def _forward(name, ctx, x, w, b, lay, eps, stats=None):
    """The shared forward; stats: the (mean, var) arrays to use instead of the batch's."""
    require_float(name, x)
    xp = x.device.xp
    xd = x._data
    for what, p in (("weight", w), ("bias", b)):
        if p is not None and p._data.dtype != xd.dtype and xd.dtype.itemsize >= 4:
            raise RuntimeError(
                f"{name}: mixed dtype: the input is {x.dtype} but the {what} is {p.dtype}; "
                "the parameters must have the input's dtype (as in torch). Convert the module "
                "or the input, e.g. model.to(x.dtype) or x.to(model.weight.dtype).")
    g = _acc(xp, xd).reshape(lay.gshape)
    if stats is None:
        mean, var = _moments(xp, g, lay)
    else:
        keep = tuple(1 if i in lay.axes else s for i, s in enumerate(lay.gshape))
        mean, var = (_acc(xp, s).reshape(keep) for s in stats)
    rstd = 1 / xp.sqrt(var + eps)
    y = ((g - mean) * rstd).reshape(xd.shape)
    if w is not None:
        y = y * w._data.reshape(lay.pshape)
    if b is not None:
        y = y + b._data.reshape(lay.pshape)
    ctx.save_for_backward(x, w, mean, rstd)
    ctx.layout, ctx.eps, ctx.fixed = lay, eps, stats is not None
    return xp.asarray(y, dtype=xd.dtype)


def _mean(t, lay):
    return t.sum(lay.axes, keepdim=True) / lay.count


def _normalized(ctx, x):
    """(x_hat, rstd) as Tensors, in the group view: recomputed from x (so that they carry x's
    dependence when backward is differentiated again), or from the fixed statistics."""
    lay = ctx.layout
    g = x.reshape(lay.gshape)
    if ctx.fixed:
        _, _, mean, rstd = ctx.saved_tensors
    else:
        mean = _mean(g, lay)
        d = g - mean
        rstd = (_mean(d * d, lay) + ctx.eps).rsqrt()
    return (g - mean) * rstd, rstd


def _sum(t, dims):
    """Sum over dims; none to sum is no sum (a Tensor's sum over dim=() sums all, as torch's)."""
    return t.sum(dims) if dims else t


def _backward(ctx, grad):
    x, w, _, _ = ctx.saved_tensors
    lay = ctx.layout
    need = ctx.needs_input_grad
    if not x.numel():
        zero = lambda t: None if t is None else t * 0   # noqa: E731
        return zero(x) if need[0] else None, zero(w) if need[1] else None, \
            (_sum(grad, lay.paxes) if need[2] else None)
    dtypes = x.dtype, None if w is None else w.dtype, grad.dtype
    if x._data.dtype.itemsize < 4:    # float16/bfloat16 in float32, as forward and torch do:
        x, grad = x.float(), grad.float()      # near-equal inputs lose every digit otherwise
        w = None if w is None else w.float()
    xhat, rstd = _normalized(ctx, x)
    gx = gw = gb = None
    if need[0]:
        gy = (grad if w is None else grad * w.reshape(lay.pshape)).reshape(lay.gshape)
        if ctx.fixed:
            gx = gy * rstd
        else:
            gx = rstd * (gy - _mean(gy, lay) - xhat * _mean(gy * xhat, lay))
        gx = gx.reshape(x.shape).to(dtypes[0])
    if need[1]:
        gw = _sum(grad * xhat.reshape(x.shape), lay.paxes).to(dtypes[1])
    if need[2]:
        gb = _sum(grad, lay.paxes).to(dtypes[2])
    return gx, gw, gb


def _backward_arrays(ctx, grad):
    x, w, mean, rstd = ctx.saved_arrays
    lay = ctx.layout
    if (x.dtype.itemsize < 4 or grad.dtype != x.dtype or w is not None and w.dtype != x.dtype
            or not x.size):
        return NotImplemented
    need = ctx.needs_input_grad
    xhat = (x.reshape(lay.gshape) - mean) * rstd
    gx = gw = gb = None
    if need[0]:
        gy = (grad if w is None else grad * w.reshape(lay.pshape)).reshape(lay.gshape)
        if ctx.fixed:
            gx = gy * rstd
        else:
            n, ax = lay.count, lay.axes
            gx = rstd * (gy - gy.sum(axis=ax, keepdims=True) / n
                         - xhat * ((gy * xhat).sum(axis=ax, keepdims=True) / n))
        gx = gx.reshape(x.shape)
    if need[1]:
        gw = (grad * xhat.reshape(x.shape)).sum(axis=lay.paxes)
    if need[2]:
        gb = grad.sum(axis=lay.paxes)
    return gx, gw, gb


def _jvp(ctx_like, x, w, b, tx, tw, tb):
    """The tangent of y = x_hat * w + b (Tensor ops): x_hat's tangent is
    rstd (t - mean(t) - x_hat mean(x_hat t)), or rstd t for fixed statistics."""
    lay = ctx_like.layout
    xhat, rstd = _normalized(ctx_like, x)
    out = None
    if tx is not None:
        t = tx.reshape(lay.gshape)
        th = t * rstd if ctx_like.fixed else \
            rstd * (t - _mean(t, lay) - xhat * _mean(t * xhat, lay))
        th = th.reshape(x.shape)
        out = th if w is None else th * w.reshape(lay.pshape)
    if tw is not None:
        out = rules.total(out, xhat.reshape(x.shape) * tw.reshape(lay.pshape))
    if tb is not None:
        out = rules.total(out, rules.fit(tb.reshape(lay.pshape), x))
    return out


class _Stats:
    """What _normalized reads, outside a backward (for the tangent rules)."""

    def __init__(self, layout, eps, stats=None):
        self.layout, self.eps, self.fixed = layout, eps, stats is not None
        if stats is not None:
            keep = tuple(1 if i in layout.axes else s for i, s in enumerate(layout.gshape))
            mean, var = (s.reshape(keep) for s in stats)
            self.saved_tensors = (None, None, mean, (var + eps).rsqrt())


class NativeLayerNorm(Function):
    """Each example normalised over its last k dims; weight and bias of those k dims."""
    node_name = "NativeLayerNormBackward0"
    number_edges = 3           # next_functions: input, weight, bias, as torch's

    @staticmethod
    def forward(ctx, x, w, b, k, eps):
        return _forward("layer_norm", ctx, x, w, b, Layout.layer(x._data.shape, k), eps)

    @staticmethod
    def backward_arrays(ctx, grad):
        out = _backward_arrays(ctx, grad)
        return out if out is NotImplemented else out + (None, None)

    @staticmethod
    def backward(ctx, grad):
        return _backward(ctx, grad) + (None, None)

    @staticmethod
    def jvp(args, tangents, out):
        x, w, b, k, eps = args
        return _jvp(_Stats(Layout.layer(tuple(x.shape), k), eps), x, w, b, *tangents[:3])

    @staticmethod
    def vmap(args, batched):
        (x, w, b, k, eps), (xb, wb, bb) = args, batched[:3]
        if not (wb or bb):                    # the normalised dims are the last ones
            return NativeLayerNorm.apply(x if xb else rules.expand_batch(x, _size(args,
                                                                                 batched)),
                                         w, b, k, eps)
        y = NativeLayerNorm.apply(x if xb else rules.expand_batch(x, _size(args, batched)),
                                  None, None, k, eps)
        if w is not None:
            y = y * (rules.lift(w, y.ndim - 1) if wb else w)
        if b is not None:
            y = y + (rules.lift(b, y.ndim - 1) if bb else b)
        return y

    @staticmethod
    def onnx(wr, node, out):
        x, w, b, k, eps = node.args
        ins = [wr.name(x), _onnx_param(wr, w, node, 1.0, k),
               _onnx_param(wr, b, node, 0.0, k)]
        wr.emit("LayerNormalization", ins, out, axis=-int(k), epsilon=float(eps))


def _size(args, batched):
    return rules.batch_size(args, batched)


def _onnx_param(wr, p, node, fill, k=None):
    """A weight or bias operand; torch's default (ones, zeros) as a constant when absent."""
    if p is not None:
        return wr.name(p)
    shape = node.args[0].shape
    shape = shape[len(shape) - k:] if k is not None else (shape[1],)
    return wr.const(np.full(shape, fill), node.args[0].dtype)


class NativeGroupNorm(Function):
    """Each example's channels in `groups` groups, normalised over the group's channels and
    all positions; weight and bias per channel."""
    node_name = "NativeGroupNormBackward0"
    number_edges = 3           # next_functions: input, weight, bias, as torch's

    @staticmethod
    def forward(ctx, x, w, b, groups, eps):
        return _forward("group_norm", ctx, x, w, b, Layout.group(x._data.shape, groups), eps)

    @staticmethod
    def backward_arrays(ctx, grad):
        out = _backward_arrays(ctx, grad)
        return out if out is NotImplemented else out + (None, None)

    @staticmethod
    def backward(ctx, grad):
        return _backward(ctx, grad) + (None, None)

    @staticmethod
    def jvp(args, tangents, out):
        x, w, b, groups, eps = args
        return _jvp(_Stats(Layout.group(tuple(x.shape), groups), eps), x, w, b, *tangents[:3])

    @staticmethod
    def vmap(args, batched):
        (x, w, b, groups, eps), (xb, wb, bb) = args, batched[:3]
        if not xb:
            x = rules.expand_batch(x, _size(args, batched))
        flat = x.reshape(-1, *x.shape[2:])            # the vmap batch joins the examples
        if not (wb or bb):
            return NativeGroupNorm.apply(flat, w, b, groups, eps).reshape(x.shape)
        y = NativeGroupNorm.apply(flat, None, None, groups, eps).reshape(x.shape)
        per = (1,) * (x.ndim - 3)                     # (B, N, C, *rest): weights (B, 1, C, 1..)
        if w is not None:
            y = y * (w.reshape(w.shape[0], 1, -1, *per) if wb else w.reshape(-1, *per))
        if b is not None:
            y = y + (b.reshape(b.shape[0], 1, -1, *per) if bb else b.reshape(-1, *per))
        return y


class NativeBatchNorm(Function):
    """Each channel (dim 1) normalised over the batch and all positions: with the batch's
    statistics (training), or with given ones (evaluation: `stats` = (mean, var))."""
    node_name = "NativeBatchNormBackward0"
    number_edges = 3           # next_functions: input, weight, bias, as torch's

    @staticmethod
    def forward(ctx, x, w, b, stats, eps):
        arrays = None if stats is None else tuple(s._data for s in stats)
        return _forward("batch_norm", ctx, x, w, b, Layout.batch(x._data.shape), eps, arrays)

    @staticmethod
    def backward_arrays(ctx, grad):
        out = _backward_arrays(ctx, grad)
        return out if out is NotImplemented else out + (None, None)

    @staticmethod
    def backward(ctx, grad):
        return _backward(ctx, grad) + (None, None)

    @staticmethod
    def jvp(args, tangents, out):
        x, w, b, stats, eps = args
        return _jvp(_Stats(Layout.batch(tuple(x.shape)), eps, stats), x, w, b, *tangents[:3])

    @staticmethod
    def vmap(args, batched):
        """Each example of the vmap batch B has its own statistics: its channels become
        B * C channels of one (N, B * C, ...) batch norm."""
        (x, w, b, stats, eps), flags = args, batched
        size = _size(args, batched)
        if rules.any_batched(flags[3]):
            return NotImplemented
        if not flags[0]:
            x = rules.expand_batch(x, size)
        n, c, rest = x.shape[1], x.shape[2], tuple(x.shape[3:])

        def per(p, pb):
            return None if p is None else (p if pb else rules.expand_batch(p, size)).reshape(-1)
        st = None if stats is None else tuple(per(s, False) for s in stats)
        y = NativeBatchNorm.apply(x.movedim(0, 1).reshape(n, size * c, *rest),
                                  per(w, flags[1]), per(b, flags[2]), st, eps)
        return y.reshape(n, size, c, *rest).movedim(1, 0)

    @staticmethod
    def onnx(wr, node, out):
        x, w, b, stats, eps = node.args
        if stats is None:
            raise NotImplementedError("labkit.onnx.export: batch_norm in training mode (batch "
                                      "statistics) has no ONNX form here; call model.eval() "
                                      "before exporting.")
        ins = [wr.name(x), _onnx_param(wr, w, node, 1.0), _onnx_param(wr, b, node, 0.0),
               wr.name(stats[0]), wr.name(stats[1])]
        wr.emit("BatchNormalization", ins, out, epsilon=float(eps))
