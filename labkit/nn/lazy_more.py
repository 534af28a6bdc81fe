"""LazyConv3d and LazyConvTranspose1d: layers whose in_channels is read from the first input
(the lazy.py pattern, for the layers added after it)."""
from .conv3d import Conv3d
from .conv_transpose1d import ConvTranspose1d
from .lazy import _LazyConvMixin


class LazyConv3d(_LazyConvMixin, Conv3d):
    cls_to_become = Conv3d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode)
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConvTranspose1d(_LazyConvMixin, ConvTranspose1d):
    cls_to_become = ConvTranspose1d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode)
        self._lazy_init(out_channels, bias, device, dtype)
