"""Inspecting a model as notebooks do: print(model), counting trainable parameters, per-layer
shapes from named_parameters(), and a forward pass on a dummy batch."""
import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, in_dim=784, hidden=(128, 64), out_dim=10):
        super().__init__()
        dims = (in_dim,) + hidden
        layers = []
        for a, b in zip(dims[:-1], dims[1:]):
            layers += [nn.Linear(a, b), nn.ReLU()]
        self.body = nn.Sequential(*layers)
        self.out = nn.Linear(dims[-1], out_dim)

    def forward(self, x):
        return self.out(self.body(x.view(x.size(0), -1)))


model = MLP()
print(model)
assert 'Linear(in_features=784, out_features=128, bias=True)' in str(model)
total = sum(p.numel() for p in model.parameters())
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
assert total == trainable == 784 * 128 + 128 + 128 * 64 + 64 + 64 * 10 + 10
shapes = {name: tuple(p.shape) for name, p in model.named_parameters()}
assert shapes['body.0.weight'] == (128, 784) and shapes['out.bias'] == (10,)
dummy = torch.zeros(2, 1, 28, 28)
assert model(dummy).shape == (2, 10)
assert next(model.parameters()).dtype == torch.float32
model.double()
assert model(dummy.double()).dtype == torch.float64
