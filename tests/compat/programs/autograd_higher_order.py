"""torch.autograd.grad with create_graph=True for a second derivative, a gradient penalty
(WGAN-GP style: grad_outputs=torch.ones_like, .norm(2, dim=1)), retain_graph for two backwards."""
import torch

x = torch.linspace(-2, 2, 9, requires_grad=True)
y = torch.sin(x) * x
dy, = torch.autograd.grad(y.sum(), x, create_graph=True)
d2y, = torch.autograd.grad(dy.sum(), x)
expected_d1 = torch.cos(x) * x + torch.sin(x)
expected_d2 = 2 * torch.cos(x) - x * torch.sin(x)
assert torch.allclose(dy, expected_d1, atol=1e-5)
assert torch.allclose(d2y, expected_d2.detach(), atol=1e-5)

torch.manual_seed(0)
D = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
real = torch.randn(5, 4)
fake = torch.randn(5, 4)
alpha = torch.rand(5, 1)
interpolates = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
d_interpolates = D(interpolates)
gradients = torch.autograd.grad(outputs=d_interpolates, inputs=interpolates,
                                grad_outputs=torch.ones_like(d_interpolates),
                                create_graph=True, retain_graph=True, only_inputs=True)[0]
gradient_penalty = ((gradients.norm(2, dim=1) - 1) ** 2).mean()
gradient_penalty.backward()
assert D[0].weight.grad is not None and D[2].weight.grad is not None

w = torch.tensor(3.0, requires_grad=True)
loss = w ** 2
loss.backward(retain_graph=True)
loss.backward()
assert w.grad.item() == 12.0
