"""PyTorch recipe "Tips for Loading an nn.Module from a Checkpoint" (recipes_source/recipes/
module_load_state_dict_tips.py): SomeModule with nn.Sequential(*[nn.Linear(size, size) ...]),
torch.save(m.state_dict(), 'checkpoint.pth'), torch.load(..., mmap=True, weights_only=True),
building the model under `with torch.device('meta'):` (parameters without data, printed as
tensor(..., device='meta', size=...)), load_state_dict(state_dict, assign=True) so the loaded
tensors become the parameters, and the same model loaded the old way giving equal outputs."""
import os
import tempfile

import torch
from torch import nn


class SomeModule(torch.nn.Module):
    def __init__(self, size):
        super().__init__()
        self.linears = nn.Sequential(*[nn.Linear(size, size) for i in range(10)])

    def forward(self, x):
        return self.linears(x)


torch.manual_seed(0)
m = SomeModule(100)
folder = tempfile.mkdtemp()
path = os.path.join(folder, 'checkpoint.pth')
torch.save(m.state_dict(), path)

# the usual way
state_dict = torch.load(path, weights_only=True)
m1 = SomeModule(100)
m1.load_state_dict(state_dict)

# mmap: the tensors are mapped from the file, not read
state_dict = torch.load(path, mmap=True, weights_only=True)
assert torch.equal(state_dict['linears.0.weight'], m.linears[0].weight.detach())

# the meta device: a skeleton without data
with torch.device('meta'):
    meta_m = SomeModule(100)
print(meta_m.linears[0].weight)
assert meta_m.linears[0].weight.device == torch.device('meta')
assert meta_m.linears[0].weight.shape == (100, 100)
assert "device='meta'" in repr(meta_m.linears[0].weight)
out = meta_m(torch.randn(3, 100, device='meta'))
assert out.shape == (3, 100) and out.device.type == 'meta'

meta_m.load_state_dict(state_dict, assign=True)
assert meta_m.linears[0].weight.device.type == 'cpu'
assert isinstance(meta_m.linears[0].weight, nn.Parameter)
assert meta_m.linears[0].weight.requires_grad
x = torch.randn(4, 100)
assert torch.allclose(meta_m(x), m(x))
assert torch.allclose(m1(x), m(x))

# the loaded parameters train (copy-on-write: the file is never changed)
opt = torch.optim.SGD(meta_m.parameters(), lr=0.1)
meta_m(x).pow(2).mean().backward()
opt.step()
again = torch.load(path, weights_only=True)
assert torch.equal(again['linears.0.weight'], m.linears[0].weight.detach())
assert not torch.equal(meta_m.linears[0].weight.detach(), m.linears[0].weight.detach())
