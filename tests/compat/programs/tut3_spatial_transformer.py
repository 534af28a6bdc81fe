"""PyTorch tutorial "Spatial Transformer Networks" (intermediate_source/
spatial_transformer_tutorial.py) on synthetic 28x28 'digits' instead of MNIST: the Net with a
localization nn.Sequential (Conv2d, MaxPool2d(2, stride=2), nn.ReLU(True)), the fc_loc regressor
initialised to the identity (weight.data.zero_(), bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0]))),
stn() with F.affine_grid(theta, x.size()) and F.grid_sample(x, grid), nn.Dropout2d / F.dropout,
the train() loop with F.nll_loss and the test() loop with reduction='sum' and
output.max(1, keepdim=True)[1]."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.conv2_drop = nn.Dropout2d()
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)

        # Spatial transformer localization-network
        self.localization = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=7),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True),
            nn.Conv2d(8, 10, kernel_size=5),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True)
        )

        # Regressor for the 3 * 2 affine matrix
        self.fc_loc = nn.Sequential(
            nn.Linear(10 * 3 * 3, 32),
            nn.ReLU(True),
            nn.Linear(32, 3 * 2)
        )

        # Initialize the weights/bias with identity transformation
        self.fc_loc[2].weight.data.zero_()
        self.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))

    # Spatial transformer network forward function
    def stn(self, x):
        xs = self.localization(x)
        xs = xs.view(-1, 10 * 3 * 3)
        theta = self.fc_loc(xs)
        theta = theta.view(-1, 2, 3)

        grid = F.affine_grid(theta, x.size())
        x = F.grid_sample(x, grid)

        return x

    def forward(self, x):
        # transform the input
        x = self.stn(x)

        # Perform the usual forward pass
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 320)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, training=self.training)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


# synthetic "MNIST": each class is a bright 5x5 square at its own place, plus noise, normalised as
# transforms.Normalize((0.1307,), (0.3081,)) would
torch.manual_seed(0)
n = 160
target_all = torch.arange(n) % 10
images = torch.rand(n, 1, 28, 28) * 0.2
for i in range(n):
    c = int(target_all[i])
    r, q = 3 + 11 * (c // 5), 2 + 5 * (c % 5)
    images[i, 0, r:r + 5, q:q + 5] = 1.0
images = (images - 0.1307) / 0.3081
train_loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(images[:128], target_all[:128]), batch_size=16, shuffle=True)
test_loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(images[128:], target_all[128:]), batch_size=16)

device = torch.device("cpu")
model = Net().to(device)

# the identity initialisation: stn() returns the input unchanged (up to bilinear round-off)
with torch.no_grad():
    x0 = images[:4]
    assert torch.allclose(model.stn(x0), x0, atol=1e-5)
    grid = F.affine_grid(torch.tensor([[[1., 0, 0], [0, 1, 0]]]), (1, 1, 3, 3),
                         align_corners=False)
    assert grid.shape == (1, 3, 3, 2)
    assert torch.allclose(grid[0, 0, :, 0], torch.tensor([-2 / 3, 0, 2 / 3]))
    # a horizontal flip theta mirrors the image
    flip = torch.tensor([[[-1., 0, 0], [0, 1, 0]]])
    flipped = F.grid_sample(x0[:1], F.affine_grid(flip, x0[:1].size(), align_corners=False),
                            align_corners=False)
    assert torch.allclose(flipped, x0[:1].flip(-1), atol=1e-5)

optimizer = optim.SGD(model.parameters(), lr=0.05)  # 0.01 in the tutorial, for 60000 images


def train(epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)

        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % 500 == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader), loss.item()))


def test():
    with torch.no_grad():
        model.eval()
        test_loss = 0
        correct = 0
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)

            # sum up batch loss
            test_loss += F.nll_loss(output, target, reduction='sum').item()
            # get the index of the max log-probability
            pred = output.max(1, keepdim=True)[1]
            correct += pred.eq(target.view_as(pred)).sum().item()

        test_loss /= len(test_loader.dataset)
        print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'
              .format(test_loss, correct, len(test_loader.dataset),
                      100. * correct / len(test_loader.dataset)))
        return test_loss, correct


loss0, _ = test()
history = []
for epoch in range(1, 8 + 1):
    train(epoch)
    history.append(test())
# at this toy scale the jointly trained STN makes the curve bumpy: judge the best epoch
assert min(l for l, _ in history) < 0.4 * loss0
assert max(c for _, c in history) >= 22

# the localisation net received gradients: the STN is trained end to end
model.train()
optimizer.zero_grad()
F.nll_loss(model(images[:16]), target_all[:16]).backward()
assert model.fc_loc[2].weight.grad.abs().sum() > 0
assert model.localization[0].weight.grad.abs().sum() > 0
