"""torch.autograd.functional: the Jacobian of a vector function and the Hessian of a scalar
one, checked against the formulas by hand; gradgradcheck on the second derivatives."""
import torch
from torch.autograd.functional import hessian, jacobian, jvp, vjp

x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)


def f(v):
    return torch.stack([v[0] * v[1], torch.sin(v[2]), v.pow(2).sum()])


J = jacobian(f, x)
J_hand = torch.tensor([[x[1], x[0], 0.0],
                       [0.0, 0.0, torch.cos(x[2])],
                       [2 * x[0], 2 * x[1], 2 * x[2]]], dtype=torch.float64)
assert torch.allclose(J, J_hand)


def energy(v):
    return (v ** 3).sum() + v[0] * v[2]


H = hessian(energy, x)
H_hand = torch.zeros(3, 3, dtype=torch.float64)
for i in range(3):
    H_hand[i, i] = 6 * x[i]
H_hand[0, 2] = H_hand[2, 0] = 1.0
assert torch.allclose(H, H_hand)
u = torch.tensor([1.0, 0.0, -1.0], dtype=torch.float64)
_, Ju = jvp(f, x, u)
_, uJ = vjp(f, x, u)
assert torch.allclose(Ju, J_hand @ u) and torch.allclose(uJ, u @ J_hand)
xs = x.clone().requires_grad_()
assert torch.autograd.gradgradcheck(lambda v: f(v), (xs,))
print(H)
