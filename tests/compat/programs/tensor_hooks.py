"""Tensor hooks and retain_grad: inspect and rescale an intermediate gradient, as in hooks tutorials."""
import torch

torch.manual_seed(0)
x = torch.randn(4, 3, requires_grad=True)
w = torch.randn(3, 2, requires_grad=True)
h = x @ w
h.retain_grad()
seen = []
handle = h.register_hook(lambda grad: seen.append(grad.clone()))
out = torch.relu(h).sum()
out.backward()
assert len(seen) == 1 and torch.equal(seen[0], (h > 0).float())
assert torch.equal(h.grad, (h > 0).float())
handle.remove()

x.grad = None
h = x @ w
h.register_hook(lambda grad: grad * 2)
h.sum().backward()
assert torch.allclose(x.grad, 2 * w.sum(1).expand(4, 3))

y = torch.tensor([1.0, 2.0], requires_grad=True)
y.register_hook(lambda g: print("grad of y:", g))
(y * y).sum().backward()
assert y.grad.tolist() == [2.0, 4.0]
