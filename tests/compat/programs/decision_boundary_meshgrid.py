"""Plotting a classifier's decision regions (as course notebooks do, minus the plot):
torch.meshgrid(xs, ys, indexing='ij'), stacking the grid into points, predicting under no_grad."""
import torch
import torch.nn as nn

torch.manual_seed(0)
X = torch.randn(200, 2)
y = ((X[:, 0] ** 2 + X[:, 1] ** 2) < 1).long()
model = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 2))
opt = torch.optim.Adam(model.parameters(), lr=0.03)
for _ in range(300):
    opt.zero_grad()
    nn.functional.cross_entropy(model(X), y).backward()
    opt.step()

xs = torch.linspace(-2, 2, steps=41)
ys = torch.linspace(-2, 2, steps=41)
xx, yy = torch.meshgrid(xs, ys, indexing='ij')
assert xx.shape == yy.shape == (41, 41) and xx[3, 0] == xs[3] and yy[0, 3] == ys[3]
grid = torch.stack([xx.flatten(), yy.flatten()], dim=1)
with torch.no_grad():
    zz = model(grid).argmax(dim=1).reshape(xx.shape)
inside = (xx ** 2 + yy ** 2) < 1
agreement = (zz.bool() == inside).float().mean().item()
print("grid agreement", agreement)
assert agreement > 0.85
