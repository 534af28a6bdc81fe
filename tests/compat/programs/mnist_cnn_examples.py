"""pytorch/examples' MNIST: Conv2d/Dropout/max_pool2d/flatten/log_softmax, F.nll_loss, StepLR, and
the test loop's reduction='sum' and pred.eq(target.view_as(pred)).sum().item()."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1)
        self.conv2 = nn.Conv2d(8, 16, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(16 * 6 * 6, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.dropout2(x)
        output = F.log_softmax(self.fc2(x), dim=1)
        return output


torch.manual_seed(1)
data_all = torch.randn(96, 1, 16, 16) * 0.1
target_all = torch.randint(0, 10, (96,))
data_all[torch.arange(96), 0, target_all, :] += 1.0
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(data_all, target_all),
                                     batch_size=32, shuffle=True)
model = Net()
optimizer = optim.Adam(model.parameters(), lr=1e-2)
scheduler = StepLR(optimizer, step_size=1, gamma=0.7)


def test(model, loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in loader:
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction='sum').item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    return test_loss / len(loader.dataset), correct


first, _ = test(model, loader)
for epoch in range(1, 5):
    model.train()
    for batch_idx, (data, target) in enumerate(loader):
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
    scheduler.step()
last, correct = test(model, loader)
assert last < first, (first, last)
assert abs(optimizer.param_groups[0]['lr'] - 1e-2 * 0.7 ** 4) < 1e-9
