"""Padding layers: F.pad as a module (ZeroPad2d, ConstantPad2d, ReflectionPad2d, ...)."""
from . import functional as F
from .module import Module


class _Pad(Module):
    _mode, _k = "constant", 2

    def __init__(self, padding, value=0.0):
        super().__init__()
        self.padding = (padding,) * (2 * self._k) if isinstance(padding, int) else tuple(padding)
        self.value = value

    def forward(self, input):
        if self._mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return (f"padding={self.padding}, value={self.value}" if self._mode == "constant"
                else f"{self.padding}")


class ConstantPad1d(_Pad):
    _k = 1


class ConstantPad2d(_Pad):
    pass


class ZeroPad1d(_Pad):
    _k = 1

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ZeroPad1d):
    _k = 2


class ReflectionPad1d(_Pad):
    _mode, _k = "reflect", 1


class ReflectionPad2d(_Pad):
    _mode = "reflect"


class ReplicationPad1d(_Pad):
    _mode, _k = "replicate", 1


class ReplicationPad2d(_Pad):
    _mode = "replicate"


class CircularPad2d(_Pad):
    _mode = "circular"


class CircularPad1d(_Pad):
    _mode, _k = "circular", 1


class ConstantPad3d(_Pad):
    _k = 3


class ZeroPad3d(ZeroPad1d):
    _k = 3


class ReflectionPad3d(_Pad):
    _mode, _k = "reflect", 3


class ReplicationPad3d(_Pad):
    _mode, _k = "replicate", 3


class CircularPad3d(_Pad):
    _mode, _k = "circular", 3
