"""Turning autograd off: torch.no_grad() (as context and decorator), torch.inference_mode(),
torch.set_grad_enabled(False), .detach(), and requires_grad on the results."""
import torch

x = torch.randn(3, requires_grad=True)
with torch.no_grad():
    y = x * 2
assert not y.requires_grad and y.grad_fn is None


@torch.no_grad()
def predict(v):
    return v ** 2


assert not predict(x).requires_grad
with torch.inference_mode():
    z = x + 1
assert not z.requires_grad
torch.set_grad_enabled(False)
assert not (x * 3).requires_grad and not torch.is_grad_enabled()
torch.set_grad_enabled(True)
assert (x * 3).requires_grad
with torch.set_grad_enabled(False):
    assert not (x * 3).requires_grad
d = x.detach()
assert not d.requires_grad and d.data_ptr() == x.data_ptr()
with torch.no_grad():
    with torch.enable_grad():
        assert (x * 2).requires_grad
