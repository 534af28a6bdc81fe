"""Gradient accumulation: loss / accumulation_steps, backward every micro-batch, optimizer.step()
and zero_grad() every k steps; equals one step on the full batch."""
import copy
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 12), nn.Tanh(), nn.Linear(12, 1))
twin = copy.deepcopy(model)
X = torch.randn(16, 6)
Y = torch.randn(16, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
accumulation_steps = 4
optimizer.zero_grad()
for i, (inputs, labels) in enumerate(zip(X.split(4), Y.split(4))):
    loss = criterion(model(inputs), labels) / accumulation_steps
    loss.backward()
    if (i + 1) % accumulation_steps == 0:
        optimizer.step()
        optimizer.zero_grad()

opt2 = torch.optim.SGD(twin.parameters(), lr=0.1)
opt2.zero_grad()
criterion(twin(X), Y).backward()
opt2.step()
for p, q in zip(model.parameters(), twin.parameters()):
    assert torch.allclose(p, q, atol=1e-6)
assert all(p.grad is None or p.grad.abs().sum() == 0 for p in model.parameters())
