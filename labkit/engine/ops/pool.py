"""max_pool2d: the largest value of each window. Backward sends each window's gradient to the
position that won; the winners (which kernel offset, per output) are kept from forward.

Scatter (the backward) and gather (its backward) are both linear in the gradient, so each is
the other's backward and pooling can be differentiated to any order.

ceil_mode keeps a last, partial window: the input is padded further on the right and bottom
(with -inf, so the padding never wins) until that window fits.
"""
from ..function import Function
from ..tensor import Tensor
from . import rules
from .fold import pair
from .resample import pool_out_size


def _geometry(shape, kernel, stride, padding, dilation, ceil_mode):
    """(oh, ow, ((top, bottom), (left, right)) padding, [(i, j, rows, columns), ...])."""
    outs = [pool_out_size(n, k, s, p, d, ceil_mode)
            for n, k, s, p, d in zip(shape[-2:], kernel, stride, padding, dilation)]
    if min(outs) <= 0:
        raise RuntimeError(
            f"max_pool2d: given input size {tuple(shape[1:])}, the calculated output size "
            f"{tuple(shape[1:2]) + tuple(outs)} is too small: the kernel {kernel} (dilation "
            f"{dilation}) does not fit. Use a smaller kernel or more padding, or remove a "
            "pooling layer that shrank the image too far.")
    pads = tuple((p, max(p, (o - 1) * s + d * (k - 1) + 1 - n - p))
                 for n, o, k, s, p, d in zip(shape[-2:], outs, kernel, stride, padding, dilation))
    (oh, ow), (kh, kw), (sh, sw), (dh, dw) = outs, kernel, stride, dilation
    spans = [(i, j, slice(i * dh, i * dh + sh * (oh - 1) + 1, sh),
              slice(j * dw, j * dw + sw * (ow - 1) + 1, sw)) for i in range(kh) for j in range(kw)]
    return oh, ow, pads, spans


def _padded(xp, d, pads, fill):
    if not any(a or b for a, b in pads):
        return d
    return xp.pad(d, ((0, 0), (0, 0)) + pads, constant_values=fill)


class MaxPool2d(Function):
    node_name = "MaxPool2DWithIndicesBackward0"
    @staticmethod
    def onnx(w, node, out):
        x, kernel, stride, padding, dilation, ceil_mode = node.args
        w.emit("MaxPool", [w.name(x)], out[:1], kernel_shape=list(kernel), strides=list(stride),
               pads=list(padding) * 2, dilations=list(dilation), ceil_mode=int(ceil_mode))

    @staticmethod
    def forward(ctx, x, kernel, stride, padding, dilation, ceil_mode):
        geometry = kernel, stride, padding, dilation, ceil_mode
        _, ow, pads, spans = _geometry(x._data.shape, *geometry)
        xp = x.device.xp
        d = _padded(xp, x._data, pads, -xp.inf)
        best = idx = None
        for k, (_, _, rows, columns) in enumerate(spans):
            v = d[:, :, rows, columns]
            if best is None:
                best, idx = v.copy(), xp.zeros(v.shape, xp.int64)
                continue
            wins = (v > best) | xp.isnan(v)           # the first maximum wins; nan propagates
            best = xp.where(wins, v, best)
            idx = xp.where(wins, k, idx)
        flat = _flat_indices(xp, idx, x._data.shape[-1], ow, geometry)
        ctx.save_for_backward(flat)      # an output, so vmap batches the backward (no side array)
        ctx.shape, ctx.geometry = x._data.shape, geometry
        return best, flat

    @staticmethod
    def backward(ctx, grad, _):
        (flat,) = ctx.saved_tensors
        return (_Scatter.apply(grad, flat, ctx.shape, ctx.geometry),) + (None,) * 5

    @classmethod
    def vmap(cls, args, batched):
        return rules.fold_batch(cls, args)


def _flat_indices(xp, idx, w, ow, geometry):
    """torch's indices: the winner's position in its (H, W) input plane, as h * W + w."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw), _ = geometry
    oh = idx.shape[-2]
    rows = xp.arange(oh)[:, None] * sh - ph + (idx // kw) * dh
    columns = xp.arange(ow)[None, :] * sw - pw + (idx % kw) * dw
    return rows * w + columns


def _window_index(xp, flat, w, geometry):
    """Back from torch's flat indices (h * W + w) to each winner's position k in its window."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw), _ = geometry
    oh, ow = flat.shape[-2], flat.shape[-1]
    rows = flat // w - (xp.arange(oh)[:, None] * sh - ph)
    columns = flat % w - (xp.arange(ow)[None, :] * sw - pw)
    return (rows // dh) * kw + columns // dw


def _fold_rule(cls):
    """vmap for the backward pair: the vmap batch joins N in the gradient, the indices and the
    input shape (both batched per example on replay)."""
    def vmap(args, batched):
        a, flat, shape, geometry = args
        b = rules.batch_size(args, batched)
        a = a if batched[0] is True else rules.expand_batch(a, b)
        flat = flat if batched[1] is True else rules.expand_batch(flat, b)
        out = cls.apply(a.reshape(b * a.shape[1], *a.shape[2:]),
                        flat.reshape(b * flat.shape[1], *flat.shape[2:]),
                        (b * shape[0],) + tuple(shape[1:]), geometry)
        return out.reshape(b, -1, *out.shape[1:])
    return staticmethod(vmap)


class _Scatter(Function):
    """Each output's gradient into the input position its window picked (summed on overlap)."""
    node_name = "MaxPool2DWithIndicesBackwardBackward0"

    @staticmethod
    def forward(ctx, g, flat, shape, geometry):
        xp = g.device.xp
        n, c, h, w = shape
        idx = _window_index(xp, flat._data, w, geometry)
        _, _, ((top, bottom), (left, right)), spans = _geometry(shape, *geometry)
        out = xp.zeros((n, c, h + top + bottom, w + left + right), g._data.dtype)
        zero = xp.zeros((), g._data.dtype)
        for k, (_, _, rows, columns) in enumerate(spans):
            out[:, :, rows, columns] += xp.where(idx == k, g._data, zero)
        ctx.flat, ctx.shape, ctx.geometry = flat, shape, geometry
        return out[:, :, top:top + h, left:left + w]

    @staticmethod
    def backward(ctx, grad):
        return _Gather.apply(grad, ctx.flat, ctx.shape, ctx.geometry), None, None, None


class _Gather(Function):
    """The value at each window's picked position (the scatter's transpose)."""
    node_name = "MaxPool2DGatherBackward0"

    @staticmethod
    def forward(ctx, x, flat, shape, geometry):
        xp = x.device.xp
        idx = _window_index(xp, flat._data, shape[-1], geometry)
        _, _, pads, spans = _geometry(shape, *geometry)
        d = _padded(xp, x._data, pads, 0)
        out = xp.zeros(idx.shape, x._data.dtype)
        for k, (_, _, rows, columns) in enumerate(spans):
            out = xp.where(idx == k, d[:, :, rows, columns], out)
        ctx.flat, ctx.shape, ctx.geometry = flat, shape, geometry
        return out

    @staticmethod
    def backward(ctx, grad):
        return _Scatter.apply(grad, ctx.flat, ctx.shape, ctx.geometry), None, None, None


_Scatter.vmap = _fold_rule(_Scatter)
_Gather.vmap = _fold_rule(_Gather)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The maximum over each kernel_size window; stride defaults to kernel_size. ceil_mode
    keeps a last, partial window; return_indices also gives each winner's flat position in
    its input plane (what max_unpool2d needs)."""
    name = "max_pool2d"
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}: expected a tensor, got {type(input).__name__}.")
    if input.ndim not in (3, 4):
        raise RuntimeError(f"{name}: expected a 3-D (C, H, W) or 4-D (N, C, H, W) input, got "
                           f"shape {tuple(input.shape)}.")
    if 0 in input.shape[-3:]:
        raise RuntimeError(f"{name}: expected an input with non-zero sizes except the batch "
                           f"dim, got shape {tuple(input.shape)}.")
    kernel = pair(kernel_size, name, "kernel_size")
    stride = kernel if stride is None or stride == [] else pair(stride, name, "stride")
    padding, dilation = pair(padding, name, "padding"), pair(dilation, name, "dilation")
    if min(kernel) <= 0 or min(stride) <= 0 or min(dilation) <= 0:
        raise RuntimeError(f"{name}: kernel size, stride and dilation should be greater than "
                           f"zero, got kernel_size={kernel}, stride={stride}, "
                           f"dilation={dilation}.")
    if padding[0] > kernel[0] // 2 or padding[1] > kernel[1] // 2 or min(padding) < 0:
        raise RuntimeError(f"{name}: pad should be at most half of effective kernel size, but "
                           f"got padding={padding} and kernel_size={kernel}; otherwise a window "
                           "could hold only padding.")
    single = input.ndim == 3
    x = input.unsqueeze(0) if single else input
    out, idx = MaxPool2d.apply(x, kernel, stride, padding, dilation, bool(ceil_mode))
    if single:
        out, idx = out.squeeze(0), idx.squeeze(0)
    return (out, idx) if return_indices else out


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """max_pool2d over (N, C, L) sequences (a height-1 image); indices are positions in L."""
    one = (lambda v: v[0] if isinstance(v, (tuple, list)) and len(v) == 1 else v)
    stride = kernel_size if stride is None or stride == [] else stride
    out = max_pool2d(input.unsqueeze(-2), (1, one(kernel_size)), (1, one(stride)),
                     (0, one(padding)), (1, one(dilation)), ceil_mode, return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)
