"""micrograd's sanity check written in torch: a small expression with relu, its gradient compared
with a central difference computed in plain Python floats."""
import torch


def expr(x):
    z = 2 * x + 2 + x
    q = z.relu() + z * x if hasattr(z, "relu") else max(z, 0) + z * x
    h = (z * z).relu() if hasattr(z, "relu") else max(z * z, 0)
    return h + q + q * x


x = torch.Tensor([-4.0]).double()
x.requires_grad = True
y = expr(x)
y.backward()
xmg, ymg = x, y
assert ymg.data.item() == expr(-4.0)
eps = 1e-6
numeric = (expr(-4.0 + eps) - expr(-4.0 - eps)) / (2 * eps)
assert abs(xmg.grad.item() - numeric) < 1e-4, (xmg.grad.item(), numeric)
assert x.grad.dtype == torch.float64
