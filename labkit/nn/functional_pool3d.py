"""3-D pooling (volumes, video) from the 2-D ops: max_pool3d is the maximum, over the kernel's
depth taps, of max_pool2d on each depth slice; avg_pool3d and adaptive_avg_pool3d average the
2-D averages over each depth window (a box average is separable). Gradients are those of the
2-D ops, of slicing and of max / mean."""
from ..engine.ops.join import stack
from ..engine.ops.conv3d import triple
from ..engine.ops.fold import out_size
from ..engine.ops.resample import pad as _pad


def _batched(name, input):
    if input.dim() not in (4, 5):
        raise RuntimeError(f"{name}: expected 4D or 5D (batch mode) tensor for input, got "
                           f"{list(input.shape)}")
    return input.dim() == 4, (input.unsqueeze(0) if input.dim() == 4 else input)


def _depth_windows(x, kd, sd, dd, od):
    """The depth slices each output depth index reads: kd tensors (N, C, od, H, W)."""
    return [x[:, :, t * dd:t * dd + sd * (od - 1) + 1:sd] for t in range(kd)]


def _per_slice(fn, planes):
    n, c, od = planes.shape[:3]
    y = fn(planes.transpose(1, 2).reshape(n * od, c, *planes.shape[3:]))
    return y.reshape(n, od, c, *y.shape[2:]).transpose(1, 2)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    from . import functional as F
    name = "max_pool3d"
    if ceil_mode or return_indices:
        raise NotImplementedError("labkit's max_pool3d has no ceil_mode or return_indices; "
                                  "pool with the defaults, or per slice with max_pool2d")
    single, x = _batched(name, input)
    k = triple(kernel_size, name, "kernel_size")
    s = k if stride is None or stride == [] else triple(stride, name, "stride")
    p, d = triple(padding, name, "padding"), triple(dilation, name, "dilation")
    if any(2 * pi > ki for pi, ki in zip(p, k)):
        raise RuntimeError(f"{name}: pad should be at most half of effective kernel size, but "
                           f"got pad={list(p)}, kernel_size={list(k)}")
    depth = x.shape[2]
    od = out_size(depth, k[0], s[0], p[0], d[0])
    if od <= 0:
        raise RuntimeError(f"{name}: output depth {od} is too small (input {list(input.shape)})")
    # every real depth slice pooled once, then the max over each output's real depth taps
    planes = _per_slice(lambda t: F.max_pool2d(t, k[1:], s[1:], p[1:], d[1:]), x)
    outs = []
    for o in range(od):
        taps = [o * s[0] + t * d[0] - p[0] for t in range(k[0])]
        taps = [i for i in taps if 0 <= i < depth]
        outs.append(planes[:, :, taps].amax(2))
    out = stack(outs, 2)
    return out.squeeze(0) if single else out


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    from . import functional as F
    name = "avg_pool3d"
    if ceil_mode:
        raise NotImplementedError("labkit's avg_pool3d has no ceil_mode")
    single, x = _batched(name, input)
    k = triple(kernel_size, name, "kernel_size")
    s = k if stride is None or stride == [] else triple(stride, name, "stride")
    p = triple(padding, name, "padding")
    if any(2 * pi > ki for pi, ki in zip(p, k)):
        raise RuntimeError(f"{name}: pad should be at most half of kernel size, but got "
                           f"pad={list(p)}, kernel_size={list(k)}")
    depth = x.shape[2]
    if p[0]:
        x = _pad(x, (0, 0, 0, 0, p[0], p[0]))
    od = out_size(x.shape[2], k[0], s[0], 0, 1)
    # each depth slice's 2-D average (over all kh*kw taps when the divisor is not the real
    # count); padded depth slices are zeros, so they add nothing
    all_taps = count_include_pad or divisor_override is not None
    sums = None
    for w in _depth_windows(x, k[0], s[0], 1, od):
        y = _per_slice(lambda v: F.avg_pool2d(v, k[1:], s[1:], p[1:],
                                              count_include_pad=all_taps), w)
        sums = y if sums is None else sums + y
    if divisor_override is not None:
        out = sums * (k[1] * k[2] / divisor_override)
    elif count_include_pad:
        out = sums / k[0]
    else:
        from ..engine.creation import tensor
        counts = [sum(0 <= o * s[0] + t - p[0] < depth for t in range(k[0])) for o in range(od)]
        out = sums / tensor(counts, dtype=sums.dtype, device=sums.device).reshape(1, 1, od, 1, 1)
    return out.squeeze(0) if single else out


def adaptive_avg_pool3d(input, output_size):
    from . import functional as F
    single, x = _batched("adaptive_avg_pool3d", input)
    sizes = (output_size,) * 3 if isinstance(output_size, int) else tuple(output_size)
    sizes = tuple(n if o is None else o for n, o in zip(x.shape[2:], sizes))
    depth, od = x.shape[2], sizes[0]
    y = _per_slice(lambda v: F.adaptive_avg_pool2d(v, sizes[1:]), x)      # (N, C, D, oh, ow)
    planes = [y[:, :, (i * depth) // od:-(-((i + 1) * depth) // od)].mean(2) for i in range(od)]
    out = stack(planes, 2)
    return out.squeeze(0) if single else out
