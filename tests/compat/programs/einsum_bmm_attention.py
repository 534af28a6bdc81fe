"""Batched matrix products three ways: torch.bmm, the @ operator on 3-D tensors, and torch.einsum
('bij,bjk->bik', 'bhqd,bhkd->bhqk'); all agree, and gradients flow through einsum."""
import torch

torch.manual_seed(0)
a = torch.randn(3, 4, 5)
b = torch.randn(3, 5, 2)
c1 = torch.bmm(a, b)
c2 = a @ b
c3 = torch.einsum('bij,bjk->bik', a, b)
assert c1.shape == (3, 4, 2)
assert torch.allclose(c1, c2, atol=1e-6) and torch.allclose(c1, c3, atol=1e-5)

q = torch.randn(2, 2, 6, 4, requires_grad=True)
k = torch.randn(2, 2, 6, 4)
scores = torch.einsum('bhqd,bhkd->bhqk', q, k) / 4 ** 0.5
assert torch.allclose(scores, q @ k.transpose(-1, -2) / 2, atol=1e-5)
scores.sum().backward()
assert torch.allclose(q.grad, k.sum(2, keepdim=True).expand(2, 2, 6, 4) / 2, atol=1e-5)
assert torch.einsum('ii', torch.eye(3)).item() == 3.0
outer = torch.einsum('i,j->ij', torch.arange(3.), torch.arange(2.))
assert outer.tolist() == [[0, 0], [0, 1], [0, 2]]
