"""nn.Conv3d: Conv2d's idea over volumes and video, (N, C, D, H, W) -> (N, O, D', H', W')."""
from ..engine.ops.conv3d import conv3d
from .conv import _ConvNd


class Conv3d(_ConvNd):
    """Each output channel is one kernel of shape (in_channels / groups, kd, kh, kw) applied at
    every position (stride apart, after padding: voxels, 'valid' or 'same')."""
    _k = 3

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)

    def _conv_forward(self, input, weight, bias):
        x, padding = self._padded(input)
        return conv3d(x, weight, bias, self.stride, padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)
