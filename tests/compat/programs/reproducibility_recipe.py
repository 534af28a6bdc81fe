"""PyTorch's "Reproducibility" note and the data-loading recipes: torch.manual_seed / random.seed /
np.random.seed, torch.use_deterministic_algorithms(True), torch.backends.cudnn flags, seed_worker
with torch.initial_seed() % 2**32 as worker_init_fn, DataLoader(generator=g) giving the same
shuffles for the same seed, torch.get_rng_state/set_rng_state to replay draws, torch.Generator
objects per consumer, and the samplers: SequentialSampler, RandomSampler(replacement=,
num_samples=, generator=), SubsetRandomSampler, WeightedRandomSampler, BatchSampler(drop_last=)."""
import random

import numpy as np
import torch
from torch.utils.data import (BatchSampler, DataLoader, RandomSampler, SequentialSampler,
                              SubsetRandomSampler, TensorDataset, WeightedRandomSampler)


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False


seed_everything(0)
torch.use_deterministic_algorithms(True)
assert torch.are_deterministic_algorithms_enabled()
assert torch.initial_seed() == 0


def seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)


dataset = TensorDataset(torch.arange(20.).view(10, 2), torch.arange(10))


def epoch_order(seed):
    g = torch.Generator()
    g.manual_seed(seed)
    loader = DataLoader(dataset, batch_size=3, shuffle=True, worker_init_fn=seed_worker,
                        generator=g)
    return [y.tolist() for _, y in loader]


first, again, other = epoch_order(0), epoch_order(0), epoch_order(1)
assert first == again and first != other
assert sorted(sum(first, [])) == list(range(10))
assert [len(b) for b in first] == [3, 3, 3, 1]

state = torch.get_rng_state()
a = torch.rand(3)
torch.set_rng_state(state)
b = torch.rand(3)
assert torch.equal(a, b)

g1 = torch.Generator().manual_seed(42)
g2 = torch.Generator().manual_seed(42)
assert torch.equal(torch.randn(4, generator=g1), torch.randn(4, generator=g2))
assert torch.equal(torch.randperm(6, generator=g1), torch.randperm(6, generator=g2))
assert g1.initial_seed() == 42
g_state = g1.get_state()
x1 = torch.randint(0, 100, (5,), generator=g1)
g1.set_state(g_state)
assert torch.equal(x1, torch.randint(0, 100, (5,), generator=g1))

assert list(SequentialSampler(range(4))) == [0, 1, 2, 3]
rs = RandomSampler(range(6), generator=torch.Generator().manual_seed(3))
order = list(rs)
assert sorted(order) == list(range(6)) and len(rs) == 6
with_repl = list(RandomSampler(range(3), replacement=True, num_samples=8,
                               generator=torch.Generator().manual_seed(3)))
assert len(with_repl) == 8 and set(with_repl) <= {0, 1, 2}
subset = list(SubsetRandomSampler([5, 7, 9], generator=torch.Generator().manual_seed(0)))
assert sorted(subset) == [5, 7, 9]
weights = torch.tensor([0.0, 0.0, 1.0, 0.0])
assert list(WeightedRandomSampler(weights, num_samples=5, replacement=True)) == [2] * 5
batches = list(BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=False))
assert batches == [[0, 1, 2], [3, 4, 5], [6]]
assert list(BatchSampler(range(7), batch_size=3, drop_last=True)) == [[0, 1, 2], [3, 4, 5]]
assert len(BatchSampler(range(7), batch_size=3, drop_last=False)) == 3

loader = DataLoader(dataset, batch_sampler=BatchSampler(SequentialSampler(dataset), 4, False))
assert [y.tolist() for _, y in loader] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
loader = DataLoader(dataset, sampler=SubsetRandomSampler(range(5)), batch_size=5)
(xb, yb), = list(loader)
assert sorted(yb.tolist()) == [0, 1, 2, 3, 4] and xb.dtype == torch.float32

seed_everything(123)
r1 = (random.random(), np.random.rand(), torch.rand(1).item())
seed_everything(123)
assert (random.random(), np.random.rand(), torch.rand(1).item()) == r1
torch.use_deterministic_algorithms(False)
