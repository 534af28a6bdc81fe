"""The Quickstart's FashionMNIST loop on synthetic 28x28 images: Flatten + Linear/ReLU stack,
train()/test() functions over a DataLoader, accuracy as (pred.argmax(1) == y).type(torch.float)."""
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
n = 256
y_all = torch.randint(0, 10, (n,))
X_all = torch.rand(n, 1, 28, 28) * 0.1
X_all[torch.arange(n), 0, 2 * y_all, :] = 1.0         # each class lights its own row
training_data = TensorDataset(X_all[:192], y_all[:192])
test_data = TensorDataset(X_all[192:], y_all[192:])
train_dataloader = DataLoader(training_data, batch_size=32, shuffle=True)
test_dataloader = DataLoader(test_data, batch_size=32)
for X, y in test_dataloader:
    assert X.shape == (32, 1, 28, 28) and y.shape == (32,) and y.dtype == torch.int64
    break

device = "cpu"


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28 * 28, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x):
        return self.linear_relu_stack(self.flatten(x))


model = NeuralNetwork().to(device)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def train(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        X, y = X.to(device), y.to(device)
        loss = loss_fn(model(X), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if batch % 100 == 0:
            loss, current = loss.item(), (batch + 1) * len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test(dataloader, model, loss_fn):
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    model.eval()
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")
    return test_loss, correct


before, _ = test(test_dataloader, model, loss_fn)
for t in range(8):
    train(train_dataloader, model, loss_fn, optimizer)
after, accuracy = test(test_dataloader, model, loss_fn)
assert after < before and accuracy > 0.5, (before, after, accuracy)
