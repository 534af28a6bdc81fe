"""Jacobians and Hessians as autograd tutorials compute them: row by row with
torch.autograd.grad(..., retain_graph=True), then with torch.autograd.functional.jacobian and
hessian; all agree with the derivatives worked out by hand."""
import torch


def f(x):
    return torch.stack([x[0] ** 2 * x[1], 5 * x[0] + torch.sin(x[1])])


x = torch.tensor([1.0, 2.0], requires_grad=True)
y = f(x)
rows = []
for i in range(y.shape[0]):
    grad_i, = torch.autograd.grad(y[i], x, retain_graph=True)
    rows.append(grad_i)
J_loop = torch.stack(rows)
J_hand = torch.tensor([[2 * 1.0 * 2.0, 1.0 ** 2],
                       [5.0, torch.cos(torch.tensor(2.0)).item()]])
assert torch.allclose(J_loop, J_hand)

J = torch.autograd.functional.jacobian(f, x.detach())
assert torch.allclose(J, J_hand)


def energy(v):
    return (v ** 3).sum() + v[0] * v[1]


H = torch.autograd.functional.hessian(energy, torch.tensor([1.0, -1.0]))
assert torch.allclose(H, torch.tensor([[6.0, 1.0], [1.0, -6.0]]))
