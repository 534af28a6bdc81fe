"""Train/validation splits: random_split with a seeded torch.Generator, Subset by index lists,
ConcatDataset; the splits are disjoint and reproducible."""
import torch
from torch.utils.data import ConcatDataset, DataLoader, Subset, TensorDataset, random_split

X = torch.arange(100, dtype=torch.float32).unsqueeze(1)
y = torch.arange(100) % 2
dataset = TensorDataset(X, y)
train_set, val_set = random_split(dataset, [80, 20], generator=torch.Generator().manual_seed(42))
again, _ = random_split(dataset, [80, 20], generator=torch.Generator().manual_seed(42))
assert len(train_set) == 80 and len(val_set) == 20
assert list(train_set.indices) == list(again.indices)
train_ids = {int(train_set[i][0].item()) for i in range(len(train_set))}
val_ids = {int(x.item()) for x, _ in val_set}
assert not train_ids & val_ids and len(train_ids | val_ids) == 100

a, b, c = random_split(dataset, [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(0))
assert (len(a), len(b), len(c)) == (50, 30, 20)

evens = Subset(dataset, list(range(0, 100, 2)))
assert len(evens) == 50 and evens[3][0].item() == 6.0
both = ConcatDataset([evens, val_set])
assert len(both) == 70
total = 0
for xb, yb in DataLoader(both, batch_size=16):
    total += xb.shape[0]
assert total == 70
