"""Broadcasting and in-place updates as students write them: column/row vectors, unsqueeze, add_ and
mul_, boolean-mask assignment x[x < 0] = 0, x[:, 0] += 1, expand, and a view sharing memory."""
import torch

a = torch.arange(3.).view(3, 1)
b = torch.arange(4.).view(1, 4)
c = a + b
assert c.shape == (3, 4) and c[2, 3].item() == 5.0
x = torch.tensor([[-1.0, 2.0], [3.0, -4.0]])
x[x < 0] = 0
assert x.tolist() == [[0, 2], [3, 0]]
x[:, 0] += 1
assert x[:, 0].tolist() == [1, 4]
x.add_(1).mul_(2)
assert x.tolist() == [[4, 6], [10, 2]]
v = x.view(4)
v[0] = 100
assert x[0, 0].item() == 100
m = torch.ones(2, 3)
m -= m.mean(dim=1, keepdim=True)
assert m.abs().sum().item() == 0
images = torch.rand(8, 3, 4, 4)
mean = images.mean(dim=(0, 2, 3))
std = images.std(dim=(0, 2, 3))
normed = (images - mean[None, :, None, None]) / std[None, :, None, None]
assert torch.allclose(normed.mean(dim=(0, 2, 3)), torch.zeros(3), atol=1e-5)
w = torch.zeros(3, requires_grad=True)
try:
    w.add_(1)
    raise SystemExit("in-place on a leaf that requires grad must raise")
except RuntimeError:
    pass
with torch.no_grad():
    w.add_(1)
assert w.tolist() == [1, 1, 1]
