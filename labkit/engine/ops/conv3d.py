"""conv3d (video, volumes): a sum of conv2d's, one per depth tap of the kernel.

For kernel depth index kd, the input planes that tap meets are a strided slice along depth;
folding the output depth into the batch turns them into one conv2d with that kernel slice.
The KD results add up to the 3-D convolution, so its gradients (and their derivatives) are
conv2d's and slicing's -- the same sums torch's own kernel computes.
"""
from ..tensor import Tensor
from .conv import _groups, check_args, conv2d
from .fold import out_size
from .resample import pad as _pad


def triple(v, name, what):
    """An int or three ints as a triple (kernel_size=3 means 3 x 3 x 3)."""
    if isinstance(v, int) and not isinstance(v, bool):
        return (v, v, v)
    if isinstance(v, (tuple, list)) and len(v) == 3 and all(isinstance(i, int) for i in v):
        return tuple(v)
    raise TypeError(f"{name}: {what} must be an int or a tuple of three ints, got {v!r}.")


def _check(x, w, b, groups):
    if not isinstance(w, Tensor) or w.dim() != 5:
        raise RuntimeError(f"conv3d: weight must be 5-D (out_channels, in_channels / groups, "
                           f"kd, kh, kw), got shape {tuple(getattr(w, 'shape', ()))}.")
    if x.dim() != 5 or x.shape[1] != w.shape[1] * groups:
        raise RuntimeError(
            f"conv3d: input of shape {tuple(x.shape)} does not fit a weight of shape "
            f"{tuple(w.shape)} with groups={groups}: expected (N, {w.shape[1] * groups}, D, H, "
            "W), the layer's in_channels second.")
    if w.shape[0] % groups:
        raise RuntimeError(f"conv3d: out_channels {w.shape[0]} must be divisible by "
                           f"groups={groups}.")
    if b is not None and tuple(b.shape) != (w.shape[0],):
        raise RuntimeError(f"conv3d: bias of shape {tuple(b.shape)} does not match "
                           f"out_channels = {w.shape[0]}.")


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """Slide weight's kernels (O, C / groups, kd, kh, kw) over input (N, C, D, H, W) (or
    (C, D, H, W)); padding in voxels, or 'valid' / 'same'."""
    name = "conv3d"
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}: expected a tensor input, got {type(input).__name__}.")
    groups = _groups(name, groups)
    stride, dilation = triple(stride, name, "stride"), triple(dilation, name, "dilation")
    single = input.dim() == 4
    x = input.unsqueeze(0) if single else input
    _check(x, weight, bias, groups)
    check_args(name, x, stride, padding if isinstance(padding, str) else
               triple(padding, name, "padding"), dilation)
    kd, kh, kw = weight.shape[2:]
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise RuntimeError(f"{name}: invalid padding string {padding!r}, should be one of "
                               "{'valid', 'same'} (or a number of voxels).")
        if padding == "same" and stride != (1, 1, 1):
            raise RuntimeError(f"{name}: padding='same' is not supported for strided "
                               f"convolutions (stride={stride}); give the padding in voxels.")
        if padding == "same":    # d * (k - 1) in all, the odd one at the end (as torch)
            total = [d * (k - 1) for d, k in zip(dilation, (kd, kh, kw))]
            x = _pad(x, (total[2] // 2, total[2] - total[2] // 2, total[1] // 2,
                         total[1] - total[1] // 2, total[0] // 2, total[0] - total[0] // 2))
        padding = (0, 0, 0)
    padding = triple(padding, name, "padding")
    if padding[0]:
        x = _pad(x, (0, 0, 0, 0, padding[0], padding[0]))
    n, c, depth = x.shape[:3]
    od = out_size(depth, kd, stride[0], 0, dilation[0])
    if od <= 0:
        raise RuntimeError(f"{name}: input depth {depth} (after padding) is smaller than the "
                           f"kernel's dilated depth {dilation[0] * (kd - 1) + 1}.")
    out = None
    for t in range(kd):
        start = t * dilation[0]
        planes = x[:, :, start:start + stride[0] * (od - 1) + 1:stride[0]]    # (N, C, od, H, W)
        planes = planes.transpose(1, 2).reshape(n * od, c, *x.shape[3:])
        y = conv2d(planes, weight[:, :, t], None, stride[1:], padding[1:], dilation[1:], groups)
        out = y if out is None else out + y
    out = out.reshape(n, od, *out.shape[1:]).transpose(1, 2)                # (N, O, od, oh, ow)
    if bias is not None:
        out = out + bias.reshape(-1, 1, 1, 1)
    return out.squeeze(0) if single else out
