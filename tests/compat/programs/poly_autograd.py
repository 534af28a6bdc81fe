"""The same cubic fit with autograd: requires_grad, backward, updates under no_grad, grad = None."""
import math
import torch

x = torch.linspace(-math.pi, math.pi, 500)
y = torch.sin(x)
torch.manual_seed(1)
a = torch.randn((), requires_grad=True)
b = torch.randn((), requires_grad=True)
c = torch.randn((), requires_grad=True)
d = torch.randn((), requires_grad=True)

learning_rate = 1e-5
losses = []
for t in range(400):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    losses.append(loss.item())
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None

assert losses[-1] < losses[0] / 10
assert a.requires_grad and a.is_leaf and a.grad is None
print(f"loss {losses[0]:.1f} -> {losses[-1]:.1f}")
