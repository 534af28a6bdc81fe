"""PyTorch recipe "Changing default device" (recipes_source/recipes/changing_default_device.py)
with the 'meta' device standing in for 'cuda' (it runs on any machine): torch.set_default_device
then nn.Linear(20, 30) and torch.randn created there, torch.get_default_device(), the
`with torch.device(...)` context manager that restores the previous default on exit, an explicit
device= still winning, and setting the default back to 'cpu'."""
import torch

assert torch.get_default_device() == torch.device('cpu')
torch.set_default_device('meta')
mod = torch.nn.Linear(20, 30)
print(mod.weight.device)
print(mod(torch.randn(128, 20)).device)
assert mod.weight.device == torch.device('meta')
assert mod(torch.randn(128, 20)).device.type == 'meta'
assert torch.get_default_device() == torch.device('meta')
assert torch.zeros(2, device='cpu').device.type == 'cpu'       # an explicit device wins
torch.set_default_device('cpu')

# It can also be used as a context manager
with torch.device('meta'):
    mod = torch.nn.Linear(20, 30)
    print(mod.weight.device)
    print(mod(torch.randn(128, 20)).device)
    assert torch.ones(3).device.type == 'meta'
    with torch.device('cpu'):
        assert torch.ones(3).device.type == 'cpu'               # nested: the inner one wins
    assert torch.ones(3).device.type == 'meta'
assert torch.ones(3).device.type == 'cpu'                       # restored on exit
assert mod.weight.device.type == 'meta' and mod.weight.shape == (30, 20)
