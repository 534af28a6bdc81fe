"""A small all-convolutional classifier: Conv2d(padding=1, bias=False) + BatchNorm2d + ReLU blocks,
AdaptiveAvgPool2d((1, 1)), flatten, Linear; trained a few steps on synthetic images."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, kernel_size=3, padding=1, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class SmallCNN(nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.features = nn.Sequential(block(1, 8), nn.MaxPool2d(2), block(8, 16))
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        x = self.avgpool(self.features(x))
        x = torch.flatten(x, 1)
        return self.fc(x)


torch.manual_seed(0)
y = torch.randint(0, 3, (48,))
x = torch.randn(48, 1, 12, 12) * 0.3 + y.view(-1, 1, 1, 1).float()
model = SmallCNN()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
losses = []
for step in range(30):
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
assert losses[-1] < losses[0] / 2
model.eval()
assert model(x[:2]).shape == (2, 3)
assert model.features[0][1].running_mean.shape == (8,)
