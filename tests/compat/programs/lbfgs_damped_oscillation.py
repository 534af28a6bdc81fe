"""Curve fitting with torch.optim.LBFGS and a closure (as in the style-transfer tutorial and
scientific notebooks): optimizer.step(closure) re-evaluates the loss; the fit recovers the
parameters of a damped oscillation."""
import torch

torch.manual_seed(0)
t = torch.linspace(0, 4, 200)
true = torch.tensor([1.5, 0.7, 3.0])
y = true[0] * torch.exp(-true[1] * t) * torch.cos(true[2] * t) + 0.01 * torch.randn(200)
params = torch.tensor([1.0, 0.5, 2.8], requires_grad=True)
optimizer = torch.optim.LBFGS([params], lr=1, max_iter=50, line_search_fn='strong_wolfe')


def closure():
    optimizer.zero_grad()
    a, k, w = params
    loss = ((a * torch.exp(-k * t) * torch.cos(w * t) - y) ** 2).mean()
    loss.backward()
    return loss


for _ in range(3):
    loss = optimizer.step(closure)
print(params.detach(), loss.item())
assert (params.detach() - true).abs().max() < 0.05 and loss.item() < 1e-3
