"""A ResNet BasicBlock with a projection shortcut (Conv2d 1x1 stride 2 + BatchNorm2d), out += identity,
stacked into a tiny ResNet; counts parameters with sum(p.numel() for p in model.parameters())."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != planes:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_planes, planes, kernel_size=1, stride=stride, bias=False),
                nn.BatchNorm2d(planes))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.shortcut(x)
        return F.relu(out)


class TinyResNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.layer1 = BasicBlock(8, 8)
        self.layer2 = BasicBlock(8, 16, stride=2)
        self.linear = nn.Linear(16, num_classes)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.layer2(self.layer1(out))
        out = F.avg_pool2d(out, out.size(3))
        out = out.view(out.size(0), -1)
        return self.linear(out)


torch.manual_seed(0)
net = TinyResNet()
x = torch.randn(4, 3, 16, 16)
y = torch.tensor([1, 2, 3, 4])
out = net(x)
assert out.shape == (4, 10)
n_params = sum(p.numel() for p in net.parameters() if p.requires_grad)
stem, block1 = 8 * 27 + 16, 2 * (8 * 72 + 16)
block2 = 16 * 72 + 32 + 16 * 144 + 32 + 8 * 16 + 32
assert n_params == stem + block1 + block2 + 16 * 10 + 10
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
first = F.cross_entropy(out, y).item()
for _ in range(10):
    loss = F.cross_entropy(net(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
assert loss.item() < first
