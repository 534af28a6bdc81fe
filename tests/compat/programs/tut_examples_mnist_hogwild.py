"""pytorch/examples mnist_hogwild (main.py + train.py) on synthetic 28x28 digits, one process:
Net with conv1/conv2, Dropout2d-free forward, F.log_softmax; train(rank, args, model, device,
dataset, dataloader_kwargs) seeding torch.manual_seed(args.seed + rank) and building its own
DataLoader and SGD(momentum); train_epoch printing os.getpid(); test_epoch with
F.nll_loss(..., reduction='sum') and output.max(1)[1]; model.share_memory() (every parameter
is_shared() afterwards, the same Parameter objects) before the workers, here run in turn."""
import argparse
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import TensorDataset


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.conv2_drop = nn.Dropout2d()
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 320)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, training=self.training)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


def train(rank, args, model, device, dataset, dataloader_kwargs):
    torch.manual_seed(args.seed + rank)
    train_loader = torch.utils.data.DataLoader(dataset, **dataloader_kwargs)
    optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    for epoch in range(1, args.epochs + 1):
        train_epoch(epoch, args, model, device, train_loader, optimizer)


def test(args, model, device, dataset, dataloader_kwargs):
    torch.manual_seed(args.seed)
    test_loader = torch.utils.data.DataLoader(dataset, **dataloader_kwargs)
    return test_epoch(model, device, test_loader)


def train_epoch(epoch, args, model, device, data_loader, optimizer):
    model.train()
    pid = os.getpid()
    for batch_idx, (data, target) in enumerate(data_loader):
        optimizer.zero_grad()
        output = model(data.to(device))
        loss = F.nll_loss(output, target.to(device))
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print('{}\tTrain Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                pid, epoch, batch_idx * len(data), len(data_loader.dataset),
                100. * batch_idx / len(data_loader), loss.item()))


def test_epoch(model, device, data_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in data_loader:
            output = model(data.to(device))
            test_loss += F.nll_loss(output, target.to(device), reduction='sum').item()  # sum up batch loss
            pred = output.max(1)[1]  # get the index of the max log-probability
            correct += pred.eq(target.to(device)).sum().item()
    test_loss /= len(data_loader.dataset)
    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
        test_loss, correct, len(data_loader.dataset),
        100. * correct / len(data_loader.dataset)))
    return correct / len(data_loader.dataset)


args = argparse.Namespace(batch_size=16, test_batch_size=64, epochs=3, lr=0.05, momentum=0.5,
                          seed=1, log_interval=4, num_processes=2, cuda=False)
device = torch.device("cpu")
torch.manual_seed(args.seed)
prototypes = (torch.rand(10, 1, 28, 28) > 0.5).float() * 2 - 1
labels = torch.arange(10).repeat(16)
images = prototypes[labels] + 0.2 * torch.randn(160, 1, 28, 28)
dataset1 = TensorDataset(images, labels)
dataset2 = TensorDataset(prototypes[torch.arange(10).repeat(4)] + 0.2 * torch.randn(40, 1, 28, 28),
                         torch.arange(10).repeat(4))
kwargs = {'batch_size': args.batch_size, 'shuffle': True}

model = Net().to(device)
params = list(model.parameters())
assert model.share_memory() is model  # gradients are allocated lazily, so they are not shared here
assert all(p.is_shared() for p in model.parameters())
assert all(a is b for a, b in zip(params, model.parameters()))
for rank in range(args.num_processes):
    train(rank, args, model, device, dataset1, kwargs)
    assert all(p.is_shared() for p in model.parameters())
kwargs.update({'batch_size': args.test_batch_size, 'shuffle': False})
accuracy = test(args, model, device, dataset2, kwargs)
assert accuracy > 0.5, accuracy
