"""Power-average pooling (lp_pool1d/2d/3d), as torch writes it: the p-th root of the sum of
x ** p over each window (p = 1: the sum; p = inf would be max pooling), from avg pooling."""
from ..engine.ops.resample import _ints, avg_pool


def _lp_pool(k, input, norm_type, kernel_size, stride, ceil_mode):
    name = f"lp_pool{k}d"
    kernel = _ints(kernel_size, k, name, "kernel_size")
    out = avg_pool(f"avg_pool{k}d", k, input.pow(norm_type),
                   kernel, kernel if stride is None else stride, 0, ceil_mode)
    size = 1
    for q in kernel:
        size *= q
    return (out.sign() * out.abs().relu()).mul(size).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)
