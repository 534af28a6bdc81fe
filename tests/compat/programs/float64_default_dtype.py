"""Double precision for a numerically delicate computation (physics notebooks):
torch.set_default_dtype(torch.float64), factory functions and nn layers follow it, a finite-
difference check agrees to 1e-8; the default is restored at the end."""
import torch
import torch.nn as nn

old = torch.get_default_dtype()
torch.set_default_dtype(torch.float64)
try:
    assert torch.ones(2).dtype == torch.float64 and torch.tensor([1.5]).dtype == torch.float64
    assert nn.Linear(3, 2).weight.dtype == torch.float64
    x = torch.linspace(0.1, 1.0, 10, requires_grad=True)

    def f(t):
        return (torch.sin(t) * torch.exp(-t) / (1 + t ** 2)).sum()

    f(x).backward()
    eps = 1e-6
    numeric = torch.stack([(f(x.detach() + eps * e) - f(x.detach() - eps * e)) / (2 * eps)
                           for e in torch.eye(10)])
    assert (x.grad - numeric).abs().max().item() < 1e-8
finally:
    torch.set_default_dtype(old)
assert torch.ones(1).dtype == torch.float32
