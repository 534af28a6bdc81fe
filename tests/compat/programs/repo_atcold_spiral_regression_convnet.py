"""Atcold/NYU-DLSP20, 04-spiral_classification, 05-regression and 06-convnet notebooks, scaled
down: the spiral built row by row with X[ix] = t[index] * torch.FloatTensor((math.sin(...),
math.cos(...))) on 0-d tensors, linear vs ReLU models with SGD/Adam weight_decay, the printed
"%i %.6f %.3f" % (..., acc) with a 0-d tensor; the regression ensemble of ReLU and Tanh nets and
torch.stack of their predictions; FC2Layer vs CNN with LogSoftmax/nll_loss, get_n_params with
nelement(), permuted pixels through data[:, perm], the test loop with output.data.max(1,
keepdim=True)[1] and pred.eq(target.data.view_as(pred)).cpu().sum().item()."""
import math
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
seed = 12345
random.seed(seed)
torch.manual_seed(seed)
N, D, C, H = 100, 2, 3, 100
X = torch.zeros(N * C, D).to(device)
y = torch.zeros(N * C, dtype=torch.long).to(device)
for c in range(C):
    index = 0
    t = torch.linspace(0, 1, N)
    inner_var = torch.linspace((2 * math.pi / C) * (c), (2 * math.pi / C) * (2 + c), N) \
        + torch.randn(N) * 0.2
    for ix in range(N * c, N * (c + 1)):
        X[ix] = t[index] * torch.FloatTensor((
            math.sin(inner_var[index]), math.cos(inner_var[index])
        ))
        y[ix] = c
        index += 1
print("Shapes:")
print("X:", tuple(X.size()))
print("y:", tuple(y.size()))
print(X[::60], y[::60])


def fit(model, optimizer, steps=200):
    criterion = torch.nn.CrossEntropyLoss()
    for t in range(steps):
        y_pred = model(X)
        loss = criterion(y_pred, y)
        score, predicted = torch.max(y_pred, 1)
        acc = (y == predicted).sum().float() / len(y)
        if t % 50 == 0 or t == steps - 1:
            print("[EPOCH]: %i, [LOSS]: %.6f, [ACCURACY]: %.3f" % (t, loss.item(), acc))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(model)
    return acc


learning_rate, lambda_l2 = 1e-3, 1e-5
model = nn.Sequential(nn.Linear(D, H), nn.Linear(H, C))
model.to(device)
fit(model, torch.optim.SGD(model.parameters(), lr=learning_rate, weight_decay=lambda_l2))
model = nn.Sequential(nn.Linear(D, H), nn.ReLU(), nn.Linear(H, C))
model.to(device)
acc = fit(model, torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=lambda_l2))
assert acc > 0.8

torch.manual_seed(1)
D, C = 1, 1
X = torch.unsqueeze(torch.linspace(-1, 1, 100), dim=1).to(device)
y = X.pow(3) + 0.3 * torch.rand(X.size()).to(device)
print("X:", tuple(X.size()), "y:", tuple(y.size()))
n_networks, models, y_pretrain = 4, list(), list()
criterion = torch.nn.MSELoss()
for mod in range(n_networks):
    model = nn.Sequential(nn.Linear(D, H), nn.ReLU() if mod < n_networks // 2 else nn.Tanh(),
                          nn.Linear(H, C))
    model.to(device)
    models.append(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=lambda_l2)
    for t in range(100):
        y_pred = model(X)
        if t == 0:
            y_pretrain.append(y_pred.detach())
        loss = criterion(y_pred, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"[MODEL]: {mod + 1}, [EPOCH]: {t}, [LOSS]: {loss.item():.6f}")
print(models[0], models[-1])
y_combo = torch.stack(y_pretrain)
print(y_combo.shape, y_combo.mean(0).shape, y_combo.std(0)[:3])
y_pred = list()


def dense_prediction(models, non_linearity, zoom):
    for model in models:
        X_new = torch.unsqueeze(torch.linspace(-4, 4, 101), dim=1).to(device)
        with torch.no_grad():
            y_pred.append(model(X_new))
    y_combo = torch.stack(y_pred)
    print(non_linearity, zoom, y_combo.shape, y_combo.mean(0)[50], y_combo.var(0).max() > 0)


dense_prediction(models[:2], 'ReLU', zoom=1)
dense_prediction(models[2:], 'Tanh', zoom=1)


def get_n_params(model):
    np = 0
    for p in list(model.parameters()):
        np += p.nelement()
    return np


input_size, output_size = 28 * 28, 10
g = torch.Generator().manual_seed(0)
labels = torch.randint(0, 10, (384,), generator=g)
images = torch.randn(384, 1, 28, 28, generator=g) * 0.3
images[torch.arange(384), 0, labels * 2 + 4, 6:22] += 2.0
train_loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset((images[:256] - 0.1307) / 0.3081, labels[:256]),
    batch_size=64, shuffle=True)
test_loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset((images[256:] - 0.1307) / 0.3081, labels[256:]),
    batch_size=64, shuffle=True)
image, _ = train_loader.dataset.__getitem__(0)
print(image.shape)


class FC2Layer(nn.Module):
    def __init__(self, input_size, n_hidden, output_size):
        super(FC2Layer, self).__init__()
        self.input_size = input_size
        self.network = nn.Sequential(
            nn.Linear(input_size, n_hidden), nn.ReLU(),
            nn.Linear(n_hidden, n_hidden), nn.ReLU(),
            nn.Linear(n_hidden, output_size), nn.LogSoftmax(dim=1))

    def forward(self, x):
        x = x.view(-1, self.input_size)
        return self.network(x)


class CNN(nn.Module):
    def __init__(self, input_size, n_feature, output_size):
        super(CNN, self).__init__()
        self.n_feature = n_feature
        self.conv1 = nn.Conv2d(in_channels=1, out_channels=n_feature, kernel_size=5)
        self.conv2 = nn.Conv2d(n_feature, n_feature, kernel_size=5)
        self.fc1 = nn.Linear(n_feature * 4 * 4, 50)
        self.fc2 = nn.Linear(50, 10)

    def forward(self, x, verbose=False):
        x = self.conv1(x)
        x = F.relu(x)
        x = F.max_pool2d(x, kernel_size=2)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, kernel_size=2)
        x = x.view(-1, self.n_feature * 4 * 4)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.fc2(x)
        x = F.log_softmax(x, dim=1)
        return x


accuracy_list = []


def train(epoch, model, perm=torch.arange(0, 784).long()):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        data = data.view(-1, 28 * 28)
        data = data[:, perm]
        data = data.view(-1, 1, 28, 28)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % 2 == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader), loss.item()))


def test(model, perm=torch.arange(0, 784).long()):
    model.eval()
    test_loss = 0
    correct = 0
    for data, target in test_loader:
        data, target = data.to(device), target.to(device)
        data = data.view(-1, 28 * 28)
        data = data[:, perm]
        data = data.view(-1, 1, 28, 28)
        output = model(data)
        test_loss += F.nll_loss(output, target, reduction='sum').item()
        pred = output.data.max(1, keepdim=True)[1]
        correct += pred.eq(target.data.view_as(pred)).cpu().sum().item()
    test_loss /= len(test_loader.dataset)
    accuracy = 100. * correct / len(test_loader.dataset)
    accuracy_list.append(accuracy)
    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
        test_loss, correct, len(test_loader.dataset), accuracy))


perm = torch.randperm(784)
for p in (torch.arange(0, 784).long(), perm):
    for model in (FC2Layer(input_size, 8, output_size), CNN(input_size, 6, output_size)):
        model.to(device)
        optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.5)
        print('Number of parameters: {}'.format(get_n_params(model)))
        for epoch in range(0, 2):
            train(epoch, model, p)
            test(model, p)
image_perm = image.view(-1, 28 * 28).clone()
image_perm = image_perm[:, perm]
image_perm = image_perm.view(-1, 1, 28, 28)
print(image_perm.shape, torch.equal(image_perm.view(-1).sort().values, image.view(-1).sort().values))
print(accuracy_list)
assert max(accuracy_list) > 50
