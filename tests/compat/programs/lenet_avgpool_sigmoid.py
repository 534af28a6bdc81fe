"""d2l's LeNet: Conv2d(1, 6, kernel_size=5, padding=2), Sigmoid, AvgPool2d(kernel_size=2, stride=2),
printing each layer's output shape with a loop over net, as the book does."""
import torch
from torch import nn

net = nn.Sequential(
    nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Conv2d(6, 16, kernel_size=5), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Flatten(),
    nn.Linear(16 * 5 * 5, 120), nn.Sigmoid(),
    nn.Linear(120, 84), nn.Sigmoid(),
    nn.Linear(84, 10))
X = torch.rand(size=(1, 1, 28, 28), dtype=torch.float32)
shapes = []
for layer in net:
    X = layer(X)
    print(layer.__class__.__name__, 'output shape: \t', X.shape)
    shapes.append(tuple(X.shape))
assert shapes[2] == (1, 6, 14, 14) and shapes[5] == (1, 16, 5, 5) and shapes[-1] == (1, 10)
pool = nn.AvgPool2d(2)
assert torch.equal(pool(torch.arange(16.).view(1, 1, 4, 4)),
                   torch.tensor([[[[2.5, 4.5], [10.5, 12.5]]]]))
