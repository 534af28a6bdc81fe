"""BatchNorm1d/2d/3d: normalise each channel over the batch (and positions), then scale and
shift (learned)."""
from ..engine.creation import empty, ones, tensor, zeros
from ..engine.dtype import int64
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


class _BatchNorm(Module):
    """Training normalises with the batch's mean and variance and keeps running averages of
    them (buffers, saved in the state_dict); eval uses those. momentum=None averages all
    batches seen equally."""
    _dims, _shape = (), ""
    _version = 2     # torch's: version 1 checkpoints predate num_batches_tracked

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """A checkpoint of format version 1 (or none, as torch writes it) has no
        num_batches_tracked: it loads with the module's own count, as in torch."""
        version = local_metadata.get("version", None)
        key = prefix + "num_batches_tracked"
        if (version is None or version < 2) and self.track_running_stats and \
                key not in state_dict:
            state_dict[key] = self.num_batches_tracked if \
                self.num_batches_tracked.device.type != "meta" else tensor(0, dtype=int64)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(empty(num_features, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        if affine and bias:
            self.bias = Parameter(empty(num_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=int64, device=device))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            init.zeros_(self.running_mean)
            init.ones_(self.running_var)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input):
        if input.ndim not in self._dims or input.shape[1] != self.num_features:
            error = ValueError if input.ndim not in self._dims else RuntimeError
            raise error(f"{type(self).__name__}({self.num_features}): expected "
                        f"{' or '.join(f'{d}D' for d in self._dims)} input of shape "
                        f"{self._shape.format(self.num_features)}, got {tuple(input.shape)} "
                        f"({input.ndim}D input).")
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / self.num_batches_tracked.item()
        use_running = not self.training and self.track_running_stats
        return self._normalize(input, not use_running, factor)

    def _normalize(self, input, batch_stats, factor):
        return F.batch_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                            batch_stats, factor, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """For (N, C) or (N, C, L) inputs: each of the C features over the batch (and L)."""
    _dims, _shape = (2, 3), "(N, {0}) or (N, {0}, L)"


class BatchNorm2d(_BatchNorm):
    """For (N, C, H, W) images: each channel over the batch and all positions."""
    _dims, _shape = (4,), "(N, {0}, H, W)"


class BatchNorm3d(_BatchNorm):
    _dims, _shape = (5,), "(N, {0}, D, H, W)"
