"""conv2d: a 2-D convolution (really a cross-correlation, as in every framework) as one op,
and conv_transpose2d, its transpose.

Forward: unfold the input into patch columns and multiply by the flattened kernels, one matrix
product for the whole batch. Backward, in tensor ops: the input's gradient folds the kernels'
transposed product back into image shape; the kernels' gradient multiplies the output gradient
by the (re-unfolded) patches. With groups, the channels split into `groups` independent
convolutions: the same products, batched over the groups.

conv_transpose2d is exactly conv2d's input gradient (kernels' transposed product, then fold),
written with the same tensor ops, so it differentiates like them.
"""
from ..autocast import autocast_op
from ..function import Function
from ..tensor import Tensor
from .fold import Fold, Unfold, check_geometry, im2col, out_size, pair
from . import rules
from .resample import pad as _pad


def _check(x, w, b, groups):
    if w._data.ndim != 4:
        raise RuntimeError(f"conv2d: weight must be 4-D (out_channels, in_channels, kh, kw), got "
                           f"shape {tuple(w.shape)}.")
    if w._data.shape[0] % groups:
        raise RuntimeError(f"conv2d: out_channels {w._data.shape[0]} (weight {tuple(w.shape)}) "
                           f"must be divisible by groups={groups}.")
    c = w._data.shape[1] * groups
    if x._data.ndim != 4 or x._data.shape[1] != c:
        raise RuntimeError(
            f"conv2d: input of shape {tuple(x.shape)} does not fit a weight of shape "
            f"{tuple(w.shape)} with groups={groups}: expected (N, {c}, H, W), {c} being "
            "the layer's in_channels. Images need a channel dim: a batch of grey images is "
            "x.unsqueeze(1); channels-last data needs x.permute(0, 3, 1, 2).")
    if b is not None and tuple(b.shape) != (w._data.shape[0],):
        raise RuntimeError(f"conv2d: bias of shape {tuple(b.shape)} does not match "
                           f"out_channels = {w._data.shape[0]}.")
    dtypes = {t._data.dtype for t in (x, w, b) if t is not None}
    if len(dtypes) > 1:
        raise RuntimeError(f"conv2d: input, weight (and bias) must have the same dtype, got "
                           f"{', '.join(str(t.dtype) for t in (x, w, b) if t is not None)}. "
                           "Convert the input (x.to(conv.weight.dtype)) or the model.")


class Conv2d(Function):
    node_name = "ConvolutionBackward0"
    @staticmethod
    def onnx(w, node, out):
        x, wt, b, stride, padding, dilation, groups = node.args
        ins = [w.name(x), w.name(wt)] + ([w.name(b)] if b is not None else [])
        w.emit("Conv", ins, out, kernel_shape=list(wt.shape[2:]), strides=list(stride),
               pads=list(padding) * 2, dilations=list(dilation), group=groups)

    @staticmethod
    def forward(ctx, x, w, b, stride, padding, dilation, groups):
        _check(x, w, b, groups)
        o, _, kh, kw = w._data.shape
        check_geometry("conv2d", x._data.shape, (kh, kw), stride, padding, dilation)
        xp = x.device.xp
        n = x._data.shape[0]
        cols = im2col(xp, x._data, (kh, kw), stride, padding, dilation)   # (N, C*kh*kw, L)
        if groups == 1:
            y = xp.matmul(w._data.reshape(o, -1), cols)                  # (N, O, L)
        else:                                                            # (N, G, O/G, L)
            y = xp.matmul(w._data.reshape(groups, o // groups, -1),
                          cols.reshape(n, groups, cols.shape[1] // groups, cols.shape[-1])
                          ).reshape(n, o, cols.shape[-1])
        if b is not None:
            y += b._data[:, None]
        ctx.save_for_backward(x, w)
        ctx.geometry = (kh, kw), dilation, padding, stride
        ctx.groups = groups
        oh = out_size(x._data.shape[2], kh, stride[0], padding[0], dilation[0])
        if y.dtype != x._data.dtype:          # bfloat16: numpy's matmul returned float32
            y = y.astype(x._data.dtype)
        return y.reshape(n, o, oh, cols.shape[-1] // oh)

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        need = ctx.needs_input_grad
        n, o, oh, ow = grad.shape
        g = ctx.groups
        k = w.shape[1] * w.shape[2] * w.shape[3]                         # C/G * kh * kw
        gy = grad.reshape(n, g, o // g, oh * ow)                         # (N, G, O/G, L)
        wg = w.reshape(g, o // g, k)
        gx = gw = gb = None
        if need[0]:
            cols = wg.mT.matmul(gy).reshape(n, g * k, oh * ow)          # (N, C*kh*kw, L)
            gx = Fold.apply(cols, tuple(x.shape[-2:]), *ctx.geometry)
        if need[1]:
            patches = Unfold.apply(x, *ctx.geometry).reshape(n, g, k, oh * ow)
            gw = gy.matmul(patches.mT).sum(0).reshape(w.shape)
        if need[2]:
            gb = grad.sum((0, 2, 3))
        return gx, gw, gb, None, None, None, None

    @staticmethod
    def jvp(args, tangents, out):
        (x, w, b, *geometry), (tx, tw, tb) = args, tangents[:3]
        return rules.total(None if tx is None else Conv2d.apply(tx, w, None, *geometry),
                           None if tw is None else Conv2d.apply(x, tw, None, *geometry),
                           None if tb is None else rules.fit(tb.reshape(-1, 1, 1), out))

    @classmethod
    def vmap(cls, args, batched):
        if not rules.any_batched(batched[1:]):   # one kernel set: the batch joins N
            return rules.fold_batch(cls, args)
        (x, w, b, stride, padding, dilation, groups), (xb, wb, bb) = args, batched[:3]
        if groups != 1:
            return NotImplemented                # grouped kernels per example: the loop
        kh, kw = w.shape[-2:]                    # a kernel set per example: unfold, then matmul
        cols = Unfold.apply(x.reshape(-1, *x.shape[-3:]), (kh, kw), dilation, padding, stride)
        cols = cols.reshape(*x.shape[:-3], *cols.shape[-2:])          # (B?, N, C*kh*kw, L)
        wm = w.reshape(*w.shape[:-3], -1)                              # (B?, O, C*kh*kw)
        y = (wm.unsqueeze(-3) if wb else wm) @ cols                    # (B, N, O, L)
        if b is not None:
            y = y + (b.reshape(b.shape[0], 1, -1, 1) if bb else b.reshape(-1, 1))
        oh = out_size(x.shape[-2], kh, stride[0], padding[0], dilation[0])
        return y.reshape(*y.shape[:3], oh, -1)


def _same_padding(name, input, weight, stride, dilation):
    """padding='same' keeps H and W: d * (k - 1) pixels in all, the odd one on the right and
    bottom (as torch). Returns the symmetric part and the input with any odd pixel added."""
    if stride != (1, 1):
        raise RuntimeError(f"{name}: padding='same' is not supported for strided convolutions "
                         f"(stride={stride}); give the padding in pixels instead.")
    total = [d * (k - 1) for d, k in zip(dilation, weight.shape[-2:])]
    extra = [t % 2 for t in total]
    if any(extra):
        input = _pad(input, (0, extra[1], 0, extra[0]))
    return input, (total[0] // 2, total[1] // 2)


def _padding(name, padding, input, weight, stride, dilation):
    if isinstance(padding, str):
        if padding == "valid":
            return input, (0, 0)
        if padding == "same":
            return _same_padding(name, input, weight, stride, dilation)
        raise RuntimeError(f"{name}: invalid padding string {padding!r}, should be one of "
                           "{'valid', 'same'} (or a number of pixels).")
    return input, pair(padding, name, "padding")


def check_args(name, x, stride, padding, dilation):
    """torch's argument checks, in its order and words (conv1d/2d/3d and the transposes);
    `x` is batched (N, C, ...). An empty spatial dim is an error unless N or C is 0."""
    if any(s <= 0 for s in stride):
        raise RuntimeError(f"{name}: non-positive stride is not supported, got stride={stride}.")
    if not isinstance(padding, str) and any(p < 0 for p in padding):
        raise RuntimeError(f"{name}: negative padding is not supported, got padding={padding}.")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"{name}: dilation should be greater than zero, but got "
                           f"{list(dilation)}.")
    if x.ndim >= 3 and x.shape[0] and x.shape[1] and 0 in x.shape[2:]:
        raise RuntimeError(f"{name}: Only zero batch or zero channel inputs are supported, but "
                           f"got input shape: {list(x.shape)} (an empty spatial dim).")


def _groups(name, groups):
    if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0:
        raise RuntimeError(f"{name}: non-positive groups is not supported, got groups={groups!r}.")
    return groups


@autocast_op("conv2d")
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """Slide each of weight's out_channels kernels over input (N, C, H, W) (or (C, H, W)).
    padding is pixels, or 'valid' (none) or 'same' (output as large as the input); groups
    splits the channels into independent convolutions (groups=C: depthwise)."""
    name = "conv2d"
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}: expected a tensor input, got {type(input).__name__}.")
    groups = _groups(name, groups)
    stride, dilation = pair(stride, name, "stride"), pair(dilation, name, "dilation")
    single = input.ndim == 3
    x = input.unsqueeze(0) if single else input
    check_args(name, x, stride, padding if isinstance(padding, str) else
               pair(padding, name, "padding"), dilation)
    x, padding = _padding(name, padding, x, weight, stride, dilation)
    out = Conv2d.apply(x, weight, bias, stride, padding, dilation, groups)
    return out.squeeze(0) if single else out


@autocast_op("conv1d")
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """conv2d over (N, C, L) sequences: a height-1 image and a height-1 kernel."""
    if not isinstance(weight, Tensor) or weight.ndim != 3:
        raise RuntimeError(f"conv1d: weight must be 3-D (out_channels, in_channels, k), got "
                           f"{tuple(getattr(weight, 'shape', ()))}.")
    one = (lambda v: v[0] if isinstance(v, (tuple, list)) and len(v) == 1 else v)
    pad = padding if isinstance(padding, str) else (0, one(padding))
    out = conv2d(input.unsqueeze(-2), weight.unsqueeze(-2), bias, (1, one(stride)), pad,
                 (1, one(dilation)), groups)
    return out.squeeze(-2)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """conv_transpose2d over (N, C, L) sequences: a height-1 image and a height-1 kernel (that
    op's autocast policy applies)."""
    if not isinstance(weight, Tensor) or weight.ndim != 3:
        raise RuntimeError(f"conv_transpose1d: weight must be 3-D (in_channels, out_channels / "
                           f"groups, k), got {tuple(getattr(weight, 'shape', ()))}.")
    one = (lambda v: v[0] if isinstance(v, (tuple, list)) and len(v) == 1 else v)
    out = conv_transpose2d(input.unsqueeze(-2), weight.unsqueeze(-2), bias, (1, one(stride)),
                           (0, one(padding)), (0, one(output_padding)), groups,
                           (1, one(dilation)))
    return out.squeeze(-2)


@autocast_op("conv_transpose2d")
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The transpose of conv2d (what conv2d's backward does to a gradient): each input pixel
    spreads a weighted copy of its kernel into the output, overlaps summed. Upsamples by
    stride; weight is (in_channels, out_channels / groups, kh, kw)."""
    name = "conv_transpose2d"
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}: expected a tensor input, got {type(input).__name__}.")
    groups = _groups(name, groups)
    stride, padding = pair(stride, name, "stride"), pair(padding, name, "padding")
    output_padding, dilation = (pair(output_padding, name, "output_padding"),
                                pair(dilation, name, "dilation"))
    if weight.ndim != 4 or input.ndim not in (3, 4) or input.shape[-3] != weight.shape[0] \
            or weight.shape[0] % groups:
        raise RuntimeError(
            f"{name}: input of shape {tuple(input.shape)} does not fit a weight of shape "
            f"{tuple(weight.shape)} with groups={groups}: expected (N, {weight.shape[0]}, H, W) "
            "and weight (in_channels, out_channels / groups, kh, kw), in_channels divisible "
            "by groups.")
    if input.numel() and any(op >= max(s, d)          # (torch skips it for an empty batch)
                             for op, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError(f"{name}: output padding must be smaller than either stride or "
                           f"dilation, got output_padding={output_padding}, stride={stride}, "
                           f"dilation={dilation}.")
    if bias is not None and tuple(bias.shape) != (weight.shape[1] * groups,):
        raise RuntimeError(f"{name}: bias of shape {tuple(bias.shape)} does not match "
                           f"out_channels = {weight.shape[1] * groups}.")
    single = input.ndim == 3
    x = input.unsqueeze(0) if single else input
    check_args(name, x, stride, padding, dilation)
    n, c, h, w = x.shape
    kernel = tuple(weight.shape[-2:])
    size = tuple((i - 1) * s - 2 * p + d * (k - 1) + op + 1
                 for i, s, p, d, k, op in zip((h, w), stride, padding, dilation, kernel,
                                              output_padding))
    if min(size) <= 0 and not (x.numel() == 0 and min(size) == 0):
        raise RuntimeError(f"{name}: given input size {(c, h, w)}, the calculated output size "
                           f"{size} is too small; use less padding.")
    if x.numel() == 0:                 # N or C is 0: an empty (or zero) output, in the graph
        out = (x.sum() + weight.sum() * 0).expand(n, weight.shape[1] * groups, *size)
        out = out if bias is None else out + bias.reshape(-1, 1, 1)
        return out.squeeze(0) if single else out
    wg = weight.reshape(groups, c // groups, -1)                 # (G, C/G, O/G*kh*kw)
    cols = wg.mT.matmul(x.reshape(n, groups, c // groups, h * w))  # (N, G, O/G*kh*kw, L)
    full = tuple((i - 1) * s + d * (k - 1) + 1       # every position a kernel tap reaches
                 for i, s, d, k in zip((h, w), stride, dilation, kernel))
    out = Fold.apply(cols.reshape(n, cols.shape[1] * cols.shape[2], h * w), full, kernel,
                     dilation, (0, 0), stride)
    # cut the padding off; output_padding keeps (or adds, as zeros) that much more at the end
    out = _pad(out, (-padding[1], size[1] + padding[1] - full[1],
                     -padding[0], size[0] + padding[0] - full[0]))
    if bias is not None:
        out = out + bias.reshape(-1, 1, 1)
    return out.squeeze(0) if single else out
