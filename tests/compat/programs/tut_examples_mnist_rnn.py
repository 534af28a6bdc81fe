"""pytorch/examples mnist_rnn/main.py on synthetic 28x28 digits: an nn.LSTM(input_size=28,
hidden_size=64, batch_first=True) reading the rows, output[:, -1, :] into nn.BatchNorm1d(64),
nn.Dropout2d(0.25) / nn.Dropout2d(0.5) applied to 2-D (N, features) activations (torch warns
and drops single elements), fc1/fc2 and F.log_softmax; optim.Adadelta(lr=1.0),
StepLR(step_size=1, gamma=0.7), and the test loop's output.argmax(dim=1, keepdim=True) with
pred.eq(target.view_as(pred)).sum().item()."""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.rnn = nn.LSTM(input_size=28, hidden_size=64, batch_first=True)
        self.batchnorm = nn.BatchNorm1d(64)
        self.dropout1 = nn.Dropout2d(0.25)
        self.dropout2 = nn.Dropout2d(0.5)
        self.fc1 = nn.Linear(64, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, input):
        # Shape of input is (batch_size,1, 28, 28)
        # converting shape of input to (batch_size, 28, 28)
        # as required by RNN when batch_first is set True
        input = input.reshape(-1, 28, 28)
        output, hidden = self.rnn(input)
        # RNN output shape is (seq_len, batch, input_size)
        # Get last output of RNN
        output = output[:, -1, :]
        output = self.batchnorm(output)
        output = self.dropout1(output)
        output = self.fc1(output)
        output = F.relu(output)
        output = self.dropout2(output)
        output = self.fc2(output)
        output = F.log_softmax(output, dim=1)
        return output


def train(log_interval, model, device, train_loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % log_interval == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader), loss.item()))


def test(model, device, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction='sum').item()  # sum up batch loss
            pred = output.argmax(dim=1, keepdim=True)  # get the index of the max log-probability
            correct += pred.eq(target.view_as(pred)).sum().item()
    test_loss /= len(test_loader.dataset)
    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
        test_loss, correct, len(test_loader.dataset), 100. * correct / len(test_loader.dataset)))
    return correct / len(test_loader.dataset)


torch.manual_seed(1)
device = torch.device("cpu")
prototypes = (torch.rand(10, 1, 28, 28) > 0.5).float()
train_labels = torch.arange(10).repeat(24)
test_labels = torch.arange(10).repeat(5)
train_set = TensorDataset(prototypes[train_labels] + 0.3 * torch.randn(240, 1, 28, 28), train_labels)
test_set = TensorDataset(prototypes[test_labels] + 0.3 * torch.randn(50, 1, 28, 28), test_labels)
train_loader = DataLoader(train_set, batch_size=16, shuffle=True)
test_loader = DataLoader(test_set, batch_size=50)
model = Net().to(device)
optimizer = optim.Adadelta(model.parameters(), lr=1.0)
scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for epoch in range(1, 5):
        train(5, model, device, train_loader, optimizer, epoch)
        accuracy = test(model, device, test_loader)
        scheduler.step()
assert any("Received a 2-D input to dropout2d" in str(w.message) for w in caught)
assert accuracy > 0.7, accuracy
