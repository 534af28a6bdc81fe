"""nn.SyncBatchNorm: batch normalisation whose batch statistics span every process of a
distributed run. With DistributedDataParallel each rank sees only its slice of the batch; a
plain BatchNorm would normalise with that slice's mean and variance (noisy when each rank
holds a few images), SyncBatchNorm with the whole batch's, as one process would.

The mean and variance are sums all-reduced across ranks (labkit.distributed.nn.functional.
all_reduce, which autograd differentiates), so the gradient of each rank's input also flows
through the other ranks' outputs, as in torch's. Outside a distributed run (or with one rank,
or in eval) it is exactly BatchNorm. torch syncs on GPUs only; labkit's collectives run on MPI,
so the cpu syncs too."""
from ..engine.grad_mode import no_grad
from .batchnorm import _BatchNorm


class SyncBatchNorm(_BatchNorm):
    _dims, _shape = (2, 3, 4, 5), "(N, {0}, ...)"

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats,
                         device=device, dtype=dtype)
        self.process_group = process_group

    def _world_size(self):
        from .. import distributed as dist
        if not dist.is_initialized():
            return 1
        return dist.get_world_size(self.process_group)

    def _normalize(self, input, batch_stats, factor):
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        if not (batch_stats and self.training) or self._world_size() == 1:
            return super()._normalize(input, batch_stats, factor)
        return self._synced(input, factor)

    def _synced(self, input, factor):
        from ..distributed.nn.functional import all_reduce
        axes = (0,) + tuple(range(2, input.dim()))
        shape = (1, -1) + (1,) * (input.dim() - 2)
        count = all_reduce(input.new_tensor([input.numel() // input.shape[1]]),
                           group=self.process_group)
        total = count.item()
        if total <= 1:
            raise ValueError(f"SyncBatchNorm: expected more than 1 value per channel when "
                             f"training across all ranks, got {int(total)}.")
        mean = all_reduce(input.sum(axes), group=self.process_group) / total
        centred = input - mean.reshape(shape)
        var = all_reduce((centred * centred).sum(axes), group=self.process_group) / total
        out = centred * (var.reshape(shape) + self.eps).rsqrt()
        if self.weight is not None:
            out = out * self.weight.reshape(shape)
        if self.bias is not None:
            out = out + self.bias.reshape(shape)
        if self.running_mean is not None:
            with no_grad():
                self.running_mean.mul_(1 - factor).add_(mean.detach() * factor)
                self.running_var.mul_(1 - factor).add_(var.detach() * (total / (total - 1))
                                                       * factor)
        return out

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """The model with every BatchNorm*d replaced by a SyncBatchNorm holding the same
        parameters and running statistics (the same objects: an optimizer built before still
        updates them); a BatchNorm given alone comes back as a new SyncBatchNorm."""
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            out = cls(module.num_features, module.eps, module.momentum, module.affine,
                      module.track_running_stats, process_group)
            if module.affine:
                out.weight, out.bias = module.weight, module.bias
            out.running_mean, out.running_var = module.running_mean, module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out
