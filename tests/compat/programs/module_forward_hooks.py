"""Module hooks as the hooks tutorials use them: register_forward_hook to collect activations by
name, register_forward_pre_hook, register_full_backward_hook, handle.remove()."""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 5))
activations = {}


def get_activation(name):
    def hook(model, input, output):
        activations[name] = output.detach()
    return hook


handles = [model[0].register_forward_hook(get_activation('fc1')),
           model[2].register_forward_hook(get_activation('fc2'))]
calls = []
handles.append(model[1].register_forward_pre_hook(lambda m, inp: calls.append(inp[0].shape)))
grads = {}
handles.append(model[2].register_full_backward_hook(
    lambda m, gin, gout: grads.__setitem__('fc2', gout[0].detach())))
x = torch.randn(3, 10)
out = model(x)
out.sum().backward()
assert activations['fc1'].shape == (3, 20) and torch.equal(activations['fc2'], out.detach())
assert calls == [torch.Size([3, 20])]
assert torch.equal(grads['fc2'], torch.ones(3, 5))
for h in handles:
    h.remove()
model(x)
assert len(calls) == 1
