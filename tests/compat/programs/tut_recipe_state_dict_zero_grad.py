"""PyTorch recipes "Defining a Neural Network", "What is a state_dict" and "Zeroing out gradients"
(recipes_source/recipes/): the MNIST-shaped Net with conv1/conv2, nn.Dropout2d, F.max_pool2d,
torch.flatten(x, 1) and F.log_softmax; printing model.state_dict()[param_tensor].size() and
optimizer.state_dict() entries; a training loop calling optimizer.zero_grad() per batch, compared
with one that forgets it (gradients accumulate); zero_grad(set_to_none=False) leaves zeros."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout2d(0.25)
        self.dropout2 = nn.Dropout2d(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


torch.manual_seed(0)
my_nn = Net()
print(my_nn)
random_data = torch.rand((1, 1, 28, 28))
result = my_nn(random_data)
print(result)
assert result.shape == (1, 10)
assert torch.allclose(result.exp().sum(), torch.tensor(1.0), atol=1e-5)

optimizer = optim.SGD(my_nn.parameters(), lr=0.001, momentum=0.9)
print("Model's state_dict:")
for param_tensor in my_nn.state_dict():
    print(param_tensor, "\t", my_nn.state_dict()[param_tensor].size())
assert list(my_nn.state_dict()) == ["conv1.weight", "conv1.bias", "conv2.weight", "conv2.bias",
                                    "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
assert my_nn.state_dict()["fc1.weight"].size() == torch.Size([128, 9216])
print("Optimizer's state_dict:")
for var_name in optimizer.state_dict():
    print(var_name, "\t", optimizer.state_dict()[var_name])
sd = optimizer.state_dict()
assert sd["state"] == {}
assert sd["param_groups"][0]["params"] == list(range(8))
assert sd["param_groups"][0]["lr"] == 0.001

# zeroing out gradients
small = nn.Sequential(nn.Linear(6, 4), nn.ReLU(), nn.Linear(4, 3))
criterion = nn.CrossEntropyLoss()
opt = optim.SGD(small.parameters(), lr=0.001, momentum=0.9)
inputs, labels = torch.randn(8, 6), torch.randint(0, 3, (8,))
for epoch in range(2):
    running_loss = 0.0
    for i in range(3):
        opt.zero_grad()
        outputs = small(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        opt.step()
        running_loss += loss.item()
    print('[%d] loss: %.3f' % (epoch + 1, running_loss / 3))

# forgetting zero_grad accumulates
small.zero_grad()
criterion(small(inputs), labels).backward()
g1 = small[0].weight.grad.clone()
criterion(small(inputs), labels).backward()
assert torch.allclose(small[0].weight.grad, 2 * g1)
small.zero_grad()
assert all(p.grad is None for p in small.parameters())
criterion(small(inputs), labels).backward()
opt.zero_grad(set_to_none=False)
assert all(p.grad is not None and p.grad.abs().sum() == 0 for p in small.parameters())
