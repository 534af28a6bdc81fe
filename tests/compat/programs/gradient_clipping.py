"""Gradient clipping (RNN and transformer training loops): nn.utils.clip_grad_norm_ returns the
total norm before clipping, which equals the norm computed by hand; clip_grad_value_ caps values."""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 10), nn.Tanh(), nn.Linear(10, 1))
x = torch.randn(16, 10) * 10
loss = (model(x) ** 2).mean() * 100
loss.backward()
by_hand = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters()))
total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
assert torch.allclose(total, by_hand, rtol=1e-5)
after = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters()))
assert total > 1 and abs(after.item() - 1.0) < 1e-4

nn.utils.clip_grad_value_(model.parameters(), clip_value=0.01)
assert max(p.grad.abs().max().item() for p in model.parameters()) <= 0.01
