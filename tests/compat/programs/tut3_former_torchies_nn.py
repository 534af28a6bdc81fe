"""PyTorch tutorial "PyTorch for Former Torch Users", part "nn package" (beginner_source/
former_torchies/nnft_tutorial.py): the MNISTConvNet (x.flatten(start_dim=1)), one sample through
it, nn.CrossEntropyLoss and err.backward(), net.conv1.weight.grad.size() and .data.norm(), a
forward hook on conv2 (printnorm: input is a tuple, output.data.size()), the legacy
register_backward_hook on conv2 (printgradnorm: grad_input / grad_output tuples and their sizes),
and the recurrent example reusing one nn.Linear over TIMESTEPS with losses summed before a single
backward."""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F


class MNISTConvNet(nn.Module):

    def __init__(self):
        # this is the place where you instantiate all your modules
        # you can later access them using the same names you've given them in
        # here
        super(MNISTConvNet, self).__init__()
        self.conv1 = nn.Conv2d(1, 10, 5)
        self.pool1 = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(10, 20, 5)
        self.pool2 = nn.MaxPool2d(2, 2)
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)

    # it's the forward function that defines the network structure
    # we're accepting only a single input in here, but if you want,
    # feel free to use more
    def forward(self, input):
        x = self.pool1(F.relu(self.conv1(input)))
        x = self.pool2(F.relu(self.conv2(x)))
        x = x.flatten(start_dim=1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return x


torch.manual_seed(0)
net = MNISTConvNet()
print(net)

input = torch.randn(1, 1, 28, 28)
out = net(input)
print(out.size())
assert out.size() == (1, 10)

target = torch.tensor([3], dtype=torch.long)
loss_fn = nn.CrossEntropyLoss()  # LogSoftmax + ClassNLL Loss
err = loss_fn(out, target)
err.backward()

print(err)
assert torch.allclose(err, -F.log_softmax(out, 1)[0, 3])

print(net.conv1.weight.grad.size())
assert net.conv1.weight.grad.size() == (10, 1, 5, 5)

print(net.conv1.weight.data.norm())  # norm of the weight
print(net.conv1.weight.grad.data.norm())  # norm of the gradients
assert torch.allclose(net.conv1.weight.data.norm(), net.conv1.weight.detach().pow(2).sum().sqrt())

seen = {}


def printnorm(self, input, output):
    # input is a tuple of packed inputs
    # output is a Tensor. output.data is the Tensor we are interested
    print('Inside ' + self.__class__.__name__ + ' forward')
    print('')
    print('input: ', type(input))
    print('input[0]: ', type(input[0]))
    print('output: ', type(output))
    print('')
    print('input size:', input[0].size())
    print('output size:', output.data.size())
    print('output norm:', output.data.norm())
    seen["forward"] = (type(input), tuple(input[0].size()), tuple(output.size()),
                       output.data.norm().item())


net.conv2.register_forward_hook(printnorm)

out = net(input)
assert seen["forward"][:3] == (tuple, (1, 10, 12, 12), (1, 20, 8, 8))
conv2_out = net.conv2(net.pool1(F.relu(net.conv1(input))))
assert abs(seen["forward"][3] - conv2_out.norm().item()) < 1e-4


def printgradnorm(self, grad_input, grad_output):
    print('Inside ' + self.__class__.__name__ + ' backward')
    print('Inside class:' + self.__class__.__name__)
    print('')
    print('grad_input: ', type(grad_input))
    print('grad_input[0]: ', type(grad_input[0]))
    print('grad_output: ', type(grad_output))
    print('grad_output[0]: ', type(grad_output[0]))
    print('')
    print('grad_input size:', grad_input[0].size())
    print('grad_output size:', grad_output[0].size())
    print('grad_input norm:', grad_input[0].norm())
    seen["backward"] = (type(grad_input), type(grad_output), tuple(grad_input[0].size()),
                        tuple(grad_output[0].size()))


with warnings.catch_warnings():
    warnings.simplefilter("ignore")   # register_backward_hook is deprecated in favour of the full one
    net.conv2.register_backward_hook(printgradnorm)

out = net(input)
err = loss_fn(out, target)
err.backward()
assert seen["backward"] == (tuple, tuple, (1, 10, 12, 12), (1, 20, 8, 8))


class RNN(nn.Module):

    # you can also accept arguments in your model constructor
    def __init__(self, data_size, hidden_size, output_size):
        super(RNN, self).__init__()

        self.hidden_size = hidden_size
        input_size = data_size + hidden_size

        self.i2h = nn.Linear(input_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)

    def forward(self, data, last_hidden):
        input = torch.cat((data, last_hidden), 1)
        hidden = self.i2h(input)
        output = self.h2o(hidden)
        return hidden, output


rnn = RNN(50, 20, 10)

loss_fn = nn.MSELoss()

batch_size = 10
TIMESTEPS = 5

# Create some fake data
batch = torch.randn(batch_size, 50)
hidden = torch.zeros(batch_size, 20)
target = torch.zeros(batch_size, 10)

loss = 0
outputs = []
for t in range(TIMESTEPS):
    # yes! you can reuse the same network several times,
    # sum up the losses, and call backward!
    hidden, output = rnn(batch, hidden)
    outputs.append(output)
    loss += loss_fn(output, target)
loss.backward()
# the shared Linear got the summed gradient of all five uses
g_sum = rnn.h2o.bias.grad
assert torch.allclose(g_sum, sum(2 * o.detach() / o.numel() for o in outputs).sum(0), atol=1e-6)
assert hidden.shape == (10, 20) and rnn.i2h.weight.grad.shape == (20, 70)
