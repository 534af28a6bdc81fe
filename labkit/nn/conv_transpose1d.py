"""nn.ConvTranspose1d: ConvTranspose2d along one dim (the learned upsampling of audio and
sequence decoders); weight (in_channels, out_channels / groups, k)."""
from . import functional as F
from .conv import ConvTranspose2d


class ConvTranspose1d(ConvTranspose2d):
    _k = 1

    def forward(self, input, output_size=None):
        output_padding = self.output_padding
        if output_size is not None:
            output_padding = self._output_padding(input, output_size)
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding,
                                  output_padding, self.groups, self.dilation)
