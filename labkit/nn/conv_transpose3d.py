"""nn.ConvTranspose3d: ConvTranspose2d's learned upsampling over volumes (3-D U-Nets, video
decoders), (N, C, D, H, W) -> (N, O, D', H', W')."""
from ..engine.ops.conv_transpose3d import conv_transpose3d
from .conv import ConvTranspose2d


class ConvTranspose3d(ConvTranspose2d):
    """D' = (D - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1 (and
    alike for H', W'); weight is (in_channels, out_channels / groups, kd, kh, kw)."""
    _k = 3

    def forward(self, input, output_size=None):
        output_padding = self.output_padding
        if output_size is not None:
            output_padding = self._output_padding(input, output_size)
        return conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding,
                                output_padding, self.groups, self.dilation)
