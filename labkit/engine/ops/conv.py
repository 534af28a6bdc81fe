"""conv2d: a 2-D convolution (really a cross-correlation, as in every framework) as one op.

Forward: unfold the input into patch columns and multiply by the flattened kernels, one matrix
product for the whole batch. Backward, in tensor ops: the input's gradient folds the kernels'
transposed product back into image shape; the kernels' gradient multiplies the output gradient
by the (re-unfolded) patches.
"""
from ..function import Function
from ..tensor import Tensor
from .fold import Fold, Unfold, check_geometry, im2col, out_size, pair


def _check(x, w, b):
    if w._data.ndim != 4:
        raise RuntimeError(f"conv2d: weight must be 4-D (out_channels, in_channels, kh, kw), got "
                           f"shape {tuple(w.shape)}.")
    if x._data.ndim != 4 or x._data.shape[1] != w._data.shape[1]:
        raise RuntimeError(
            f"conv2d: input of shape {tuple(x.shape)} does not fit a weight of shape "
            f"{tuple(w.shape)}: expected (N, {w._data.shape[1]}, H, W), {w._data.shape[1]} being "
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
    def forward(ctx, x, w, b, stride, padding, dilation):
        _check(x, w, b)
        o, _, kh, kw = w._data.shape
        check_geometry("conv2d", x._data.shape, (kh, kw), stride, padding, dilation)
        xp = x.device.xp
        cols = im2col(xp, x._data, (kh, kw), stride, padding, dilation)   # (N, C*kh*kw, L)
        y = xp.matmul(w._data.reshape(o, -1), cols)                      # (N, O, L)
        if b is not None:
            y += b._data[:, None]
        ctx.save_for_backward(x, w)
        ctx.geometry = (kh, kw), dilation, padding, stride
        oh = out_size(x._data.shape[2], kh, stride[0], padding[0], dilation[0])
        ow = out_size(x._data.shape[3], kw, stride[1], padding[1], dilation[1])
        return y.reshape(x._data.shape[0], o, oh, ow)   # explicit: -1 fails for a batch of 0

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        need = ctx.needs_input_grad
        n, o = grad.shape[:2]
        gy = grad.reshape(n, o, -1)                                      # (N, O, L)
        gx = gw = gb = None
        if need[0]:
            cols = w.reshape(o, -1).t().matmul(gy)                       # (N, C*kh*kw, L)
            gx = Fold.apply(cols, tuple(x.shape[-2:]), *ctx.geometry)
        if need[1]:
            patches = Unfold.apply(x, *ctx.geometry)
            gw = gy.matmul(patches.mT).sum(0).reshape(w.shape)
        if need[2]:
            gb = grad.sum((0, 2, 3))
        return gx, gw, gb, None, None, None


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """Slide each of weight's out_channels kernels over input (N, C, H, W) (or (C, H, W))."""
    if groups != 1:
        raise NotImplementedError("conv2d: labkit supports groups=1 only (every output channel "
                                  "sees every input channel).")
    if not isinstance(input, Tensor):
        raise TypeError(f"conv2d: expected a tensor input, got {type(input).__name__}.")
    if isinstance(padding, str):
        raise NotImplementedError(f"conv2d: padding={padding!r} is not supported by labkit; give "
                                  "the number of pixels, e.g. padding=1 for a 3 x 3 kernel.")
    single = input.ndim == 3
    x = input.unsqueeze(0) if single else input
    out = Conv2d.apply(x, weight, bias, pair(stride, "conv2d", "stride"),
                       pair(padding, "conv2d", "padding"), pair(dilation, "conv2d", "dilation"))
    return out.squeeze(0) if single else out
