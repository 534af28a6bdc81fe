"""Class imbalance with WeightedRandomSampler: weights 1/class_count per sample, a seeded
generator, and batches that come out roughly balanced."""
import torch
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler

labels = torch.cat([torch.zeros(90, dtype=torch.long), torch.ones(10, dtype=torch.long)])
features = torch.randn(100, 4)
class_sample_count = torch.tensor([(labels == t).sum() for t in torch.unique(labels, sorted=True)])
weight = 1. / class_sample_count.float()
samples_weight = torch.tensor([weight[t] for t in labels])
sampler = WeightedRandomSampler(samples_weight, num_samples=len(samples_weight), replacement=True,
                                generator=torch.Generator().manual_seed(0))
loader = DataLoader(TensorDataset(features, labels), batch_size=20, sampler=sampler)
ones = 0
for xb, yb in loader:
    ones += yb.sum().item()
print("minority share", ones / 100)
assert 0.3 < ones / 100 < 0.7
