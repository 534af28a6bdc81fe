"""Reproducibility: torch.manual_seed makes randn/rand/randint/randperm repeat, a torch.Generator
with its own seed gives an independent stream, and DataLoader(shuffle=True, generator=g) repeats."""
import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(42)
a = torch.randn(3), torch.rand(2), torch.randint(0, 10, (4,)), torch.randperm(5)
torch.manual_seed(42)
b = torch.randn(3), torch.rand(2), torch.randint(0, 10, (4,)), torch.randperm(5)
assert all(torch.equal(x, y) for x, y in zip(a, b))
assert sorted(a[3].tolist()) == [0, 1, 2, 3, 4]

g1 = torch.Generator().manual_seed(0)
g2 = torch.Generator().manual_seed(0)
assert torch.equal(torch.randn(4, generator=g1), torch.randn(4, generator=g2))
assert torch.equal(torch.randperm(6, generator=g1), torch.randperm(6, generator=g2))

ds = TensorDataset(torch.arange(10))
order1 = [b[0].tolist() for b in DataLoader(ds, batch_size=5, shuffle=True,
                                            generator=torch.Generator().manual_seed(7))]
order2 = [b[0].tolist() for b in DataLoader(ds, batch_size=5, shuffle=True,
                                            generator=torch.Generator().manual_seed(7))]
assert order1 == order2 and sorted(order1[0] + order1[1]) == list(range(10))
