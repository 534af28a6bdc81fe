"""DistributedSampler: each of num_replicas processes reads its own slice of the dataset.

torch's rule, index for index: one permutation seeded with seed + epoch (the same on every
rank, so the slices never overlap), padded by repeating its head until it divides evenly
(or cut with drop_last), then rank r takes positions r, r + num_replicas, ... Forget
set_epoch(epoch) and every epoch repeats the first one's order.
"""
import math

import numpy as np

from ...engine.creation import Generator, randperm
from .sampler import _EpochSampler


def _from_process_group(what):
    from ... import distributed as dist   # only now: labkit.distributed loads MPI lazily
    if not dist.is_initialized():
        raise RuntimeError(f"DistributedSampler: {what} was not given and no process group is "
                           "initialized. Call labkit.distributed.init_process_group() first, "
                           f"or pass {what}= explicitly.")
    return dist.get_world_size() if what == "num_replicas" else dist.get_rank()


class DistributedSampler(_EpochSampler):
    """Restricts loading to this rank's share: len(dataset) / num_replicas indices per epoch
    (rounded up by padding, or down with drop_last)."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None:
            num_replicas = _from_process_group("num_replicas")
        if rank is None:
            rank = _from_process_group("rank")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}] (DistributedSampler: num_replicas="
                             f"{num_replicas}; pass the process's rank, "
                             "labkit.distributed.get_rank()).")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.epoch, self.drop_last, self.shuffle, self.seed = 0, drop_last, shuffle, seed
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def _indices(self):
        n = len(self.dataset)
        if self.shuffle:
            g = Generator().manual_seed(self.seed + self.epoch)
            order = randperm(n, generator=g)._data
        else:
            order = np.arange(n, dtype=np.int64)
        if self.drop_last:
            order = order[:self.total_size]
        elif self.total_size > n:   # pad by repeating the order from its start
            order = np.resize(order, self.total_size)
        return order[self.rank:self.total_size:self.num_replicas]

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Call at the start of every epoch (before iterating): the shuffle is seeded with
        seed + epoch, identically on every rank."""
        self.epoch = epoch
