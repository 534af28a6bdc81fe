"""Watch gradients flow through a network with module hooks: full backward hooks log the norm
of each layer's output gradient, a backward pre-hook scales one, a forward pre-hook with
kwargs rewrites an argument, and a global forward hook counts module calls."""
import warnings

import torch
import torch.nn as nn

warnings.simplefilter("ignore", UserWarning)   # layer 0's hook fires from its output side

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 1))
norms = {}


def log_grad(name):
    def hook(module, grad_input, grad_output):
        norms[name] = grad_output[0].pow(2).sum().sqrt().item()
    return hook


for name, m in model.named_modules():
    if isinstance(m, nn.Linear):
        m.register_full_backward_hook(log_grad(name))
x = torch.randn(16, 4)
model(x).pow(2).mean().backward()
print({k: round(v, 4) for k, v in norms.items()})
assert set(norms) == {"0", "2", "4"}
grad_before = model[0].weight.grad.clone()

model.zero_grad()
handle = model[2].register_full_backward_pre_hook(lambda m, gout: (gout[0] * 0,))
model(x).pow(2).mean().backward()
assert model[0].weight.grad.abs().sum().item() == 0     # nothing flows below layer 2
handle.remove()

calls = []
counter = torch.nn.modules.module.register_module_forward_hook(
    lambda m, args, out: calls.append(type(m).__name__))


class Scaled(nn.Module):
    def forward(self, x, scale=1.0):
        return x * scale


scaled = Scaled()
scaled.register_forward_pre_hook(lambda m, args, kwargs: (args, {"scale": 2.0}),
                                 with_kwargs=True)
out = scaled(torch.ones(3))
counter.remove()
assert out.tolist() == [2.0, 2.0, 2.0] and calls == ["Scaled"]

model.zero_grad()
model(x).pow(2).mean().backward()
assert torch.allclose(model[0].weight.grad, grad_before)
