"""k-fold cross-validation by hand: torch.randperm(n, generator=g) split with torch.chunk,
Subset + DataLoader per fold, a fresh model per fold, mean and std of the fold accuracies."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Subset, TensorDataset

g = torch.Generator().manual_seed(0)
X = torch.randn(120, 4, generator=g)
y = (X[:, 0] - X[:, 2] > 0).long()
dataset = TensorDataset(X, y)
folds = torch.chunk(torch.randperm(len(dataset), generator=g), 5)
assert sum(len(f) for f in folds) == 120
accs = []
for k, val_idx in enumerate(folds):
    train_idx = torch.cat([f for i, f in enumerate(folds) if i != k])
    train_loader = DataLoader(Subset(dataset, train_idx.tolist()), batch_size=16, shuffle=True)
    val_loader = DataLoader(Subset(dataset, val_idx.tolist()), batch_size=64)
    torch.manual_seed(k)
    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    for epoch in range(10):
        for xb, yb in train_loader:
            opt.zero_grad()
            nn.functional.cross_entropy(model(xb), yb).backward()
            opt.step()
    correct = 0
    with torch.no_grad():
        for xb, yb in val_loader:
            correct += (model(xb).argmax(1) == yb).sum().item()
    accs.append(correct / len(val_idx))
accs = torch.tensor(accs)
print(f"accuracy {accs.mean():.3f} +- {accs.std():.3f}")
assert accs.mean() > 0.85 and accs.shape == (5,)
