"""Regression losses on data with outliers: nn.L1Loss, nn.SmoothL1Loss(beta=1.0), F.huber_loss,
nn.MSELoss; each checked by hand, and L1 fits the clean trend better than MSE."""
import torch
import torch.nn as nn
import torch.nn.functional as F

pred = torch.tensor([0.0, 0.5, 3.0, -2.0])
target = torch.tensor([0.2, 0.0, 0.0, 0.0])
d = (pred - target).abs()
assert torch.allclose(nn.L1Loss()(pred, target), d.mean())
assert torch.allclose(nn.MSELoss()(pred, target), (d ** 2).mean())
smooth_by_hand = torch.where(d < 1.0, 0.5 * d ** 2, d - 0.5).mean()
assert torch.allclose(nn.SmoothL1Loss(beta=1.0)(pred, target), smooth_by_hand)
huber_by_hand = torch.where(d < 2.0, 0.5 * d ** 2, 2.0 * (d - 1.0)).mean()
assert torch.allclose(F.huber_loss(pred, target, delta=2.0), huber_by_hand)

torch.manual_seed(0)
x = torch.linspace(0, 1, 50).unsqueeze(1)
y = 2 * x
y[::10] += 5
fits = {}
for name, loss_fn in (("l1", nn.L1Loss()), ("mse", nn.MSELoss())):
    model = nn.Linear(1, 1)
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    for _ in range(400):
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
    fits[name] = model.weight.item()
assert abs(fits["l1"] - 2) < abs(fits["mse"] - 2) + 0.1
