"""unfold (im2col) and fold (col2im): the data movement that turns a convolution into one
matrix product. Each is the other's backward (both are linear), so they nest to any order.

unfold cuts every kernel-sized patch of an (N, C, H, W) input into a column:
(N, C * kh * kw, L), L the number of patch positions. fold adds columns back into place,
summing where patches overlap. Both loop over the kh * kw kernel offsets, each one a strided
slice of the whole batch: a few array ops, on numpy or cupy alike.
"""
from ..function import Function
from ..tensor import Tensor
from . import rules


def pair(v, name, what):
    """An int or a pair of ints as a pair (kernel_size=3 means 3 x 3)."""
    if isinstance(v, int):
        return (v, v)
    if isinstance(v, (tuple, list)) and len(v) == 2 and all(isinstance(i, int) for i in v):
        return tuple(v)
    raise TypeError(f"{name}: {what} must be an int or a pair of ints, got {v!r}.")


def out_size(size, k, stride, padding, dilation):
    """How many kernel positions fit along one spatial dim."""
    return (size + 2 * padding - dilation * (k - 1) - 1) // stride + 1


def windows(shape, kernel, stride, padding, dilation):
    """(oh, ow, [(i, j, row slice, column slice) for each kernel offset]) of a padded input."""
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    oh = out_size(shape[-2], kh, sh, padding[0], dh)
    ow = out_size(shape[-1], kw, sw, padding[1], dw)
    return oh, ow, [(i, j, slice(i * dh, i * dh + sh * (oh - 1) + 1, sh),
                     slice(j * dw, j * dw + sw * (ow - 1) + 1, sw))
                    for i in range(kh) for j in range(kw)]


def im2col(xp, x, kernel, stride, padding, dilation):
    """(N, C, H, W) array -> (N, C*kh*kw, oh*ow) array of patches."""
    n, c = x.shape[:2]
    oh, ow, spans = windows(x.shape, kernel, stride, padding, dilation)
    ph, pw = padding
    if ph or pw:
        x = xp.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    cols = xp.empty((n, c, kernel[0], kernel[1], oh, ow), x.dtype)
    for i, j, rows, columns in spans:
        cols[:, :, i, j] = x[:, :, rows, columns]
    return cols.reshape(n, c * kernel[0] * kernel[1], oh * ow)


def col2im(xp, cols, shape, kernel, stride, padding, dilation):
    """(N, C*kh*kw, oh*ow) columns -> (N, C, H, W), overlapping patches summed."""
    n, c, h, w = shape
    oh, ow, spans = windows(shape, kernel, stride, padding, dilation)
    ph, pw = padding
    out = xp.zeros((n, c, h + 2 * ph, w + 2 * pw), cols.dtype)
    cols = cols.reshape(n, c, kernel[0], kernel[1], oh, ow)
    for i, j, rows, columns in spans:
        out[:, :, rows, columns] += cols[:, :, i, j]
    return out[:, :, ph:ph + h, pw:pw + w]


def check_geometry(name, shape, kernel, stride, padding, dilation):
    """Clear errors for sizes that leave no room for the kernel."""
    if any(s <= 0 for s in stride) or any(d <= 0 for d in dilation) or any(p < 0 for p in padding):
        raise RuntimeError(f"{name}: stride and dilation must be positive and padding "
                           f"non-negative, got stride={stride}, dilation={dilation}, "
                           f"padding={padding}.")
    oh, ow, _ = windows(shape, kernel, stride, padding, dilation)
    if oh <= 0 or ow <= 0:
        raise RuntimeError(
            f"{name}: the input's spatial size {tuple(shape[-2:])} (padded by {padding}) is "
            f"smaller than the kernel {kernel} (dilation {dilation}): the output would be "
            f"{oh} x {ow}. Use a smaller kernel or more padding, or remove a pooling layer "
            "that shrank the image too far.")


class Unfold(Function):
    node_name = "Im2ColBackward0"

    @staticmethod
    def forward(ctx, x, kernel, dilation, padding, stride):
        if x._data.ndim != 4:
            raise RuntimeError(f"unfold: expected a 4-D input (N, C, H, W), got shape "
                               f"{tuple(x.shape)}.")
        check_geometry("unfold", x._data.shape, kernel, stride, padding, dilation)
        ctx.size = x._data.shape[-2:]
        ctx.geometry = kernel, dilation, padding, stride
        return im2col(x.device.xp, x._data, kernel, stride, padding, dilation)

    @staticmethod
    def backward(ctx, grad):
        return (Fold.apply(grad, ctx.size, *ctx.geometry),) + (None,) * 4

    jvp = classmethod(rules.same_op)

    @classmethod
    def vmap(cls, args, batched):
        if rules.any_batched(batched[1:]):
            return NotImplemented
        return rules.fold_batch(cls, args)


class Fold(Function):
    node_name = "Col2ImBackward0"

    @staticmethod
    def forward(ctx, cols, size, kernel, dilation, padding, stride):
        d = cols._data
        k = kernel[0] * kernel[1]
        blocks = [out_size(size[i], kernel[i], stride[i], padding[i], dilation[i])
                  for i in (0, 1)]
        if min(blocks) < 1:
            raise RuntimeError(
                f"Given output_size={tuple(size)}, kernel_size={tuple(kernel)}, dilation="
                f"{tuple(dilation)}, padding={tuple(padding)}, stride={tuple(stride)}, "
                f"calculated shape of the array of sliding blocks as {tuple(blocks)}, which is "
                "too small (non-positive): fold needs output_size + 2 * padding of at least "
                "the dilated kernel.")
        n_pos = blocks[0] * blocks[1]
        if d.ndim != 3 or d.shape[1] % k or d.shape[2] != n_pos:
            raise RuntimeError(
                f"fold: expected columns of shape (N, C * {k}, {n_pos}) for output size "
                f"{tuple(size)} and kernel {kernel}, got {tuple(cols.shape)}.")
        ctx.geometry = kernel, dilation, padding, stride
        shape = (d.shape[0], d.shape[1] // k) + tuple(size)
        return col2im(cols.device.xp, d, shape, kernel, stride, padding, dilation)

    @staticmethod
    def backward(ctx, grad):
        return (Unfold.apply(grad, *ctx.geometry),) + (None,) * 5

    jvp = classmethod(rules.same_op)

    @classmethod
    def vmap(cls, args, batched):
        if rules.any_batched(batched[1:]):
            return NotImplemented
        return rules.fold_batch(cls, args)


def _unbatched(name, x, ndim):
    """True for one example without its batch dim ((C, H, W) images, (C*k, L) columns)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}: expected a tensor, got {type(x).__name__}.")
    single = x.ndim == ndim
    if x.ndim in (ndim, ndim + 1) and 0 in x.shape[0 if single else 1:]:
        raise RuntimeError(f"{name}: expected {ndim}D or {ndim + 1}D (batch mode) tensor with "
                           f"possibly 0 batch size and other non-zero dimensions for input, but "
                           f"got: {list(x.shape)}")
    return single


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Patches of an image batch as columns: (N, C, H, W) -> (N, C*kh*kw, L)."""
    single = _unbatched("unfold", input, 3)
    x = input.unsqueeze(0) if single else input
    out = Unfold.apply(x, pair(kernel_size, "unfold", "kernel_size"),
                       pair(dilation, "unfold", "dilation"), pair(padding, "unfold", "padding"),
                       pair(stride, "unfold", "stride"))
    return out.squeeze(0) if single else out


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The inverse placement of unfold: columns summed back into (N, C, H, W)."""
    single = _unbatched("fold", input, 2)
    x = input.unsqueeze(0) if single else input
    out = Fold.apply(x, pair(output_size, "fold", "output_size"),
                     pair(kernel_size, "fold", "kernel_size"), pair(dilation, "fold", "dilation"),
                     pair(padding, "fold", "padding"), pair(stride, "fold", "stride"))
    return out.squeeze(0) if single else out
