"""nn.MaxUnpool1d/2d/3d: modules around F.max_unpool*d (forward(input, indices,
output_size=None))."""
from . import functional_unpool as F
from .module import Module


class _MaxUnpoolNd(Module):
    _n = 2

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = F._tuple(kernel_size, self._n)
        self.stride = self.kernel_size if stride is None else F._tuple(stride, self._n)
        self.padding = F._tuple(padding, self._n)

    def forward(self, input, indices, output_size=None):
        return F._max_unpool(input, indices, self.kernel_size, self.stride, self.padding,
                             output_size, self._n)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    _n = 1


class MaxUnpool2d(_MaxUnpoolNd):
    _n = 2


class MaxUnpool3d(_MaxUnpoolNd):
    _n = 3
