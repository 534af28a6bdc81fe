"""The rest of torch's max pools: the *_with_indices forms (always a (values, indices) pair),
adaptive_max_pool3d, and fractional max pooling (Graham's, arXiv:1412.6071).

Each finds the winners on the raw array (the first maximum of a window, or its last nan, as
torch's CPU kernels do) and then gathers them from the input with a differentiable gather, so
the gradient goes to exactly the element torch sends it to, and to any order.

Fractional pooling draws its windows from `_random_samples`, one number in [0, 1) per plane and
spatial dim, which F draws as torch does (torch.rand(N, C, 2) in the input's dtype, from the
global generator: labkit's is torch's, so after the same seed the windows are torch's). The
window starts are ATen's generate_intervals, computed in the input's dtype:
int((i + u) * alpha) - int(u * alpha), alpha = (n - k) / (out - 1), the last at n - k."""
import numpy as np

from ..engine.creation import rand, tensor
from ..engine.grad_mode import no_grad
from ..engine.tensor import Tensor


def _scalar_name(dtype):
    from ..engine.dtype import scalar_type_name, to_np
    return scalar_type_name(to_np(dtype))


def _dims(v, k, name, what):
    if isinstance(v, (tuple, list)):
        if len(v) == 1:
            v = tuple(v) * k
        if len(v) != k:
            raise RuntimeError(f"{name}: {what} must either be a single int, or a tuple of {k} "
                               f"ints")
        return tuple(int(x) for x in v)
    return (int(v),) * k


def _gather_flat(input, flat, spatial):
    """input's values at the flat positions `flat` (a host/device int array of shape
    (..., *out)) of its last `spatial` dims, differentiable."""
    lead = input.shape[:-spatial]
    x = input.reshape(*lead, -1)
    out_shape = flat.shape[-spatial:]
    idx = tensor(flat.reshape(*flat.shape[:-spatial], -1), device=input.device)
    return x.gather(-1, idx).reshape(*lead, *out_shape), tensor(flat, device=input.device)


def _window_winners(xp, data, starts, ends):
    """For windows [starts[d][i], ends[d][i]) along each of the last len(starts) dims of
    `data`: the flat index (in those dims) of each window's winner: its first maximum, or its
    last nan (torch's CPU rule: `val > best || isnan(val)`)."""
    spatial = len(starts)
    sizes = data.shape[-spatial:]
    lead = data.shape[:-spatial]
    outs = [len(s) for s in starts]
    flat = xp.zeros(lead + tuple(outs), dtype=np.int64)
    strides = [int(np.prod(sizes[d + 1:], dtype=np.int64)) for d in range(spatial)]
    for pos in np.ndindex(*outs):
        sl = tuple(slice(starts[d][p], ends[d][p]) for d, p in enumerate(pos))
        win = data[(Ellipsis,) + sl]
        shape = win.shape[-spatial:]
        w = win.reshape(lead + (-1,))
        k = _winner(xp, w)
        coords = xp.unravel_index(k, shape)
        f = 0
        for d in range(spatial):
            f = f + (coords[d] + starts[d][pos[d]]) * strides[d]
        flat[(Ellipsis,) + tuple(pos)] = f
    return flat


def _winner(xp, w):
    """The index along the last axis of w of its first maximum, or of its last nan."""
    if w.dtype.kind not in "fc":
        return xp.argmax(w, -1)
    nan = xp.isnan(w)
    masked = xp.where(nan, -xp.inf, w)
    first = xp.argmax(masked == masked.max(-1, keepdims=True), -1)
    last_nan = w.shape[-1] - 1 - xp.argmax(nan[..., ::-1], -1)
    return xp.where(nan.any(-1), last_nan, first)


# --- the *_with_indices forms ------------------------------------------------------------------

def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool1d's (values, indices), whatever return_indices says (torch's)."""
    from ..engine.ops.pool import max_pool1d
    return max_pool1d(input, kernel_size, None if stride in ((), []) else stride, padding,
                      dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    from ..engine.ops.pool import max_pool2d
    return max_pool2d(input, kernel_size, None if stride in ((), []) else stride, padding,
                      dilation, ceil_mode, True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    from .functional_pool3d import max_pool3d
    return max_pool3d(input, kernel_size, None if stride in ((), []) else stride, padding,
                      dilation, ceil_mode, True)


# --- adaptive_max_pool3d ----------------------------------------------------------------------

def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """The max over each of output_size's windows of a (N, C, D, H, W) or (C, D, H, W) input:
    window i of n positions into o spans [floor(i n / o), ceil((i + 1) n / o)), as torch's."""
    name = "adaptive_max_pool3d"
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if input.dim() not in (4, 5):
        raise RuntimeError(f"{name}(): Expected 4D or 5D tensor, but got: {list(input.shape)}")
    for n in input.shape[-4:]:
        if n == 0 and input.dim() == 4 or input.dim() == 5 and 0 in input.shape[1:]:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {list(input.shape).index(0)} being empty")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"adaptive_max_pool3d_cpu" not implemented for '
                                  f"'{_scalar_name(input.dtype)}'")
    sizes = (output_size,) * 3 if isinstance(output_size, int) else tuple(output_size)
    if len(sizes) != 3:
        raise RuntimeError(f"{name}(): internal error: output_size.size() must be 3")
    sizes = tuple(n if o is None else int(o) for n, o in zip(input.shape[-3:], sizes))
    if min(sizes) < 0:
        raise RuntimeError(f"{name}(): output_size must be non-negative, got {list(sizes)}")
    starts = [[(i * n) // o for i in range(o)] for n, o in zip(input.shape[-3:], sizes)]
    ends = [[-((-(i + 1) * n) // o) for i in range(o)] for n, o in zip(input.shape[-3:], sizes)]
    xp = input.device.xp
    with no_grad():
        flat = _window_winners(xp, input._data, starts, ends)
    return _gather_flat(input, flat, 3)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    out, idx = adaptive_max_pool3d_with_indices(input, output_size)
    return (out, idx) if return_indices else out


# --- fractional max pooling ------------------------------------------------------------------

def _intervals(u, n, out, k, dtype):
    """ATen's generate_intervals in the input's dtype, for an array u of samples: the start
    of each of out windows, shape u.shape + (out,)."""
    t = np.dtype(dtype).type
    u = np.asarray(u, dtype=t)[..., None]
    seq = np.zeros(u.shape[:-1] + (out,), np.int64)
    if out > 1:
        alpha = t(t(n - k) / t(out - 1))
        i = np.arange(out - 1).astype(t)
        seq[..., :-1] = ((i + u) * alpha).astype(np.int64) - (u * alpha).astype(np.int64)
    if out > 0:
        seq[..., -1] = n - k
    return seq


def _fractional(name, k, input, kernel_size, output_size, output_ratio, _random_samples):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if k == 2 and not hasattr(output_ratio, "__len__"):      # torch's F takes len()
            raise TypeError(f"object of type '{type(output_ratio).__name__}' has no len()")
        if k == 2 and len(output_ratio) > 2:
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple "
                             f"of Ints.")
        ratio = tuple(output_ratio) if isinstance(output_ratio, (tuple, list)) else \
            (output_ratio,) * k
        if len(ratio) < k:       # torch's _pair/_triple keep a sequence as it is
            raise IndexError("tuple index out of range")
        output_size = [int(input.size(-k + i) * ratio[i]) for i in range(k)]
    if input.dim() < k + 1 and _random_samples is None:
        d = input.dim()
        raise IndexError(f"Dimension out of range (expected to be in range of [{-d}, {d - 1}], "
                         f"but got {-k - 1})")
    if input.dim() not in (k + 1, k + 2):
        raise RuntimeError(f"{name}(): Expected {k + 1}D or {k + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    if _random_samples is None:
        n_batch = 1 if input.dim() == k + 1 else input.size(0)
        _random_samples = rand(n_batch, input.size(-k - 1), k, dtype=input.dtype,
                               device=input.device)
    pool = _dims(kernel_size, k, name, "kernel_size")
    outs = _dims(output_size, k, name, "output_size")
    sizes = tuple(input.shape[-k:])
    what = ("time", "height", "width")[3 - k:]
    for p, o, n, w in zip(pool, outs, sizes, what):
        if o + p - 1 > n or k == 3 and o + p - 1 == n:     # ATen's checks: <= 2-D, < 3-D
            raise RuntimeError(f"{name}_out(): pool {w} {p} too large relative to input {w} "
                               f"{n}")
    if 0 in input.shape[-k - 1:] or input.dim() == k + 2 and input.shape[0] == 0:
        raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch "
                           f"dimensions, but got {list(input.shape)}")
    single = input.dim() == k + 1
    x = input.unsqueeze(0) if single else input
    samples = _random_samples
    if tuple(samples.shape) != (x.shape[0], x.shape[1], k):
        raise RuntimeError(f"{name}(): Expected _random_samples of shape "
                           f"{[x.shape[0], x.shape[1], k]}, but got {list(samples.shape)}")
    if samples.dtype != input.dtype:
        raise RuntimeError(f"{name}(): Expected _random_samples to have the input's dtype "
                           f"{input.dtype}, but got {samples.dtype}")
    u = samples.detach().cpu().numpy()
    acc = u.dtype if u.dtype in (np.float16, np.float32, np.float64) else np.float32
    # torch's sample order: 2-D (w, h), 3-D (t, h, w)
    order = (1, 0) if k == 2 else (0, 1, 2)
    starts = [_intervals(u[..., order[d]], sizes[d], outs[d], pool[d], acc) for d in range(k)]
    # every tap of every window, as positions along each spatial dim: (B, C, *outs, *pool)
    n_b, n_c = x.shape[:2]
    flat = np.zeros((n_b, n_c) + outs + pool, np.int64)
    stride = 1
    for d in reversed(range(k)):
        shape = [n_b, n_c] + [1] * (2 * k)
        shape[2 + d] = outs[d]
        tap = [1] * (2 + 2 * k)
        tap[2 + k + d] = pool[d]
        flat = flat + (starts[d].reshape(shape) + np.arange(pool[d]).reshape(tap)) * stride
        stride *= sizes[d]
    xp = x.device.xp
    with no_grad():
        taps = flat.reshape(n_b, n_c, -1)
        vals = xp.take_along_axis(x._data.reshape(n_b, n_c, -1), xp.asarray(taps), -1)
        vals = vals.reshape((n_b, n_c) + outs + (-1,))
        win = _winner(xp, vals)
    flat = xp.take_along_axis(xp.asarray(flat.reshape((n_b, n_c) + outs + (-1,))),
                              win[..., None], -1)[..., 0]
    out, idx = _gather_flat(x, flat, k)
    if single:
        out, idx = out.squeeze(0), idx.squeeze(0)
    return out, idx


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return _fractional("fractional_max_pool2d", 2, input, kernel_size, output_size,
                       output_ratio, _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return _fractional("fractional_max_pool3d", 3, input, kernel_size, output_size,
                       output_ratio, _random_samples)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Max pooling over kernel_size windows at pseudo-random, overlapping positions chosen so
    the output has output_size (or output_ratio times the input's) positions."""
    out = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio,
                                             return_indices, _random_samples)
    return out if return_indices else out[0]


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    out = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio,
                                             return_indices, _random_samples)
    return out if return_indices else out[0]


def assert_int_or_pair(arg, arg_name, message):
    """torch's helper: an AssertionError with message.format(arg_name) unless arg is an int
    or has two elements."""
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))
