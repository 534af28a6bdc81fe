"""LayerNorm, GroupNorm and InstanceNorm: normalise within each example (no batch statistics,
so they behave the same in training and evaluation and for any batch size, batch 1 included)."""
from ..engine.creation import empty
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


class LayerNorm(Module):
    """Normalise over the last dims (normalized_shape) of each example, then apply a learned
    elementwise scale (weight) and shift (bias): the normalisation of transformers."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else normalized_shape
        self.normalized_shape = tuple(shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        for name, wanted in (("weight", elementwise_affine), ("bias", elementwise_affine and bias)):
            self.register_parameter(name, Parameter(empty(self.normalized_shape, device=device,
                                                          dtype=dtype)) if wanted else None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """Normalise each example's channels in num_groups groups, then scale and shift each
    channel (learned): BatchNorm's alternative for small batches."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups, self.num_channels = num_groups, num_channels
        self.eps, self.affine = eps, affine
        for name, wanted in (("weight", affine), ("bias", affine and bias)):
            self.register_parameter(name, Parameter(empty(num_channels, device=device,
                                                          dtype=dtype)) if wanted else None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class _InstanceNorm(Module):
    """Normalise each channel of each example over its positions (style transfer, GANs)."""
    _k = 2
    _version = 2     # torch's (_NormBase's): the format version in state_dict's _metadata

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__()
        if track_running_stats:
            raise NotImplementedError(f"{type(self).__name__}(track_running_stats=True) is not "
                                      "supported by labkit; use the default False.")
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        for name, wanted in (("weight", affine), ("bias", affine and bias)):
            self.register_parameter(name, Parameter(empty(num_features, device=device,
                                                          dtype=dtype)) if wanted else None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input):
        k = self._k
        if input.ndim not in (k + 1, k + 2):
            raise ValueError(f"expected {k + 1}D or {k + 2}D input (got {input.ndim}D input)")
        single = input.ndim == k + 1
        x = input.unsqueeze(0) if single else input
        out = F.instance_norm(x, weight=self.weight, bias=self.bias, eps=self.eps)
        return out.squeeze(0) if single else out

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class InstanceNorm1d(_InstanceNorm):
    _k = 1


class InstanceNorm2d(_InstanceNorm):
    pass


class InstanceNorm3d(_InstanceNorm):
    _k = 3
