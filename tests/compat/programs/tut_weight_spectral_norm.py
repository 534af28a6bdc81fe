"""Weight normalisation and spectral normalisation as the docs and GAN code use them:
torch.nn.utils.parametrizations.weight_norm (original0 = g, original1 = v; dim=0 per output row,
dim=None for the whole tensor), the older torch.nn.utils.weight_norm with weight_g / weight_v and
remove_weight_norm, and torch.nn.utils.parametrizations.spectral_norm on a discriminator's Linear
and Conv2d layers: after training steps in train() mode the largest singular value of the
weight stays about 1 (checked with torch.linalg.matrix_norm(ord=2)... by power iteration here)."""
import warnings

import torch
import torch.nn as nn
from torch.nn.utils.parametrizations import spectral_norm, weight_norm

torch.manual_seed(0)

# new-style weight norm
m = weight_norm(nn.Linear(20, 40), name='weight')
print(m)
g = m.parametrizations.weight.original0
v = m.parametrizations.weight.original1
assert g.size() == torch.Size([40, 1]) and v.size() == torch.Size([40, 20])
assert torch.allclose(m.weight, g * v / v.norm(dim=1, keepdim=True), atol=1e-6)
assert sorted(n for n, _ in m.named_parameters()) == [
    "bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
opt = torch.optim.SGD(m.parameters(), lr=0.1)
x = torch.randn(8, 20)
loss = m(x).pow(2).mean()
loss.backward()
assert g.grad.shape == g.shape and v.grad.shape == v.shape
opt.step()
row_norms = (m.weight / m.parametrizations.weight.original0).norm(dim=1)
assert torch.allclose(row_norms, torch.ones(40), atol=1e-5)

whole = weight_norm(nn.Linear(3, 2), dim=None)
assert whole.parametrizations.weight.original0.dim() == 0
assert torch.allclose(whole.parametrizations.weight.original0, whole.weight.norm())

# old-style weight norm (deprecated, still common)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    conv = nn.utils.weight_norm(nn.Conv2d(3, 8, 3), name="weight")
print([n for n, _ in conv.named_parameters()])
assert [n for n, _ in conv.named_parameters()] == ["bias", "weight_g", "weight_v"]
assert conv.weight_g.shape == (8, 1, 1, 1)
y = conv(torch.randn(2, 3, 6, 6))
y.mean().backward()
assert conv.weight_g.grad is not None and conv.weight_v.grad is not None
with torch.no_grad():
    conv.weight_g.mul_(2)
before = conv.weight.clone()
conv(torch.randn(1, 3, 6, 6))               # the pre-hook recomputes weight
assert torch.allclose(conv.weight, 2 * before, atol=1e-6)
nn.utils.remove_weight_norm(conv)
assert isinstance(conv.weight, nn.Parameter)
assert [n for n, _ in conv.named_parameters()] == ["bias", "weight"]


# spectral norm in a small discriminator
def top_singular_value(w, iters=200):
    w = w.detach().flatten(1)
    u = torch.ones(w.shape[0])
    for _ in range(iters):
        v = torch.nn.functional.normalize(w.t() @ u, dim=0)
        u = torch.nn.functional.normalize(w @ v, dim=0)
    return float(u @ w @ v)


D = nn.Sequential(
    spectral_norm(nn.Conv2d(1, 4, 3, stride=2, padding=1)), nn.LeakyReLU(0.2),
    nn.Flatten(),
    spectral_norm(nn.Linear(4 * 4 * 4, 1)),
)
print(D)
opt = torch.optim.Adam(D.parameters(), lr=1e-2, betas=(0.5, 0.999))
real = torch.randn(16, 1, 8, 8) + 1
for step in range(20):
    opt.zero_grad()
    loss = torch.nn.functional.softplus(-D(real)).mean()
    loss.backward()
    opt.step()
D.eval()
with torch.no_grad():
    s_lin = top_singular_value(D[3].weight)
    s_conv = top_singular_value(D[0].weight)
print(s_lin, s_conv)
assert abs(s_lin - 1) < 0.05 and abs(s_conv - 1) < 0.1, (s_lin, s_conv)
keys = sorted(D.state_dict())
print(keys)
assert "3.parametrizations.weight.0._u" in keys and "3.parametrizations.weight.original" in keys
