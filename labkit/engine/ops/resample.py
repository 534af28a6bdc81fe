"""Average pooling (fixed and adaptive), interpolation (nearest, linear, bilinear) and padding
(zeros, reflect, replicate, circular) as one op.

Each of these mixes or moves values along H independently of W, and the other way round: it
is out = A_h @ x @ A_w^T for two small constant matrices that depend only on the sizes. So one
op, a product with one matrix per trailing dim, covers them all. It is linear in x, so its
backward is the same op with the matrices transposed, and gradients of any order come free.
The matrices are built on the host from the geometry (a few hundred numbers) and moved to
the input's device.
"""
import math
import operator

import numpy as np

from ..function import Function
from ..tensor import Tensor
from .fold import pair


class Separable(Function):
    """x with matrix mats[i] applied along trailing dim i (None leaves that dim as it is)."""
    node_name = "SeparableBackward0"

    @staticmethod
    def forward(ctx, x, mats):
        xp = x.device.xp
        dtype = x._data.dtype
        d = x._data.astype(xp.float32) if dtype.itemsize == 2 else x._data   # float16 and
        local = not bool(xp.isfinite(d).all())      # bfloat16 accumulate in float32, as torch
        first = d.ndim - len(mats)
        for i, m in enumerate(mats):
            if m is None:
                continue
            axis = first + i
            if local:
                d = _local_product(xp, d, m, axis)
                continue
            m = xp.asarray(m.astype(d.dtype))
            if axis == d.ndim - 1:              # the last two dims: one (batched) matmul
                d = xp.matmul(d, m.T)
            elif axis == d.ndim - 2:
                d = xp.matmul(m, d)
            else:
                d = xp.moveaxis(xp.tensordot(d, m, axes=([axis], [1])), -1, axis)
        ctx.mats = mats
        return xp.ascontiguousarray(d.astype(dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        return _Transposed.apply(grad, tuple(None if m is None else m.T for m in ctx.mats)), None


def _local_product(xp, d, m, axis):
    """m applied along axis reading only the entries each row of m uses: an inf or nan input
    reaches only the outputs whose window holds it, as in torch (in a matrix product, the zero
    weights of every other output would turn it into 0 * inf = nan across the whole row)."""
    nz = m != 0
    k = max(int(nz.sum(1).max()) if m.size else 0, 1)
    cols, w = np.full((m.shape[0], k), m.shape[1]), np.zeros((m.shape[0], k))
    for r in range(m.shape[0]):         # unused slots read an appended zero, with weight 0
        c = np.nonzero(nz[r])[0]
        cols[r, :len(c)], w[r, :len(c)] = c, m[r, c]
    ext = xp.concatenate([d, xp.zeros(d.shape[:axis] + (1,) + d.shape[axis + 1:], d.dtype)],
                         axis)
    g = xp.take(ext, xp.asarray(cols.reshape(-1)), axis=axis)
    g = g.reshape(d.shape[:axis] + (m.shape[0], k) + d.shape[axis + 1:])
    wt = xp.asarray(w.astype(d.dtype)).reshape((m.shape[0], k) + (1,) * (d.ndim - axis - 1))
    return (g * wt).sum(axis + 1)


class _Transposed(Separable):
    node_name = "SeparableBackwardBackward0"


class AvgPool(Separable):
    node_name = "AvgPool2DBackward0"


class AdaptiveAvgPool(Separable):
    node_name = "AdaptiveAvgPool2DBackward0"


class Interpolate(Separable):
    node_name = "UpsampleBackward0"


class Pad(Separable):
    node_name = "PadBackward0"

    @staticmethod
    def forward(ctx, x, mats):
        """Padding only moves values (a matrix row holds one 1, or none): taken by index, not
        multiplied, so an inf or nan stays where it is (inf * 0 would spread nan, as torch
        does not)."""
        xp, d = x.device.xp, x._data
        for axis, m in enumerate(mats, d.ndim - len(mats)):
            if m is not None:
                inside = (m.max(1) > 0) if m.shape[1] else np.zeros(m.shape[0], bool)
                d = xp.take(d, xp.asarray(m.argmax(1) if m.shape[1] else inside.astype(int)),
                            axis=axis) if m.shape[1] else xp.zeros(
                    d.shape[:axis] + (m.shape[0],) + d.shape[axis + 1:], d.dtype)
                shape = (-1,) + (1,) * (d.ndim - axis - 1)
                d = xp.where(xp.asarray(inside).reshape(shape), d, xp.zeros((), d.dtype))
        ctx.mats, ctx.shape = mats, x._data.shape
        return xp.ascontiguousarray(d)

    @staticmethod
    def backward(ctx, grad):
        """Each output element came from one input element, or none: the gradient goes back by
        index, summed where the input was copied several times (reflect, replicate)."""
        from ..creation import tensor, zeros
        g = grad
        for axis, m in enumerate(ctx.mats, grad.ndim - len(ctx.mats)):
            if m is not None:
                rows = np.nonzero(m.max(1) > 0)[0] if m.shape[1] else np.zeros(0, np.int64)
                shape = list(g.shape)
                shape[axis] = m.shape[1]
                g = zeros(shape, dtype=g.dtype, device=g.device).index_add(
                    axis, tensor(m.argmax(1)[rows] if len(rows) else rows, device=g.device),
                    g.index_select(axis, tensor(rows, device=g.device)))
        return g, None


# --- the matrices, one trailing dim at a time ---------------------------------------------

def pool_out_size(n, k, s, p, d, ceil_mode):
    """torch's pooling_output_shape: with ceil_mode a last, partial window counts, unless it
    would start in the right padding."""
    out = (n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    return out


def _avg_matrix(n, out, k, s, p, count_include_pad):
    a = np.zeros((out, n))
    for i in range(out):
        start = i * s - p
        end = min(start + k, n + p)
        lo, hi = max(start, 0), min(end, n)
        a[i, lo:hi] = 1.0 / ((end - start) if count_include_pad else max(hi - lo, 1))
    return a


def _adaptive_matrix(n, out):
    a = np.zeros((out, n))
    for i in range(out):
        lo, hi = (i * n) // out, -(-((i + 1) * n) // out)
        a[i, lo:hi] = 1.0 / (hi - lo)
    return a


def _nearest_matrix(n, out, scale, exact):
    scale = n / out if scale is None else 1.0 / scale
    dst = np.arange(out)
    src = np.floor((dst + 0.5) * scale) if exact else np.floor(dst * scale)
    a = np.zeros((out, n))
    a[dst, np.minimum(src.astype(np.int64), n - 1)] = 1.0
    return a


def _linear_matrix(n, out, scale, align_corners):
    """torch's area_pixel_compute_source_index, then the two neighbours' weights."""
    dst = np.arange(out, dtype=np.float64)
    if align_corners:
        src = dst * ((n - 1) / (out - 1) if out > 1 else 0.0)
    else:
        src = np.maximum((dst + 0.5) * (n / out if scale is None else 1.0 / scale) - 0.5, 0.0)
    i0 = np.minimum(src.astype(np.int64), n - 1)
    i1 = np.where(i0 < n - 1, i0 + 1, i0)
    lam = src - i0
    a = np.zeros((out, n))
    np.add.at(a, (np.arange(out), i0), 1.0 - lam)
    np.add.at(a, (np.arange(out), i1), lam)
    return a


def _cubic_matrix(n, out, scale, align_corners, a=-0.75):
    """torch's bicubic: Keys' cubic convolution (A = -0.75) on the four nearest inputs,
    indices clamped at the borders; the source index is not clamped at 0 (as torch)."""
    dst = np.arange(out, dtype=np.float64)
    if align_corners:
        src = dst * ((n - 1) / (out - 1) if out > 1 else 0.0)
    else:
        src = (dst + 0.5) * (n / out if scale is None else 1.0 / scale) - 0.5
    base = np.floor(src)
    t = src - base
    weights = [((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
               ((a + 2) * t - (a + 3)) * t * t + 1,
               ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
               ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a]
    m = np.zeros((out, n))
    for k, w in enumerate(weights):
        np.add.at(m, (np.arange(out), np.clip(base.astype(np.int64) - 1 + k, 0, n - 1)), w)
    return m


def _pad_matrix(n, left, right, mode):
    """(n + left + right, n): output j reads input j - left, mapped back inside for the
    non-constant modes; rows with nothing to read stay zero (the constant)."""
    q = np.arange(n + left + right) - left
    if mode == "reflect":
        q = np.abs(q)
        q = np.where(q >= n, 2 * (n - 1) - q, q)
    elif mode == "replicate":
        q = np.clip(q, 0, n - 1)
    elif mode == "circular":
        q = q % n
    a = np.zeros((len(q), n))
    inside = (q >= 0) & (q < n)
    a[np.nonzero(inside)[0], q[inside]] = 1.0
    return a


# --- the functions --------------------------------------------------------------------------

def _spatial(name, input, k):
    """Check a (N, C, *k spatial) or (C, *k spatial) float input, raising torch's errors
    with labkit's explanation."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}: expected a tensor, got {type(input).__name__}.")
    if input.ndim not in (k + 1, k + 2):
        raise RuntimeError(f"{name}: expected a {k + 1}-D (C, {'H, W' if k == 2 else 'L'}) or "
                           f"{k + 2}-D (N, C, ...) input, got shape {tuple(input.shape)}.")
    if 0 in input.shape[-k - 1:]:                   # (C, spatial...) must not be empty
        raise RuntimeError(f"{name}: expected an input with non-zero sizes except the batch "
                           f"dim, got shape {tuple(input.shape)}.")
    if not input.is_floating_point():
        raise RuntimeError(f'"{name}" not implemented for \'{input.dtype}\': convert the input '
                           "with .float().")


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """The mean of each kernel_size window (stride defaults to kernel_size). count_include_pad
    counts padded zeros in the mean; ceil_mode keeps a last, partial window."""
    return avg_pool("avg_pool2d", 2, input, kernel_size, stride, padding, ceil_mode,
                    count_include_pad, divisor_override)


def _ints(v, k, name, what):
    """An int or k ints as a k-tuple (kernel_size=3 means 3 x 3)."""
    if isinstance(v, int) and not isinstance(v, bool):
        return (v,) * k
    if isinstance(v, (tuple, list)) and len(v) == k and all(isinstance(i, int) for i in v):
        return tuple(v)
    raise TypeError(f"{name}: {what} must be an int or a tuple of {k} ints, got {v!r}.")


def avg_pool(name, k, input, kernel_size, stride=None, padding=0, ceil_mode=False,
             count_include_pad=True, divisor_override=None):
    """avg_pool{k}d: the window mean is separable (a box along each dim, its divisor a product
    of per-dim counts), so it is one matrix per spatial dim."""
    _spatial(name, input, k)
    kernel = _ints(kernel_size, k, name, "kernel_size")
    stride = kernel if stride is None or stride == [] else _ints(stride, k, name, "stride")
    padding = _ints(padding, k, name, "padding")
    if min(kernel) <= 0 or min(stride) <= 0:
        raise RuntimeError(f"{name}: kernel size and stride should be greater than zero, got "
                           f"kernel_size={kernel}, stride={stride}.")
    if any(p > q // 2 for p, q in zip(padding, kernel)):
        raise RuntimeError(f"{name}: pad should be at most half of kernel size, but got "
                           f"padding={padding} and kernel_size={kernel}.")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError(f"{name}: divisor must be not zero.")
    sizes = input.shape[-k:]
    outs = [pool_out_size(n, q, s, p, 1, ceil_mode)
            for n, q, s, p in zip(sizes, kernel, stride, padding)]
    if min(outs) <= 0:
        raise RuntimeError(f"{name}: given input size {tuple(input.shape)}, the calculated "
                           f"output size {tuple(outs)} is too small. Use a smaller kernel or "
                           "more padding.")
    mats = [_avg_matrix(n, o, q, s, p, count_include_pad or divisor_override is not None)
            for n, o, q, s, p in zip(sizes, outs, kernel, stride, padding)]
    if divisor_override is not None:
        mats = [(m > 0) * 1.0 for m in mats]
        mats[0] = mats[0] / divisor_override
    return AvgPool.apply(input, tuple(mats))


def _output_size(name, output_size, k):
    if isinstance(output_size, int) or output_size is None:
        output_size = (output_size,) * k
    output_size = tuple(output_size)
    if len(output_size) != k or not all(o is None or (isinstance(o, int) and o >= 0)
                                        for o in output_size):
        raise ValueError(f"{name}: output_size must be {'an int or a pair of' if k == 2 else 'an'}"
                         f" int(s) >= 0 (or None to keep a size), got {output_size!r}.")
    return output_size


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a fixed output_size whatever the input size (windows of varying
    size, as torch: rows floor(i*H/oh) to ceil((i+1)*H/oh)). None keeps that dim's size."""
    return adaptive_avg_pool("adaptive_avg_pool2d", 2, input, output_size)


def adaptive_avg_pool1d(input, output_size):
    return adaptive_avg_pool("adaptive_avg_pool1d", 1, input, output_size)


def adaptive_avg_pool(name, k, input, output_size):
    outs = _output_size(name, output_size, k)
    if isinstance(input, Tensor) and input.ndim in (k + 1, k + 2) and \
            input.is_floating_point() and all(
                (n if o is None else o) == 1 for n, o in zip(input.shape[-k:], outs)):
        return input.mean(tuple(range(-k, 0)), keepdim=True)   # torch's shortcut: a mean,
    _spatial(name, input, k)                                    # nan over an empty dim
    return AdaptiveAvgPool.apply(input, tuple(
        _adaptive_matrix(n, n if o is None else o) for n, o in zip(input.shape[-k:], outs)))


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    out = avg_pool2d(input.unsqueeze(-2), (1, _one(kernel_size)),
                     (1, _one(kernel_size if stride is None else stride)), (0, _one(padding)),
                     ceil_mode, count_include_pad)
    return out.squeeze(-2)


def _one(v):
    return v[0] if isinstance(v, (tuple, list)) and len(v) == 1 else v


_LINEAR = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
_MODES = ("nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area")


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dims (all dims after N, C) to size, or by scale_factor:
    'nearest' copies the closest pixel, 'linear'/'bilinear'/'trilinear' blend the nearest two
    per dim, 'bicubic' the nearest four, 'area' averages (adaptive average pooling).
    align_corners=True maps the corner pixels onto each other exactly."""
    name = "interpolate"
    if mode not in _MODES:
        raise NotImplementedError(f"{name}: mode {mode!r} is not supported by labkit; choose one "
                                  f"of {', '.join(_MODES)}.")
    if align_corners is not None and mode not in _LINEAR:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if antialias:
        raise NotImplementedError(f"{name}: antialias=True is not supported by labkit.")
    k = input.ndim - 2
    if k < 1:
        raise ValueError(f"{name}: expected an input with a batch and a channel dim "
                         f"(N, C, ...), got shape {tuple(input.shape)}.")
    if mode in _LINEAR and _LINEAR[mode] != k:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs "
                                  f"{_LINEAR[mode] + 2}D input")
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined" if size is not None
                         else "either size or scale_factor should be defined")
    if mode not in ("nearest", "nearest-exact") and not input.is_floating_point():
        raise RuntimeError(f'"upsample_{mode}{k}d" not implemented for \'{input.dtype}\': '
                           "convert the input with .float().")
    sizes = input.shape[2:]
    if size is not None:
        outs = (size,) * k if isinstance(size, int) else tuple(size)
        if len(outs) != k:
            raise ValueError(f"Input and output must have the same number of spatial "
                             f"dimensions, but got input with spatial dimensions of "
                             f"{list(sizes)} and output size of {list(outs)}. Please provide "
                             "input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                             "(o1, o2, ...,oK) format.")
        scales = (None,) * k
    else:
        scales = ((scale_factor,) * k if isinstance(scale_factor, (int, float))
                  else tuple(scale_factor))
        if len(scales) != k:
            raise ValueError(f"Input and scale_factor must have the same number of spatial "
                             f"dimensions, but got input with spatial dimensions of "
                             f"{list(sizes)} and scale_factor of shape {list(scales)}.")
        outs = tuple(int(math.floor(n * s)) for n, s in zip(sizes, scales))
        if recompute_scale_factor:
            scales = (None,) * k
    if mode == "area" and min(sizes) > 0 and min(outs) >= 0:    # adaptive_avg_pool: an
        return adaptive_avg_pool(name, k, input, outs)               # empty output is fine
    if min(outs) <= 0 or min(sizes) <= 0:
        raise RuntimeError(f"{name}: input {tuple(sizes)} and output {outs} sizes should be "
                           "greater than 0.")
    if mode == "bicubic":
        mats = [_cubic_matrix(n, o, s, bool(align_corners))
                for n, o, s in zip(sizes, outs, scales)]
    elif mode in _LINEAR:
        mats = [_linear_matrix(n, o, s, bool(align_corners))
                for n, o, s in zip(sizes, outs, scales)]
    elif mode == "area":
        mats = [_adaptive_matrix(n, o) for n, o in zip(sizes, outs)]
    else:
        mats = [_nearest_matrix(n, o, s, mode == "nearest-exact")
                for n, o, s in zip(sizes, outs, scales)]
    return Interpolate.apply(input, tuple(mats))


def pad(input, pad, mode="constant", value=None):
    """Pad the last len(pad) // 2 dims: pad = (left, right) for the last dim, then (top,
    bottom) for the one before, ... Negative amounts crop. Modes: 'constant' (value, default
    0), 'reflect' (mirror without repeating the edge), 'replicate' (repeat the edge),
    'circular' (wrap around)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"pad: expected a tensor, got {type(input).__name__}.")
    amounts = []
    for i, p in enumerate(pad):     # ints, or integer tensors of one element (as torch)
        try:
            amounts.append(operator.index(p) if not isinstance(p, bool) else None)
        except TypeError:
            amounts.append(None)
        if amounts[-1] is None:
            raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but "
                            f"found element of type {type(p).__name__} at pos {i}")
    pad = tuple(amounts)
    if len(pad) % 2:
        raise RuntimeError(f"Padding length must be divisible by 2 (one amount per side), got "
                           f"pad={pad}.")
    k = len(pad) // 2
    if k > input.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the "
                           f"input dimension but got padding length {len(pad)} and input of "
                           f"dimension {input.ndim}")
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"pad: unknown padding mode {mode!r}; choose 'constant', "
                                  "'reflect', 'replicate' or 'circular'.")
    if mode != "constant":
        if value:
            raise ValueError(f"Padding mode \"{mode}\" doesn't take in value argument.")
        if not 1 <= k <= 3 or input.ndim not in (k + 1, k + 2):
            raise NotImplementedError(
                f"pad: mode {mode!r} pads the last 1, 2 or 3 dims of an input with one or two "
                f"more dims (channels, batch); got padding length {len(pad)} for input shape "
                f"{tuple(input.shape)}.")
    sides = [(pad[2 * i], pad[2 * i + 1]) for i in range(k)][::-1]   # first padded dim first
    sizes = input.shape[input.ndim - k:]
    for n, (left, right) in zip(sizes, sides):
        if mode == "reflect" and max(left, right) >= n:
            raise RuntimeError(f"pad: reflect padding ({left}, {right}) must be less than the "
                               f"dim's size {n}.")
        if mode == "circular" and max(left, right) > n:
            raise RuntimeError(f"pad: circular padding ({left}, {right}) must be at most the "
                               f"dim's size {n}.")
        if mode == "replicate" and n == 0 and (left or right):
            raise RuntimeError("pad: replicate padding needs a non-empty dim to copy from.")
        if mode == "constant" and n + min(left, 0) + min(right, 0) < 0:   # torch crops first
            raise RuntimeError(f"narrow(): length must be non-negative: the negative padding "
                               f"({left}, {right}) crops more than the dim's size {n}.")
        if n + left + right < 0:
            raise RuntimeError(f"The input size {n}, plus negative padding {left} and {right} "
                               "resulted in a negative output size, which is invalid. Check "
                               "dimension of your input.")
    mats = tuple(None if left == right == 0 else _pad_matrix(n, left, right, mode)
                 for n, (left, right) in zip(sizes, sides))
    out = Pad.apply(input, mats)
    if value:
        inside = np.ones(())
        for m, n in zip(mats, sizes):
            inside = np.multiply.outer(inside, np.ones(n) if m is None else m.sum(1))
        fill = input.device.xp.asarray(np.where(inside > 0, 0.0, value).astype(input._data.dtype))
        out = out + Tensor._make(fill, input.device)
    return out
