"""ZeroRedundancyOptimizer (ZeRO stage 1): each rank keeps optimizer state for its shard only.

Plain data parallelism keeps a full copy of the optimizer state (Adam: two tensors per
parameter) on every rank. Here the parameters are dealt out to the ranks, largest first, each
to the rank holding the fewest elements so far (torch's greedy rule); each rank builds the
wrapped optimizer over its own shard, steps only that shard, then every parameter is
broadcast from the rank that owns it so all replicas agree again. The gradients must already
be averaged (wrap the model in DistributedDataParallel). State memory per rank: 1/world_size.
"""
from ...engine.grad_mode import no_grad
from ...optim.optimizer import Optimizer


def _dist():
    from ... import distributed as dist
    if not dist.is_initialized():
        raise RuntimeError("ZeroRedundancyOptimizer: no process group. Call "
                           "labkit.distributed.init_process_group() first.")
    return dist


class ZeroRedundancyOptimizer(Optimizer):
    """ZeroRedundancyOptimizer(model.parameters(), optimizer_class=labkit.optim.Adam, lr=...)"""

    def __init__(self, params, optimizer_class, process_group=None,
                 parameters_as_bucket_view=False, overlap_with_ddp=False, **defaults):
        if process_group is not None or parameters_as_bucket_view or overlap_with_ddp:
            raise NotImplementedError("ZeroRedundancyOptimizer: only the default process group, "
                                      "parameters_as_bucket_view=False and "
                                      "overlap_with_ddp=False are supported.")
        dist = _dist()
        super().__init__(params, defaults)
        self.optimizer_class = optimizer_class
        self.world_size, self.rank = dist.get_world_size(), dist.get_rank()
        self._partition = self._partition_parameters()
        self._owner = {id(p): r for r, groups in enumerate(self._partition)
                       for g in groups for p in g["params"]}
        self.optim = optimizer_class(self._partition[self.rank], **defaults)

    def _partition_parameters(self):
        """Per rank, a list of param groups (same hyperparameters, this rank's params)."""
        sizes = [0] * self.world_size
        per_rank = [[] for _ in range(self.world_size)]
        for group in self.param_groups:
            mine = [[] for _ in range(self.world_size)]
            for p in sorted(group["params"], key=lambda t: t.numel(), reverse=True):
                r = sizes.index(min(sizes))
                mine[r].append(p)
                sizes[r] += p.numel()
            for r in range(self.world_size):
                per_rank[r].append({**{k: v for k, v in group.items() if k != "params"},
                                    "params": mine[r]})
        return per_rank

    def step(self, closure=None):
        """Step this rank's shard, then broadcast every parameter from its owner."""
        for local, group in zip(self.optim.param_groups, self.param_groups):
            local.update({k: v for k, v in group.items() if k != "params"})  # lr schedulers
        loss = self.optim.step(closure)
        dist = _dist()
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    dist.broadcast(p.detach(), src=self._owner[id(p)])
        return loss

    def state_dict(self):
        raise NotImplementedError(
            "ZeroRedundancyOptimizer.state_dict: each rank holds only its own shard's state, so "
            "there is no whole state here to return (torch gathers it with "
            "consolidate_state_dict(), which labkit lacks). Save each rank's "
            "zero.optim.state_dict() to its own file, and load it back into zero.optim on the "
            "same rank with the same world size.")

    def load_state_dict(self, state_dict):
        self.state_dict()

    def shard_numel(self, rank=None):
        """Number of parameter elements whose optimizer state `rank` (default: this one) holds."""
        rank = self.rank if rank is None else rank
        return sum(p.numel() for g in self._partition[rank] for p in g["params"])
