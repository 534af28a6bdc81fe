"""Lazy modules: layers that learn their input size from the first batch they see.

nn.LazyLinear(10) needs no in_features: its weight is an UninitializedParameter until the
first forward, which reads the size off the input, materializes the parameters, initialises
them as the ordinary layer would, and turns the module into that layer (LazyLinear becomes
Linear), exactly as torch does. Loading a state_dict into a lazy module materializes it from
the checkpoint's shapes instead. An optimizer may be built before the first forward: the
parameters stay the same objects when materialized (torch's rule; step skips them while they
have no grad)."""
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .conv import Conv1d, Conv2d, ConvTranspose2d
from .conv3d import Conv3d
from .conv_transpose1d import ConvTranspose1d
from .linear import Linear
from .uninitialized import UninitializedBuffer, UninitializedParameter, is_lazy


class LazyModuleMixin:
    """The protocol: a forward pre-hook calls initialize_parameters(*input) once, then the
    module becomes cls_to_become. Subclasses write initialize_parameters."""
    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(LazyModuleMixin._infer_parameters)

    def has_uninitialized_params(self):
        """True while a parameter or buffer of this module still waits for its shape."""
        return any(is_lazy(t) for t in (*self._parameters.values(), *self._buffers.values()))

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(f"initialize_parameters is not implemented for "
                                  f"{type(self).__name__}")

    @staticmethod
    def _infer_parameters(module, args):
        module.initialize_parameters(*args)
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        del module._initialize_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _materialize_from(self, state_dict, prefix):
        """load_state_dict's first step: take the checkpoint's shapes for lazy tensors."""
        for name, t in (*self._parameters.items(), *self._buffers.items()):
            key = prefix + name
            if is_lazy(t) and key in state_dict and not is_lazy(state_dict[key]):
                t.materialize(state_dict[key].shape)
        if not self.has_uninitialized_params():
            self._sizes_from_weight()   # torch leaves them 0 (its repr then says 0): we don't

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """Uninitialized tensors are saved as they are (they cannot be detached)."""
        super()._save_to_state_dict(destination, prefix, True)
        if not keep_vars:
            for name, t in (*self._parameters.items(), *self._buffers.items()):
                if t is not None and prefix + name in destination and not is_lazy(t):
                    destination[prefix + name] = t.detach()

    def _apply(self, fn):
        """to()/float()/cuda() change only the dtype and device of uninitialized tensors."""
        lazy = {}
        for kind in ("_parameters", "_buffers"):
            for name, t in getattr(self, kind).items():
                if is_lazy(t):
                    t._retarget(fn)
                    lazy[kind, name] = t
                    getattr(self, kind)[name] = None
        try:
            return super()._apply(fn)
        finally:
            for (kind, name), t in lazy.items():
                getattr(self, kind)[name] = t


def _materialize_affine(module, weight_shape, bias_shape):
    module.weight.materialize(weight_shape)
    if module.bias is not None:
        module.bias.materialize(bias_shape)
    module.reset_parameters()


class LazyLinear(LazyModuleMixin, Linear):
    """Linear whose in_features is the last dim of the first input."""
    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.in_features = input.shape[-1]
            _materialize_affine(self, (self.out_features, self.in_features), (self.out_features,))

    def _sizes_from_weight(self):
        self.in_features = self.weight.shape[1]


class _LazyConvMixin(LazyModuleMixin):
    """Conv layers whose in_channels is dim 1 of the first (batched) input, dim 0 unbatched."""

    def _lazy_init(self, out_channels, bias, device, dtype):
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args):
        if not self.has_uninitialized_params():
            return
        self.in_channels = input.shape[0 if input.ndim == self._k + 1 else 1]
        if self.in_channels % self.groups:
            raise ValueError("in_channels must be divisible by groups")
        per_group = ((self.in_channels, self.out_channels // self.groups) if self._transposed
                     else (self.out_channels, self.in_channels // self.groups))
        _materialize_affine(self, (*per_group, *self.kernel_size), (self.out_channels,))

    def _sizes_from_weight(self):
        w = self.weight.shape
        self.in_channels = w[0] if self._transposed else w[1] * self.groups


class LazyConv1d(_LazyConvMixin, Conv1d):
    cls_to_become = Conv1d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode)
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConv2d(_LazyConvMixin, Conv2d):
    cls_to_become = Conv2d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode)
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConvTranspose2d(_LazyConvMixin, ConvTranspose2d):
    cls_to_become = ConvTranspose2d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode)
        self._lazy_init(out_channels, bias, device, dtype)


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


class _LazyNormBase(LazyModuleMixin):
    """BatchNorm whose num_features is dim 1 of the first input."""

    def _lazy_init(self, device, dtype):
        if self.affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if not self.has_uninitialized_params():
            return
        self.num_features = input.shape[1]
        for t in (self.weight, self.bias, self.running_mean, self.running_var):
            if t is not None:
                t.materialize((self.num_features,))
        self.reset_parameters()

    def _sizes_from_weight(self):
        t = self.weight if self.weight is not None else self.running_mean
        if t is not None:
            self.num_features = t.shape[0]


class _LazyBatchNorm(_LazyNormBase):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        super().__init__(0, eps, momentum, affine, track_running_stats, device, dtype)
        self._lazy_init(device, dtype)


class LazyBatchNorm1d(_LazyBatchNorm, BatchNorm1d):
    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyBatchNorm, BatchNorm2d):
    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyBatchNorm, BatchNorm3d):
    cls_to_become = BatchNorm3d
