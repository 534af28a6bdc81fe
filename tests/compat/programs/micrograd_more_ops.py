"""micrograd's second test: +, *, **, /, relu, negation and reuse of a node; gradients of a and b
checked against central differences in plain Python."""
import torch


def relu(v):
    return v.relu() if isinstance(v, torch.Tensor) else max(v, 0.0)


def f(a, b):
    c = a + b
    d = a * b + b ** 3
    c = c + c + 1
    c = c + 1 + c + (-a)
    d = d + d * 2 + relu(b + a)
    d = d + 3 * d + relu(b - a)
    e = c - d
    f = e ** 2
    g = f / 2.0
    g = g + 10.0 / f
    return g


a = torch.Tensor([-4.0]).double()
b = torch.Tensor([2.0]).double()
a.requires_grad = True
b.requires_grad = True
g = f(a, b)
g.backward()
tol = 1e-6
assert abs(g.data.item() - f(-4.0, 2.0)) < tol
eps = 1e-6
da = (f(-4.0 + eps, 2.0) - f(-4.0 - eps, 2.0)) / (2 * eps)
db = (f(-4.0, 2.0 + eps) - f(-4.0, 2.0 - eps)) / (2 * eps)
assert abs(a.grad.item() - da) < 1e-3 * abs(da), (a.grad.item(), da)
assert abs(b.grad.item() - db) < 1e-3 * abs(db), (b.grad.item(), db)
