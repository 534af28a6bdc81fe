"""Stanford CS231n assignment 2, PyTorch.ipynb (a student's solution, as in the many completed
copies on GitHub, e.g. a PyTorch.py export of 2023), on a synthetic 16x16 'CIFAR-10' instead of
torchvision's download, and fewer iterations. Part II barebones: flatten via x.view(N, -1),
two_layer_fc with x.mm(w1) and F.relu, three_layer_convnet with F.conv2d(x, w, bias=b,
padding=2), random_weight with torch.randn(shape, device=, dtype=) * np.sqrt(2. / fan_in) and
w.requires_grad = True, zero_weight(10) with requires_grad=True, .type() ==
'torch.FloatTensor', check_accuracy_part2 with `_, preds = scores.max(1)`, num_correct += (preds
== y).sum(), float(num_correct) and '%d' % num_correct of a tensor, train_part2 updating w -=
learning_rate * w.grad under torch.no_grad() then w.grad.zero_(). Part III Module API:
TwoLayerFC / ThreeLayerConvNet with nn.init.kaiming_normal_ and nn.init.constant_, self.relu =
F.relu as an attribute, optim.SGD(momentum=0.9, nesterov=True), check_accuracy_part34 /
train_part34 with model.train()/eval(), x.to(device=device, dtype=dtype). Part IV Sequential with
a Flatten(nn.Module) and a Conv/ReLU/BatchNorm2d stack with MaxPool2d(padding=1), Adam(betas=,
eps=1e-08, weight_decay=0). DataLoader(sampler=sampler.SubsetRandomSampler(range(...)))."""
import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader
from torch.utils.data import sampler
import torch.nn.functional as F  # useful stateless functions
import numpy as np

torch.manual_seed(0)
np.random.seed(0)

USE_GPU = True
dtype = torch.float32  # We will be using float throughout this tutorial.

if USE_GPU and torch.cuda.is_available():
    device = torch.device('cuda')
else:
    device = torch.device('cpu')

# Constant to control how frequently we print train loss.
print_every = 10
print('using device:', device)

NUM_TRAIN = 384
HW = 16


class FakeCIFAR10(torch.utils.data.Dataset):
    """Stands in for dset.CIFAR10(..., transform=T.Compose([T.ToTensor(), T.Normalize(...)]))."""
    protos = torch.randn(10, 3, HW, HW)

    def __init__(self, n, train, seed):
        g = torch.Generator().manual_seed(seed)
        self.train = train
        self.labels = torch.randint(0, 10, (n,), generator=g)
        self.images = self.protos[self.labels] + 1.5 * torch.randn(n, 3, HW, HW, generator=g)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.images[i], int(self.labels[i])


cifar10_train = FakeCIFAR10(448, train=True, seed=1)
loader_train = DataLoader(cifar10_train, batch_size=64,
                          sampler=sampler.SubsetRandomSampler(range(NUM_TRAIN)))
cifar10_val = cifar10_train
loader_val = DataLoader(cifar10_val, batch_size=64,
                        sampler=sampler.SubsetRandomSampler(range(NUM_TRAIN, 448)))
cifar10_test = FakeCIFAR10(128, train=False, seed=2)
loader_test = DataLoader(cifar10_test, batch_size=64)


def flatten(x):
    N = x.shape[0]  # read in N, C, H, W
    return x.view(N, -1)  # "flatten" the C * H * W values into a single vector per image


def test_flatten():
    x = torch.arange(12).view(2, 1, 3, 2)
    print('Before flattening: ', x)
    print('After flattening: ', flatten(x))


test_flatten()


def two_layer_fc(x, params):
    # first we flatten the image
    x = flatten(x)  # shape: [batch_size, C x H x W]

    w1, w2 = params

    x = F.relu(x.mm(w1))
    x = x.mm(w2)
    return x


def two_layer_fc_test():
    hidden_layer_size = 42
    x = torch.zeros((64, 50), dtype=dtype)  # minibatch size 64, feature dimension 50
    w1 = torch.zeros((50, hidden_layer_size), dtype=dtype)
    w2 = torch.zeros((hidden_layer_size, 10), dtype=dtype)
    scores = two_layer_fc(x, [w1, w2])
    print(scores.size())  # you should see [64, 10]


two_layer_fc_test()


def three_layer_convnet(x, params):
    conv_w1, conv_b1, conv_w2, conv_b2, fc_w, fc_b = params
    scores = None
    channel_1, _, KH1, KW1 = conv_w1.shape
    channel_2, _, KH2, KW2 = conv_w2.shape
    conv_1 = F.conv2d(x, conv_w1, bias=conv_b1, padding=2)
    relu_1 = F.relu(conv_1)
    conv_2 = F.conv2d(relu_1, conv_w2, bias=conv_b2, padding=1)
    relu_2 = F.relu(conv_2)
    scores = flatten(relu_2).mm(fc_w) + fc_b
    return scores


def three_layer_convnet_test():
    x = torch.zeros((64, 3, 32, 32))  # minibatch size 64, image size [3, 32, 32]

    conv_w1 = torch.zeros((6, 3, 5, 5))  # [out_channel, in_channel, kernel_H, kernel_W]
    conv_b1 = torch.zeros((6,))  # out_channel
    conv_w2 = torch.zeros((9, 6, 3, 3))  # [out_channel, in_channel, kernel_H, kernel_W]
    conv_b2 = torch.zeros((9,))  # out_channel

    # you must calculate the shape of the tensor after two conv layers, before the fully-connected layer
    fc_w = torch.zeros((9 * 32 * 32, 10))
    fc_b = torch.zeros(10)

    scores = three_layer_convnet(x, [conv_w1, conv_b1, conv_w2, conv_b2, fc_w, fc_b])
    print(scores.size())  # you should see [64, 10]
    assert scores.size() == torch.Size([64, 10])


three_layer_convnet_test()


def random_weight(shape):
    if len(shape) == 2:  # FC weight
        fan_in = shape[0]
    else:
        fan_in = np.prod(shape[1:]) # conv weight [out_channel, in_channel, kH, kW]
    # randn is standard normal distribution generator.
    w = torch.randn(shape, device=device, dtype=dtype) * np.sqrt(2. / fan_in)
    w.requires_grad = True
    return w


def zero_weight(shape):
    return torch.zeros(shape, device=device, dtype=dtype, requires_grad=True)


# create a weight of shape [3 x 5]
# you should see the type `torch.cuda.FloatTensor` if you use GPU.
# Otherwise it should be `torch.FloatTensor`
print(random_weight((3, 5)))
assert random_weight((3, 5)).type() == 'torch.FloatTensor'
assert random_weight((3, 5)).dtype == torch.float32


def check_accuracy_part2(loader, model_fn, params):
    split = 'val' if loader.dataset.train else 'test'
    print('Checking accuracy on the %s set' % split)
    num_correct, num_samples = 0, 0
    with torch.no_grad():
        for x, y in loader:
            x = x.to(device=device, dtype=dtype)  # move to device, e.g. GPU
            y = y.to(device=device, dtype=torch.int64)
            scores = model_fn(x, params)
            _, preds = scores.max(1)
            num_correct += (preds == y).sum()
            num_samples += preds.size(0)
        acc = float(num_correct) / num_samples
        print('Got %d / %d correct (%.2f%%)' % (num_correct, num_samples, 100 * acc))
    return acc


def train_part2(model_fn, params, learning_rate):
    for t, (x, y) in enumerate(loader_train):
        # Move the data to the proper device (GPU or CPU)
        x = x.to(device=device, dtype=dtype)
        y = y.to(device=device, dtype=torch.long)

        # Forward pass: compute scores and loss
        scores = model_fn(x, params)
        loss = F.cross_entropy(scores, y)

        loss.backward()

        with torch.no_grad():
            for w in params:
                w -= learning_rate * w.grad

                # Manually zero the gradients after running the backward pass
                w.grad.zero_()

        if t % print_every == 0:
            print('Iteration %d, loss = %.4f' % (t, loss.item()))
            check_accuracy_part2(loader_val, model_fn, params)
            print()


hidden_layer_size = 400
learning_rate = 1e-2

w1 = random_weight((3 * HW * HW, hidden_layer_size))
w2 = random_weight((hidden_layer_size, 10))

train_part2(two_layer_fc, [w1, w2], learning_rate)
assert w1.is_leaf and w1.requires_grad and w1.grad is not None

learning_rate = 3e-3
channel_1 = 8
channel_2 = 4

conv_w1 = random_weight((channel_1, 3, 5, 5))  # [out_channel, in_channel, kernel_H, kernel_W]
conv_b1 = zero_weight((channel_1,))
conv_w2 = random_weight((channel_2, channel_1, 3, 3))
conv_b2 = zero_weight((channel_2,))
fc_w = random_weight((channel_2 * HW * HW, 10))
fc_b = zero_weight(10)

params = [conv_w1, conv_b1, conv_w2, conv_b2, fc_w, fc_b]
train_part2(three_layer_convnet, params, learning_rate)
acc_barebones = check_accuracy_part2(loader_test, three_layer_convnet, params)


class TwoLayerFC(nn.Module):
    def __init__(self, input_size, hidden_size, num_classes):
        super().__init__()
        # assign layer objects to class attributes
        self.fc1 = nn.Linear(input_size, hidden_size)
        # nn.init package contains convenient initialization methods
        # http://pytorch.org/docs/master/nn.html#torch-nn-init
        nn.init.kaiming_normal_(self.fc1.weight)
        self.fc2 = nn.Linear(hidden_size, num_classes)
        nn.init.kaiming_normal_(self.fc2.weight)

    def forward(self, x):
        # forward always defines connectivity
        x = flatten(x)
        scores = self.fc2(F.relu(self.fc1(x)))
        return scores


def test_TwoLayerFC():
    input_size = 50
    x = torch.zeros((64, input_size), dtype=dtype)  # minibatch size 64, feature dimension 50
    model = TwoLayerFC(input_size, 42, 10)
    scores = model(x)
    print(scores.size())  # you should see [64, 10]


test_TwoLayerFC()


class ThreeLayerConvNet(nn.Module):
    def __init__(self, in_channel, channel_1, channel_2, num_classes):
        super().__init__()
        self.conv_1 = nn.Conv2d(in_channels=in_channel, out_channels=channel_1, kernel_size=5, padding=2, bias=True)
        nn.init.kaiming_normal_(self.conv_1.weight)
        nn.init.constant_(self.conv_1.bias, 0)

        self.relu = F.relu

        self.conv_2 = nn.Conv2d(in_channels=channel_1, out_channels=channel_2, kernel_size=3, padding=1, bias=True)
        nn.init.kaiming_normal_(self.conv_2.weight)
        nn.init.constant_(self.conv_2.bias, 0)

        self.fc = nn.Linear(channel_2 * HW * HW, num_classes)

    def forward(self, x):
        scores = None
        conv_1 = self.relu(self.conv_1(x))
        conv_2 = self.relu(self.conv_2(conv_1))
        scores = self.fc(flatten(conv_2))
        return scores


def check_accuracy_part34(loader, model):
    if loader.dataset.train:
        print('Checking accuracy on validation set')
    else:
        print('Checking accuracy on test set')
    num_correct = 0
    num_samples = 0
    model.eval()  # set model to evaluation mode
    with torch.no_grad():
        for x, y in loader:
            x = x.to(device=device, dtype=dtype)  # move to device, e.g. GPU
            y = y.to(device=device, dtype=torch.long)
            scores = model(x)
            _, preds = scores.max(1)
            num_correct += (preds == y).sum()
            num_samples += preds.size(0)
        acc = float(num_correct) / num_samples
        print('Got %d / %d correct (%.2f)' % (num_correct, num_samples, 100 * acc))
    return acc


def train_part34(model, optimizer, epochs=1):
    model = model.to(device=device)  # move the model parameters to CPU/GPU
    for e in range(epochs):
        for t, (x, y) in enumerate(loader_train):
            model.train()  # put model to training mode
            x = x.to(device=device, dtype=dtype)  # move to device, e.g. GPU
            y = y.to(device=device, dtype=torch.long)

            scores = model(x)
            loss = F.cross_entropy(scores, y)

            # Zero out all of the gradients for the variables which the optimizer
            # will update.
            optimizer.zero_grad()

            # This is the backwards pass: compute the gradient of the loss with
            # respect to each  parameter of the model.
            loss.backward()

            # Actually update the parameters of the model using the gradients
            # computed by the backwards pass.
            optimizer.step()

            if t % print_every == 0:
                print('Iteration %d, loss = %.4f' % (t, loss.item()))
                check_accuracy_part34(loader_val, model)
                print()


model = TwoLayerFC(3 * HW * HW, 400, 10)
optimizer = optim.SGD(model.parameters(), lr=1e-2)
train_part34(model, optimizer)

model = ThreeLayerConvNet(in_channel=3, channel_1=12, channel_2=8, num_classes=10)
optimizer = optim.SGD(model.parameters(), lr=1e-2, momentum=0.9, nesterov=True)
train_part34(model, optimizer)


# We need to wrap `flatten` function in a module in order to stack it
# in nn.Sequential
class Flatten(nn.Module):
    def forward(self, x):
        return flatten(x)


hidden_layer_size = 400
learning_rate = 1e-2

model = nn.Sequential(
    Flatten(),
    nn.Linear(3 * HW * HW, hidden_layer_size),
    nn.ReLU(),
    nn.Linear(hidden_layer_size, 10),
)

# you can use Nesterov momentum in optim.SGD
optimizer = optim.SGD(model.parameters(), lr=learning_rate,
                      momentum=0.9, nesterov=True)

train_part34(model, optimizer)

channel_1, channel_2, channel_3 = 8, 8, 6
model = nn.Sequential(
    nn.Conv2d(in_channels=3, out_channels=channel_1, kernel_size=5, padding=2, bias=True),
    nn.ReLU(),
    nn.BatchNorm2d(channel_1),
    nn.Conv2d(in_channels=channel_1, out_channels=channel_2, kernel_size=3, padding=1, stride=2, bias=True),
    nn.ReLU(),
    nn.BatchNorm2d(channel_2),
    nn.Conv2d(in_channels=channel_2, out_channels=channel_3, kernel_size=2, padding=1, stride=1, bias=True),
    nn.ReLU(),
    nn.MaxPool2d(kernel_size=2, padding=1, stride=2),
    Flatten(),
    nn.Linear(channel_3 * 5 * 5, 12 * 5),
    nn.Linear(12 * 5, 10)
)
optimizer = optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-08, weight_decay=0)
train_part34(model, optimizer, epochs=2)
best_model = model
acc = check_accuracy_part34(loader_test, best_model)
print('test accuracy %.2f' % (100 * acc))
assert 0.0 <= acc <= 1.0 and model[2].num_batches_tracked.item() == 12
