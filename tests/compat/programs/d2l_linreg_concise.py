"""d2l's concise linear regression: TensorDataset + DataLoader, net[0].weight.data.normal_(0, 0.01),
net[0].bias.data.fill_(0), nn.MSELoss, optim.SGD, reading back net[0].weight.data."""
import torch
from torch import nn
from torch.utils import data

torch.manual_seed(0)
true_w = torch.tensor([2, -3.4])
true_b = 4.2
features = torch.randn(500, 2)
labels = (features @ true_w + true_b + 0.01 * torch.randn(500)).reshape(-1, 1)


def load_array(data_arrays, batch_size, is_train=True):
    dataset = data.TensorDataset(*data_arrays)
    return data.DataLoader(dataset, batch_size, shuffle=is_train)


data_iter = load_array((features, labels), 10)
assert len(next(iter(data_iter))) == 2
net = nn.Sequential(nn.Linear(2, 1))
net[0].weight.data.normal_(0, 0.01)
net[0].bias.data.fill_(0)
loss = nn.MSELoss()
trainer = torch.optim.SGD(net.parameters(), lr=0.03)
for epoch in range(3):
    for X, y in data_iter:
        l = loss(net(X), y)
        trainer.zero_grad()
        l.backward()
        trainer.step()
    l = loss(net(features), labels)
    print(f'epoch {epoch + 1}, loss {l:f}')
w = net[0].weight.data
b = net[0].bias.data
assert (true_w - w.reshape(true_w.shape)).abs().max() < 0.05
assert abs(true_b - b.item()) < 0.05
