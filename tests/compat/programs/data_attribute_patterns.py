"""The `.data` idioms of older tutorials: param.data.add_(-lr * grad), w.data.normal_(0, 0.01),
b.data.zero_(), .data.norm(), torch.max(out.data, 1), copying weights with p.data.copy_(q.data)."""
import torch
import torch.nn as nn

torch.manual_seed(0)
lin = nn.Linear(3, 2)
lin.weight.data.normal_(0, 0.01)
lin.bias.data.zero_()
assert lin.weight.data.norm().item() < 0.1 and lin.bias.abs().sum().item() == 0
assert not lin.weight.data.requires_grad and lin.weight.requires_grad

x = torch.randn(4, 3)
out = lin(x)
_, pred = torch.max(out.data, 1)
assert pred.shape == (4,) and pred.dtype == torch.int64
out.sum().backward()
before = lin.weight.data.clone()
for p in lin.parameters():
    p.data.add_(-0.5 * p.grad.data)
assert torch.allclose(lin.weight.data, before - 0.5 * lin.weight.grad)
assert lin.weight.grad_fn is None and lin.weight.is_leaf

target = nn.Linear(3, 2)
for p, q in zip(target.parameters(), lin.parameters()):
    p.data.copy_(q.data)
assert torch.equal(target(x), lin(x))
tau = 0.1
for p, q in zip(target.parameters(), lin.parameters()):
    p.data.mul_(1 - tau).add_(tau * q.data)
assert torch.allclose(target.weight, lin.weight)
