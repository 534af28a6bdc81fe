"""d2l's concise softmax regression: nn.Sequential(nn.Flatten(), nn.Linear(784, 10)),
net.apply(init_weights) with nn.init.normal_(m.weight, std=0.01), nn.CrossEntropyLoss(reduction=
'none') whose per-example losses are averaged by hand, and an Accumulator-style metric loop."""
import torch
from torch import nn


class Accumulator:
    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, *args):
        self.data = [a + float(b) for a, b in zip(self.data, args)]

    def __getitem__(self, idx):
        return self.data[idx]


def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)


def accuracy(y_hat, y):
    return float((y_hat.argmax(axis=1).type(y.dtype) == y).type(y.dtype).sum())


torch.manual_seed(0)
y_all = torch.randint(0, 10, (320,))
X_all = torch.rand(320, 1, 28, 28) * 0.2
X_all[torch.arange(320), 0, 2 * y_all] += 1.0
train_iter = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X_all, y_all),
                                         batch_size=32, shuffle=True)
net = nn.Sequential(nn.Flatten(), nn.Linear(784, 10))
net.apply(init_weights)
loss = nn.CrossEntropyLoss(reduction='none')
trainer = torch.optim.SGD(net.parameters(), lr=0.1)
for epoch in range(5):
    metric = Accumulator(3)
    net.train()
    for X, y in train_iter:
        y_hat = net(X)
        l = loss(y_hat, y)
        assert l.shape == (X.shape[0],)
        trainer.zero_grad()
        l.mean().backward()
        trainer.step()
        metric.add(float(l.sum()), accuracy(y_hat, y), y.numel())
    train_loss, train_acc = metric[0] / metric[2], metric[1] / metric[2]
print(train_loss, train_acc)
assert train_acc > 0.8
