"""Atcold/NYU-DLSP20, 02-space_stretching.ipynb without the plots: 1,000 Gaussian points,
colours by ((X - x_min) / (x_max - x_min) * 511).short().numpy() and numpy's clip, random linear
maps Y = X @ W.t() with torch.svd(W) (U, S, V) and OI @ W, a bias-free nn.Linear whose weight is
set with .data.copy_(s * torch.eye(2)) before a Tanh squashing, and random Tanh/ReLU networks
applied under no_grad. The printed numbers stand in for the pictures."""
import torch
import torch.nn as nn
from numpy import clip

torch.manual_seed(0)
device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
n_points = 1_000
X = torch.randn(n_points, 2).to(device)
x_min = -1.5
x_max = +1.5
colors = (X - x_min) / (x_max - x_min)
colors = (colors * 511).short().numpy()
colors = clip(colors, 0, 511)
print(colors.dtype, colors.shape, colors[:3].tolist(), int(colors.min()), int(colors.max()))
OI = torch.cat((torch.zeros(2, 2), torch.eye(2))).to(device)
print(OI)
for i in range(4):
    W = torch.randn(2, 2).to(device)
    Y = X @ W.t()
    U, S, V = torch.svd(W)
    new_OI = OI @ W
    print(f"singular values: {S[0]:.3f} {S[1]:.3f}", torch.allclose(U @ torch.diag(S) @ V.t(), W,
                                                                     atol=1e-5),
          Y.shape, new_OI[2:].equal(W))
model = nn.Sequential(nn.Linear(2, 2, bias=False))
model.to(device)
with torch.no_grad():
    Y = model(X)
print(model, Y.requires_grad, Y.std(0))
z = torch.linspace(-10, 10, 101)
s = torch.tanh(z)
print(s[::25], z.numpy()[:3], s.numpy().dtype)
model = nn.Sequential(nn.Linear(2, 2, bias=False), nn.Tanh())
model.to(device)
for s in range(1, 6):
    W = s * torch.eye(2)
    model[0].weight.data.copy_(W)
    Y = model(X).data
    print(s, Y.abs().max().item() < 1, f"{Y.abs().mean():.4f}", Y.requires_grad)
n_hidden = 5
for NL in (nn.Tanh(), nn.ReLU()):
    models = list()
    for i in range(3):
        model = nn.Sequential(nn.Linear(2, n_hidden), NL, nn.Linear(n_hidden, n_hidden), NL,
                              nn.Linear(n_hidden, 2))
        model.to(device)
        models.append(model)
        with torch.no_grad():
            Y = model(X)
        print(type(NL).__name__, i, Y.shape, f"{Y.mean():.4f} {Y.std():.4f}")
print(models[-1])
assert len(models) == 3 and Y.shape == (n_points, 2)
