"""PyTorch "Deep Learning with PyTorch: A 60 Minute Blitz", part "Neural Networks"
(beginner_source/blitz/neural_networks_tutorial.py): LeNet with num_flat_features walking
x.size()[1:], list(net.parameters()), net.zero_grad() then out.backward(torch.randn(1, 10)),
nn.MSELoss against torch.arange(1, 11).view(1, -1), loss.grad_fn.next_functions walked back two
steps, conv1.bias.grad None-or-zero before and filled after backward, the hand-written SGD
update f.data.sub_(f.grad.data * learning_rate), and the optim.SGD training step."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):

    def __init__(self):
        super(Net, self).__init__()
        # 1 input image channel, 6 output channels, 5x5 square convolution
        # kernel
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        # an affine operation: y = Wx + b
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        # Max pooling over a (2, 2) window
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        # If the size is a square you can only specify a single number
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, self.num_flat_features(x))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x

    def num_flat_features(self, x):
        size = x.size()[1:]  # all dimensions except the batch dimension
        num_features = 1
        for s in size:
            num_features *= s
        return num_features


torch.manual_seed(0)
net = Net()
print(net)
assert "Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1))" in str(net)
assert "Linear(in_features=400, out_features=120, bias=True)" in str(net)

params = list(net.parameters())
print(len(params))
print(params[0].size())  # conv1's .weight
assert len(params) == 10
assert params[0].size() == torch.Size([6, 1, 5, 5])

input = torch.randn(1, 1, 32, 32)
out = net(input)
print(out)
assert out.shape == (1, 10)

net.zero_grad()
upstream = torch.randn(1, 10)
out.backward(upstream)
# the last layer's bias gradient is exactly the upstream gradient
assert torch.allclose(net.fc3.bias.grad, upstream[0])
# and its weight gradient is the outer product with fc2's (relu) output
h = F.relu(net.fc2(F.relu(net.fc1(F.max_pool2d(F.relu(net.conv2(
    F.max_pool2d(F.relu(net.conv1(input)), 2))), 2).view(1, -1)))))
assert torch.allclose(net.fc3.weight.grad, upstream.t() @ h, atol=1e-6)

output = net(input)
target = torch.arange(1, 11)  # a dummy target, for example
target = target.view(1, -1)  # make it the same shape as output
criterion = nn.MSELoss()

loss = criterion(output, target)
print(loss)
assert loss.dtype == torch.float32 and loss.dim() == 0
assert torch.allclose(loss, ((output - target.float()) ** 2).mean())

print(loss.grad_fn)  # MSELoss
print(loss.grad_fn.next_functions[0][0])  # Linear
print(loss.grad_fn.next_functions[0][0].next_functions[0][0])  # ReLU
assert loss.grad_fn is not None
assert loss.grad_fn.next_functions[0][0] is not None
assert loss.grad_fn.next_functions[0][0].next_functions[0][0] is not None

net.zero_grad()     # zeroes the gradient buffers of all parameters

print('conv1.bias.grad before backward')
print(net.conv1.bias.grad)
assert net.conv1.bias.grad is None or bool((net.conv1.bias.grad == 0).all())

loss.backward()

print('conv1.bias.grad after backward')
print(net.conv1.bias.grad)
assert net.conv1.bias.grad.shape == (6,)
assert float(net.conv1.bias.grad.abs().sum()) > 0

# the hand-written SGD update
learning_rate = 0.01
before = [f.detach().clone() for f in net.parameters()]
grads = [f.grad.detach().clone() for f in net.parameters()]
for f in net.parameters():
    f.data.sub_(f.grad.data * learning_rate)
for f, b, g in zip(net.parameters(), before, grads):
    assert torch.allclose(f, b - learning_rate * g)

import torch.optim as optim

# create your optimizer
optimizer = optim.SGD(net.parameters(), lr=0.01)

losses = []
for _ in range(5):
    # in your training loop:
    optimizer.zero_grad()   # zero the gradient buffers
    output = net(input)
    loss = criterion(output, target)
    loss.backward()
    optimizer.step()    # Does the update
    losses.append(loss.item())
print(losses[0], losses[-1])
# (a few steps only: at lr=0.01 this regression to 1..10 starts to oscillate later on)
assert all(b < a for a, b in zip(losses, losses[1:]))
assert losses[-1] < 0.75 * losses[0]
