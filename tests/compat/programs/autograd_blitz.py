"""The blitz's autograd section: Q = 3a^3 - b^2, Q.backward(gradient=external_grad), checked
against the hand-computed 9a^2 and -2b; requires_grad flags through an op; frozen parameters."""
import torch

a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)
Q = 3 * a ** 3 - b ** 2
external_grad = torch.tensor([1., 1.])
Q.backward(gradient=external_grad)
assert (9 * a ** 2 == a.grad).all() and (-2 * b == b.grad).all()
print(9 * a ** 2 == a.grad)

x = torch.rand(5, 5)
y = torch.rand(5, 5)
z = torch.rand((5, 5), requires_grad=True)
a = x + y
assert not a.requires_grad
b = x + z
assert b.requires_grad

model = torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
for param in model.parameters():
    param.requires_grad = False
model[2] = torch.nn.Linear(4, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
out = model(torch.randn(6, 8)).sum()
out.backward()
assert model[0].weight.grad is None and model[2].weight.grad.shape == (3, 4)

x = torch.ones(3, requires_grad=True)
y = x * 2
while y.data.norm() < 100:
    y = y * 2
v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)
assert torch.allclose(x.grad, v * (y / x).detach())
