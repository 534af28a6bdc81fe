"""Conv2d: a bank of small learned filters slid over an image."""

from ..engine.creation import empty
from ..engine.ops.fold import pair
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


class Conv2d(Module):
    """(N, in_channels, H, W) -> (N, out_channels, H', W'): each output channel is one kernel
    of shape (in_channels, kh, kw) applied at every position (stride apart, after zero padding).
    Initialised as PyTorch does (kaiming_uniform_ with a = sqrt(5))."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, device=None, dtype=None):
        super().__init__()
        if groups != 1:
            raise NotImplementedError("Conv2d: labkit supports groups=1 only.")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = pair(kernel_size, "Conv2d", "kernel_size")
        self.stride = pair(stride, "Conv2d", "stride")
        self.padding = pair(padding, "Conv2d", "padding")
        self.dilation = pair(dilation, "Conv2d", "dilation")
        self.weight = Parameter(empty(out_channels, in_channels, *self.kernel_size,
                                      device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.reset_affine_(self.weight, self.bias)

    def forward(self, input):
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation)

    def extra_repr(self):
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0, 0):
            s += f", padding={self.padding}"
        if self.dilation != (1, 1):
            s += f", dilation={self.dilation}"
        if self.bias is None:
            s += ", bias=False"
        return s
