"""Containers: nn.ModuleList of layers built in a loop, nn.ModuleDict of heads chosen by name,
nn.ParameterList, nn.Sequential(OrderedDict(...)) with named access, children() and named_modules()."""
from collections import OrderedDict
import torch
import torch.nn as nn


class MultiHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(8, 8) for _ in range(3)])
        self.heads = nn.ModuleDict({'cls': nn.Linear(8, 4), 'reg': nn.Linear(8, 1)})
        self.scales = nn.ParameterList([nn.Parameter(torch.ones(8)) for _ in range(3)])

    def forward(self, x, task):
        for layer, scale in zip(self.layers, self.scales):
            x = torch.relu(layer(x)) * scale
        return self.heads[task](x)


m = MultiHead()
x = torch.randn(2, 8)
assert m(x, 'cls').shape == (2, 4) and m(x, 'reg').shape == (2, 1)
assert len(m.layers) == 3 and len(list(m.parameters())) == 3 * 2 + 4 + 3
names = [n for n, _ in m.named_parameters()]
assert 'heads.cls.weight' in names and 'scales.2' in names and 'layers.1.bias' in names
m.layers.append(nn.Linear(8, 8))
assert len(m.layers) == 4

model = nn.Sequential(OrderedDict([
    ('conv1', nn.Conv2d(1, 4, 3)),
    ('relu1', nn.ReLU()),
    ('flat', nn.Flatten()),
    ('fc', nn.Linear(4 * 4 * 4, 2)),
]))
assert model.conv1 is model[0] and len(model) == 4
assert [name for name, _ in model.named_children()] == ['conv1', 'relu1', 'flat', 'fc']
assert model(torch.randn(3, 1, 6, 6)).shape == (3, 2)
assert sum(1 for _ in model.modules()) == 5
assert [n for n, _ in model.named_modules()][:2] == ['', 'conv1']
assert isinstance(list(model.children())[-1], nn.Linear)
