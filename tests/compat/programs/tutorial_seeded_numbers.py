"""The numbers a tutorial prints: after torch.manual_seed(s), randn, rand, randint, randperm,
a Linear layer's initial weights, a dropout mask, a shuffled DataLoader and multinomial give
the values the PyTorch docs and tutorials show (printed to 4 decimals, as they print them)."""
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def shows(t, printed):
    assert torch.allclose(t, torch.tensor(printed), atol=5e-5), (t, printed)


torch.manual_seed(0)
shows(torch.randn(2, 3), [[1.5410, -0.2934, -2.1788], [0.5684, -1.0845, -1.3986]])

torch.manual_seed(0)
shows(torch.rand(3), [0.4963, 0.7682, 0.0885])
assert torch.randint(0, 10, (5,)).tolist() == [0, 3, 9, 7, 3]
assert torch.randperm(6).tolist() == [1, 4, 3, 5, 0, 2]

torch.manual_seed(0)
layer = nn.Linear(3, 2)
shows(layer.weight.detach(), [[-0.0043, 0.3097, -0.4752], [-0.4249, -0.2224, 0.1548]])
shows(layer.bias.detach(), [-0.0114, 0.4578])

torch.manual_seed(0)
shows(nn.Dropout(0.5)(torch.ones(8)), [0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 2.0, 2.0])

torch.manual_seed(0)
loader = DataLoader(TensorDataset(torch.arange(10)), batch_size=5, shuffle=True)
assert [b[0].tolist() for b in loader] == [[6, 7, 1, 4, 2], [0, 9, 8, 3, 5]]

torch.manual_seed(42)
assert torch.multinomial(torch.tensor([0.1, 0.2, 0.7]), 6, replacement=True).tolist() == \
    [0, 0, 1, 0, 2, 2]

torch.manual_seed(1)          # 20 normals: torch's vectorised path (16 or more at once)
shows(torch.randn(20)[-4:], [-0.7984, 0.3357, 0.2753, 1.7163])
