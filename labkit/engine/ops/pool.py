"""max_pool2d: the largest value of each window. Backward sends each window's gradient to the
position that won; the winners (which kernel offset, per output) are kept from forward.

Scatter (the backward) and gather (its backward) are both linear in the gradient, so each is
the other's backward and pooling can be differentiated to any order.
"""
from ..function import Function
from ..tensor import Tensor
from .fold import check_geometry, pair, windows
from . import rules


def _padded(xp, d, padding, fill):
    ph, pw = padding
    if not (ph or pw):
        return d
    return xp.pad(d, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=fill)


class MaxPool2d(Function):
    node_name = "MaxPool2DWithIndicesBackward0"

    @staticmethod
    def forward(ctx, x, kernel, stride, padding, dilation):
        if x._data.ndim != 4:
            raise RuntimeError(f"max_pool2d: expected a 4-D input (N, C, H, W), got shape "
                               f"{tuple(x.shape)}.")
        if padding[0] > kernel[0] // 2 or padding[1] > kernel[1] // 2:
            raise RuntimeError(f"max_pool2d: padding {padding} must be at most half the kernel "
                               f"size {kernel}; otherwise a window could hold only padding.")
        check_geometry("max_pool2d", x._data.shape, kernel, stride, padding, dilation)
        xp = x.device.xp
        d = _padded(xp, x._data, padding, -xp.inf)
        _, _, spans = windows(x._data.shape, kernel, stride, padding, dilation)
        best = idx = None
        for k, (_, _, rows, columns) in enumerate(spans):
            v = d[:, :, rows, columns]
            if best is None:
                best, idx = v.copy(), xp.zeros(v.shape, xp.int64)
                continue
            wins = (v > best) | xp.isnan(v)           # the first maximum wins; nan propagates
            best = xp.where(wins, v, best)
            idx = xp.where(wins, k, idx)
        ctx.idx, ctx.shape = idx, x._data.shape
        ctx.geometry = kernel, stride, padding, dilation
        return best

    @staticmethod
    def backward(ctx, grad):
        return (_Scatter.apply(grad, ctx.idx, ctx.shape, ctx.geometry),) + (None,) * 4

    @classmethod
    def vmap(cls, args, batched):
        return rules.fold_batch(cls, args)


class _Scatter(Function):
    """Each output's gradient into the input position its window picked (summed on overlap)."""
    node_name = "MaxPool2DWithIndicesBackwardBackward0"

    @staticmethod
    def forward(ctx, g, idx, shape, geometry):
        xp = g.device.xp
        kernel, stride, padding, dilation = geometry
        n, c, h, w = shape
        out = xp.zeros((n, c, h + 2 * padding[0], w + 2 * padding[1]), g._data.dtype)
        _, _, spans = windows(shape, kernel, stride, padding, dilation)
        zero = xp.zeros((), g._data.dtype)
        for k, (_, _, rows, columns) in enumerate(spans):
            out[:, :, rows, columns] += xp.where(idx == k, g._data, zero)
        ctx.idx, ctx.shape, ctx.geometry = idx, shape, geometry
        return out[:, :, padding[0]:padding[0] + h, padding[1]:padding[1] + w]

    @staticmethod
    def backward(ctx, grad):
        return _Gather.apply(grad, ctx.idx, ctx.shape, ctx.geometry), None, None, None


class _Gather(Function):
    """The value at each window's picked position (the scatter's transpose)."""
    node_name = "MaxPool2DGatherBackward0"

    @staticmethod
    def forward(ctx, x, idx, shape, geometry):
        xp = x.device.xp
        kernel, stride, padding, dilation = geometry
        d = _padded(xp, x._data, padding, 0)
        _, _, spans = windows(shape, kernel, stride, padding, dilation)
        out = xp.zeros(idx.shape, x._data.dtype)
        for k, (_, _, rows, columns) in enumerate(spans):
            out = xp.where(idx == k, d[:, :, rows, columns], out)
        ctx.idx, ctx.shape, ctx.geometry = idx, shape, geometry
        return out

    @staticmethod
    def backward(ctx, grad):
        return _Scatter.apply(grad, ctx.idx, ctx.shape, ctx.geometry), None, None, None


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1):
    """The maximum over each kernel_size window; stride defaults to kernel_size."""
    if not isinstance(input, Tensor):
        raise TypeError(f"max_pool2d: expected a tensor, got {type(input).__name__}.")
    kernel = pair(kernel_size, "max_pool2d", "kernel_size")
    stride = kernel if stride is None else pair(stride, "max_pool2d", "stride")
    single = input.ndim == 3
    x = input.unsqueeze(0) if single else input
    out = MaxPool2d.apply(x, kernel, stride, pair(padding, "max_pool2d", "padding"),
                          pair(dilation, "max_pool2d", "dilation"))
    return out.squeeze(0) if single else out
