"""Numerically stable softmax the way textbooks derive it: x - x.max(dim, keepdim=True).values,
torch.logsumexp, F.log_softmax on large logits without overflow, and F.softmax(dim=-1) rows sum to 1."""
import torch
import torch.nn.functional as F

x = torch.tensor([[1000.0, 1001.0, 1002.0], [-5.0, 0.0, 5.0]])
naive = torch.exp(x) / torch.exp(x).sum(1, keepdim=True)
assert torch.isnan(naive[0]).any()
shifted = x - x.max(dim=1, keepdim=True).values
stable = torch.exp(shifted) / torch.exp(shifted).sum(dim=1, keepdim=True)
assert torch.allclose(stable, F.softmax(x, dim=-1))
lse = torch.logsumexp(x, dim=1, keepdim=True)
assert torch.allclose(x - lse, F.log_softmax(x, dim=1), atol=1e-3)
assert torch.isfinite(F.log_softmax(x, dim=1)).all()
assert torch.allclose(F.softmax(x, dim=-1).sum(-1), torch.ones(2))
m, i = x.max(dim=1)
assert i.tolist() == [2, 2] and m.tolist() == [1002.0, 5.0]
