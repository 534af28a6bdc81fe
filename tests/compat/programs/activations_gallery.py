"""The activation functions a course plots side by side, each checked against its formula:
softplus, elu, silu, hardtanh, relu6, logsigmoid, mish, softmin, and the nn.Softmax/LogSoftmax,
nn.SiLU, nn.ELU, nn.Softplus modules."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.linspace(-4, 4, 33)
assert torch.allclose(F.softplus(x), torch.log1p(torch.exp(x)), atol=1e-6)
assert torch.allclose(F.elu(x, alpha=1.0), torch.where(x > 0, x, torch.exp(x) - 1))
assert torch.allclose(F.silu(x), x * torch.sigmoid(x))
assert torch.allclose(F.hardtanh(x), x.clamp(-1, 1))
assert torch.allclose(F.relu6(x * 2), (x * 2).clamp(0, 6))
assert torch.allclose(F.logsigmoid(x), torch.log(torch.sigmoid(x)), atol=1e-6)
assert torch.allclose(F.mish(x), x * torch.tanh(F.softplus(x)), atol=1e-6)
assert torch.allclose(F.softmin(x, dim=0), F.softmax(-x, dim=0))
logits = torch.randn(4, 3)
assert torch.allclose(nn.Softmax(dim=1)(logits).sum(1), torch.ones(4))
assert torch.allclose(nn.LogSoftmax(dim=1)(logits).exp(), nn.Softmax(dim=1)(logits))
for module, fn in [(nn.SiLU(), F.silu), (nn.ELU(), F.elu), (nn.Softplus(), F.softplus)]:
    assert torch.allclose(module(x), fn(x))
y = x.clone().requires_grad_(True)
F.silu(y).sum().backward()
s = torch.sigmoid(x)
assert torch.allclose(y.grad, s * (1 + x * (1 - s)), atol=1e-6)
assert math.isclose(F.softplus(torch.tensor(0.0)).item(), math.log(2), rel_tol=1e-6)
