"""Custom initialisation with model.apply(init_weights): isinstance(m, nn.Linear/nn.Conv2d),
nn.init.xavier_uniform_, kaiming_normal_, zeros_, constant_, normal_, under torch.no_grad."""
import math
import torch
import torch.nn as nn


def init_weights(m):
    if isinstance(m, nn.Linear):
        torch.nn.init.xavier_uniform_(m.weight)
        m.bias.data.fill_(0.01)
    elif isinstance(m, nn.Conv2d):
        nn.init.kaiming_normal_(m.weight, mode='fan_out', nonlinearity='relu')
        nn.init.zeros_(m.bias)


torch.manual_seed(0)
net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 6 * 6, 100),
                    nn.ReLU(), nn.Linear(100, 10))
net.apply(init_weights)
bound = math.sqrt(6 / (288 + 100))
assert net[3].weight.abs().max() <= bound and torch.all(net[3].bias == 0.01)
assert torch.all(net[0].bias == 0)
std = net[0].weight.std().item()
assert 0.5 * math.sqrt(2 / (8 * 9)) < std < 1.5 * math.sqrt(2 / (8 * 9))

layer = nn.Linear(50, 40)
with torch.no_grad():
    nn.init.normal_(layer.weight, mean=0.0, std=0.02)
    nn.init.constant_(layer.bias, 0.1)
assert abs(layer.weight.std().item() - 0.02) < 0.005 and abs(layer.bias.mean().item() - 0.1) < 1e-6
out = net(torch.randn(2, 3, 8, 8))
assert out.shape == (2, 10)
