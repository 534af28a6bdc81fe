"""3-D pooling (volumes, video). avg_pool3d and adaptive_avg_pool3d are the separable box
averages of resample.py with a third matrix. max_pool3d takes every kernel tap as a strided
slice of the (-inf) padded input and gathers each window's winner: the first maximum, or the
last nan, as torch's kernel, so the gradient goes to that one element (an amax would split it
between ties), and gathering is differentiable to any order."""
import numpy as np

from ..engine.creation import tensor
from ..engine.grad_mode import no_grad
from ..engine.ops.join import stack
from ..engine.ops.resample import _ints, adaptive_avg_pool, avg_pool, pad, pool_out_size


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The maximum over each kernel_size window of a (N, C, D, H, W) or (C, D, H, W) input;
    return_indices also gives each winner's flat position d * H * W + h * W + w."""
    name = "max_pool3d"
    if input.dim() not in (4, 5) or 0 in input.shape[-4:]:
        raise RuntimeError(f"{name}: expected a non-empty 4-D (C, D, H, W) or 5-D (N, C, D, H, "
                           f"W) input, got shape {list(input.shape)}.")
    k = _ints(kernel_size, 3, name, "kernel_size")
    s = k if stride is None or stride == [] else _ints(stride, 3, name, "stride")
    p, d = _ints(padding, 3, name, "padding"), _ints(dilation, 3, name, "dilation")
    if min(k) <= 0 or min(s) <= 0 or min(d) <= 0:
        raise RuntimeError(f"{name}: kernel size, stride and dilation should be greater than "
                           f"zero, got kernel_size={k}, stride={s}, dilation={d}.")
    if any(2 * pi > ki for pi, ki in zip(p, k)) or min(p) < 0:
        raise RuntimeError(f"{name}: pad should be at most half of effective kernel size, but "
                           f"got pad={list(p)}, kernel_size={list(k)}")
    sizes = input.shape[-3:]
    outs = [pool_out_size(n, *a, ceil_mode) for n, a in zip(sizes, zip(k, s, p, d))]
    if min(outs) <= 0:
        raise RuntimeError(f"{name}: given input size {list(input.shape)}, the calculated "
                           f"output size {outs} is too small: the kernel {list(k)} (dilation "
                           f"{list(d)}) does not fit. Use a smaller kernel or more padding.")
    right = [max(pi, (o - 1) * si + di * (ki - 1) + 1 - n - pi)
             for n, o, ki, si, pi, di in zip(sizes, outs, k, s, p, d)]
    x = pad(input, (p[2], right[2], p[1], right[1], p[0], right[0]), value=-float("inf"))
    taps, where = [], []
    for a in range(k[0]):
        for b in range(k[1]):
            for c in range(k[2]):
                taps.append(x[..., a * d[0]:a * d[0] + s[0] * (outs[0] - 1) + 1:s[0],
                              b * d[1]:b * d[1] + s[1] * (outs[1] - 1) + 1:s[1],
                              c * d[2]:c * d[2] + s[2] * (outs[2] - 1) + 1:s[2]])
                where.append((a * d[0] - p[0], b * d[1] - p[1], c * d[2] - p[2]))
    t = stack(taps, -1)
    xp = t.device.xp
    with no_grad():
        v = t._data
        real = xp.asarray(_inside(where, outs, s, sizes))      # taps on the input, not padding
        nan = xp.isnan(v)
        best = xp.where(real, v, -xp.inf).max(-1, keepdims=True)
        first = xp.argmax(real & (v == best), -1)
        last_nan = v.shape[-1] - 1 - xp.argmax(nan[..., ::-1], -1)
        win = xp.where(nan.any(-1), last_nan, first)
    out = t.gather(-1, tensor(win[..., None], device=t.device)).squeeze(-1)
    if not return_indices:
        return out
    pos = xp.asarray(_positions(where, outs, s, sizes))
    flat = xp.take_along_axis(xp.broadcast_to(pos, v.shape), win[..., None], -1)[..., 0]
    return out, tensor(flat, device=t.device)


def _coords(where, outs, s):
    """Per tap, the input coordinates (z, y, x) it reads for each output position, as three
    broadcastable (od, oh, ow) grids."""
    z, y, x = (np.arange(n) * st for n, st in zip(outs, s))
    z, y, x = z[:, None, None], y[None, :, None], x[None, None, :]
    return [(z + a, y + b, x + c) for a, b, c in where]


def _inside(where, outs, s, sizes):
    masks = [(z >= 0) & (z < sizes[0]) & (y >= 0) & (y < sizes[1]) & (x >= 0) & (x < sizes[2])
             for z, y, x in _coords(where, outs, s)]
    return np.stack(np.broadcast_arrays(*masks), -1)


def _positions(where, outs, s, sizes):
    flat = [(z * sizes[1] + y) * sizes[2] + x for z, y, x in _coords(where, outs, s)]
    return np.stack(np.broadcast_arrays(*flat), -1).astype(np.int64)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """The mean of each kernel_size window (stride defaults to kernel_size). torch's 3-d
    kernel also wants the unpadded input at least as large as the window, padding or not."""
    k = (kernel_size,) * 3 if isinstance(kernel_size, int) else tuple(kernel_size)
    if input.dim() in (4, 5) and len(k) == 3 and any(
            n < kk for n, kk in zip(input.shape[-3:], k)):
        t, h, w = input.shape[-3:]
        raise RuntimeError(f"input image (T: {t} H: {h} W: {w}) smaller than kernel size (kT: "
                           f"{k[0]} kH: {k[1]} kW: {k[2]}) in avg_pool3d; use a smaller "
                           "kernel_size, or pad the input first (F.pad).")
    return avg_pool("avg_pool3d", 3, input, kernel_size, stride, padding, ceil_mode,
                    count_include_pad, divisor_override)


def adaptive_avg_pool3d(input, output_size):
    """Average pooling to a fixed output_size (None keeps that dim's size)."""
    return adaptive_avg_pool("adaptive_avg_pool3d", 3, input, output_size)
