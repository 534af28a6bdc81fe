"""conv_transpose3d (volumetric decoders, 3-D U-Nets): a sum of conv_transpose2d's, one per depth
tap of the kernel, as conv3d is a sum of conv2d's.

Input plane i, through depth tap t, lands on output plane i * stride + t * dilation. Folding the
input depth into the batch gives one conv_transpose2d per tap (the (h, w) part, its padding
included); its planes are spread stride apart along depth and shifted by t * dilation, the taps
are summed, and the depth padding is cut off (output_padding keeps that much more at the end).
The gradients are conv_transpose2d's, padding's and reshaping's.
"""
from ..tensor import Tensor
from .conv import _groups, conv_transpose2d
from .conv3d import triple
from .resample import pad as _pad


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The transpose of conv3d: each input voxel spreads a weighted copy of its kernel into the
    output. weight is (in_channels, out_channels / groups, kd, kh, kw); input (N, C, D, H, W)
    or (C, D, H, W)."""
    name = "conv_transpose3d"
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}: expected a tensor input, got {type(input).__name__}.")
    groups = _groups(name, groups)
    stride, padding = triple(stride, name, "stride"), triple(padding, name, "padding")
    output_padding = triple(output_padding, name, "output_padding")
    dilation = triple(dilation, name, "dilation")
    if not isinstance(weight, Tensor) or weight.dim() != 5 or input.dim() not in (4, 5) \
            or input.shape[-4] != weight.shape[0] or weight.shape[0] % groups:
        raise RuntimeError(
            f"{name}: input of shape {tuple(input.shape)} does not fit a weight of shape "
            f"{tuple(getattr(weight, 'shape', ()))} with groups={groups}: expected (N, "
            f"{weight.shape[0] if isinstance(weight, Tensor) and weight.dim() else 'C'}, D, H, W)"
            " and weight (in_channels, out_channels / groups, kd, kh, kw), in_channels "
            "divisible by groups.")
    if output_padding[0] >= max(stride[0], dilation[0]):
        raise RuntimeError(f"{name}: output padding must be smaller than either stride or "
                           f"dilation, got output_padding={output_padding}, stride={stride}, "
                           f"dilation={dilation}.")
    if bias is not None and tuple(bias.shape) != (weight.shape[1] * groups,):
        raise RuntimeError(f"{name}: bias of shape {tuple(bias.shape)} does not match "
                           f"out_channels = {weight.shape[1] * groups}.")
    single = input.dim() == 4
    x = input.unsqueeze(0) if single else input
    n, c, depth, h, w = x.shape
    kd, s, d = weight.shape[2], stride[0], dilation[0]
    size = (depth - 1) * s - 2 * padding[0] + d * (kd - 1) + output_padding[0] + 1
    full = (depth - 1) * s + d * (kd - 1) + 1          # every plane a kernel tap reaches
    if size <= 0:
        raise RuntimeError(f"{name}: given input size {(c, depth, h, w)}, the calculated output "
                           f"depth {size} is too small; use less padding.")
    planes = x.transpose(1, 2).reshape(n * depth, c, h, w)
    out = None
    for t in range(kd):
        y = conv_transpose2d(planes, weight[:, :, t], None, stride[1:], padding[1:],
                             output_padding[1:], groups, dilation[1:])
        y = y.reshape(n, depth, *y.shape[1:]).transpose(1, 2)          # (N, O, D, H', W')
        if s > 1:       # planes stride apart: zeros between them
            y = y.unsqueeze(3)
            y = _pad(y, (0, 0, 0, 0, 0, s - 1)).reshape(n, y.shape[1], depth * s, *y.shape[-2:])
            y = y[:, :, :(depth - 1) * s + 1]
        y = _pad(y, (0, 0, 0, 0, t * d, full - t * d - y.shape[2]))
        out = y if out is None else out + y
    out = _pad(out, (0, 0, 0, 0, -padding[0], size + padding[0] - full))
    if bias is not None:
        out = out + bias.reshape(-1, 1, 1, 1)
    return out.squeeze(0) if single else out
