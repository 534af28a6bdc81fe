"""Conv1d, Conv2d and ConvTranspose2d: banks of small learned filters slid over a signal or an
image (or, transposed, spread out from each pixel: learned upsampling)."""

from ..engine.creation import empty
from ..engine.ops.fold import pair
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

_PAD_MODES = {"zeros", "reflect", "replicate", "circular"}


def _tuple(v, k, name, what):
    if k == 2:
        return pair(v, name, what)
    if k == 3:
        from ..engine.ops.conv3d import triple
        return triple(v, name, what)
    v = v[0] if isinstance(v, (tuple, list)) and len(v) == 1 else v
    if not isinstance(v, int):
        raise TypeError(f"{name}: {what} must be an int, got {v!r}.")
    return (v,)


class _ConvNd(Module):
    """What Conv1d, Conv2d and ConvTranspose2d share: the checks, the weights and their
    PyTorch initialisation (kaiming_uniform_ with a = sqrt(5)), extra_repr."""
    _k = 2
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                 bias, padding_mode, device, dtype, output_padding=0):
        super().__init__()
        name, k = type(self).__name__, self._k
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode not in _PAD_MODES:
            raise ValueError(f"padding_mode must be one of {_PAD_MODES}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = _tuple(kernel_size, k, name, "kernel_size")
        self.stride = _tuple(stride, k, name, "stride")
        self.dilation = _tuple(dilation, k, name, "dilation")
        self.output_padding = _tuple(output_padding, k, name, "output_padding")
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 "{'valid', 'same'}")
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            self.padding = padding
        else:
            self.padding = _tuple(padding, k, name, "padding")
        self.padding_mode = padding_mode
        shape = ((in_channels, out_channels // groups) if self._transposed
                 else (out_channels, in_channels // groups))
        self.weight = Parameter(empty(*shape, *self.kernel_size, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.reset_affine_(self.weight, self.bias)

    def _padded(self, input):
        """Non-zero padding modes pad first (with F.pad), then convolve unpadded."""
        if self.padding_mode == "zeros" or self.padding in ("valid", (0,) * self._k):
            return input, self.padding
        if self.padding == "same":
            total = [d * (k - 1) for d, k in zip(self.dilation, self.kernel_size)]
            sides = [(t // 2, t - t // 2) for t in total]
        else:
            sides = [(p, p) for p in self.padding]
        amounts = tuple(a for side in reversed(sides) for a in side)
        return F.pad(input, amounts, mode=self.padding_mode), 0

    def extra_repr(self):
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * self._k:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * self._k:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self._k:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv2d(_ConvNd):
    """(N, in_channels, H, W) -> (N, out_channels, H', W'): each output channel is one kernel
    of shape (in_channels / groups, kh, kw) applied at every position (stride apart, after
    padding: pixels, 'valid' or 'same', filled as padding_mode says). groups splits the
    channels into independent convolutions (groups = in_channels: depthwise)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)

    def _conv_forward(self, input, weight, bias):
        """The convolution with given weights: subclasses override this to change them
        (cast, standardise) and keep forward, as torch's do."""
        x, padding = self._padded(input)
        return F.conv2d(x, weight, bias, self.stride, padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_ConvNd):
    """(N, in_channels, L) -> (N, out_channels, L'): Conv2d along one dim (sequences, audio)."""
    _k = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)

    def _conv_forward(self, input, weight, bias):
        x, padding = self._padded(input)
        return F.conv1d(x, weight, bias, self.stride, padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class ConvTranspose2d(_ConvNd):
    """(N, in_channels, H, W) -> (N, out_channels, H', W'), H' = (H - 1) * stride - 2 * padding
    + dilation * (kernel - 1) + output_padding + 1: conv2d's transpose, the learned upsampling
    of decoders and GANs. weight is (in_channels, out_channels / groups, kh, kw)."""
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        if isinstance(padding, str):
            raise TypeError(f"{type(self).__name__}: padding must be pixels, not {padding!r}.")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype, output_padding)

    def forward(self, input, output_size=None):
        output_padding = self.output_padding
        if output_size is not None:
            output_padding = self._output_padding(input, output_size)
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  output_padding, self.groups, self.dilation)

    def _output_padding(self, input, output_size):
        """The output_padding that gives output_size (stride > 1 leaves it ambiguous)."""
        k = self._k
        size = tuple(output_size)[-k:]
        pads = []
        for i, (n, want) in enumerate(zip(input.shape[-k:], size)):
            least = ((n - 1) * self.stride[i] - 2 * self.padding[i]
                     + self.dilation[i] * (self.kernel_size[i] - 1) + 1)
            if not least <= want < least + self.stride[i]:
                raise ValueError(f"requested an output size of {list(size)}, but valid sizes "
                                 f"along dim {i} range from {least} to "
                                 f"{least + self.stride[i] - 1} (for an input of "
                                 f"{list(input.shape[-k:])})")
            pads.append(want - least)
        return tuple(pads)
