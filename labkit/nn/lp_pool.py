"""LPPool1d/2d/3d: power-average pooling, (sum of x^p over each window)^(1/p): p = 1 is sum
pooling, p -> infinity approaches max pooling (F.lp_pool1d/2d/3d as layers)."""
from . import functional as F
from .module import Module


class _LPPoolNd(Module):
    _k = 2

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def forward(self, input):
        fn = getattr(F, f"lp_pool{self._k}d")
        return fn(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    _k = 1


class LPPool2d(_LPPoolNd):
    _k = 2


class LPPool3d(_LPPoolNd):
    _k = 3
