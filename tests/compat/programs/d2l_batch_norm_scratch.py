"""Dive into Deep Learning (d2l.ai, PyTorch), "Batch Normalization" from scratch: batch_norm()
branching on torch.is_grad_enabled() (prediction mode uses moving statistics), X.mean(dim=0) for
fully connected and X.mean(dim=(0, 2, 3), keepdim=True) for conv layers, moving averages updated
as momentum * moving + (1 - momentum) * batch and returned with .data, a BatchNorm module keeping
moving_mean / moving_var as plain tensors moved with .to(X.device), LeNet with it
(nn.LazyConv2d, nn.LazyLinear, nn.Sigmoid, nn.AvgPool2d), the learned gamma / beta read back
as net[1].gamma.reshape((-1,)), and the concise nn.LazyBatchNorm2d / BatchNorm1d version."""
import torch
from torch import nn


def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum):
    # Use is_grad_enabled to determine whether we are in training mode
    if not torch.is_grad_enabled():
        # In prediction mode, use mean and variance obtained by moving average
        X_hat = (X - moving_mean) / torch.sqrt(moving_var + eps)
    else:
        assert len(X.shape) in (2, 4)
        if len(X.shape) == 2:
            # When using a fully connected layer, calculate the mean and
            # variance on the feature dimension
            mean = X.mean(dim=0)
            var = ((X - mean) ** 2).mean(dim=0)
        else:
            # When using a two-dimensional convolutional layer, calculate the
            # mean and variance on the channel dimension (axis=1). Here we
            # need to maintain the shape of X, so that the broadcasting
            # operation can be carried out later
            mean = X.mean(dim=(0, 2, 3), keepdim=True)
            var = ((X - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True)
        # In training mode, the current mean and variance are used
        X_hat = (X - mean) / torch.sqrt(var + eps)
        # Update the mean and variance using moving average
        moving_mean = (1.0 - momentum) * moving_mean + momentum * mean
        moving_var = (1.0 - momentum) * moving_var + momentum * var
    Y = gamma * X_hat + beta  # Scale and shift
    return Y, moving_mean.data, moving_var.data


class BatchNorm(nn.Module):
    # num_features: the number of outputs for a fully connected layer or the
    # number of output channels for a convolutional layer. num_dims: 2 for a
    # fully connected layer and 4 for a convolutional layer
    def __init__(self, num_features, num_dims):
        super().__init__()
        if num_dims == 2:
            shape = (1, num_features)
        else:
            shape = (1, num_features, 1, 1)
        # The scale parameter and the shift parameter (model parameters) are
        # initialized to 1 and 0, respectively
        self.gamma = nn.Parameter(torch.ones(shape))
        self.beta = nn.Parameter(torch.zeros(shape))
        # The variables that are not model parameters are initialized to 0 and 1
        self.moving_mean = torch.zeros(shape)
        self.moving_var = torch.ones(shape)

    def forward(self, X):
        # If X is not on the main memory, copy moving_mean and moving_var to
        # the device where X is located
        if self.moving_mean.device != X.device:
            self.moving_mean = self.moving_mean.to(X.device)
            self.moving_var = self.moving_var.to(X.device)
        # Save the updated moving_mean and moving_var
        Y, self.moving_mean, self.moving_var = batch_norm(
            X, self.gamma, self.beta, self.moving_mean,
            self.moving_var, eps=1e-5, momentum=0.1)
        return Y


torch.manual_seed(0)
bn = BatchNorm(6, num_dims=4)
X = torch.randn(8, 6, 5, 5) * 3 + 1
Y = bn(X)
print(Y.shape, Y.mean(dim=(0, 2, 3)).abs().max() < 1e-5)
print(bn.moving_mean.reshape(-1))
ref = nn.BatchNorm2d(6, momentum=0.1)
Yref = ref(X)
assert torch.allclose(Y, Yref, atol=1e-4)
assert torch.allclose(bn.moving_mean, ref.running_mean.reshape(1, 6, 1, 1), atol=1e-6)
# torch's running_var uses the unbiased variance; the scratch version the biased one
n = 8 * 5 * 5
assert torch.allclose(((bn.moving_var - 0.9) / 0.1) * n / (n - 1),
                      ((ref.running_var - 0.9) / 0.1).reshape(1, 6, 1, 1), atol=1e-4)
with torch.no_grad():
    Yeval = bn(X)
ref.eval()
print(torch.allclose(Yeval, ref(X), atol=1e-2))

net = nn.Sequential(
    nn.LazyConv2d(6, kernel_size=5), BatchNorm(6, num_dims=4), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.LazyConv2d(16, kernel_size=5), BatchNorm(16, num_dims=4), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2), nn.Flatten(),
    nn.LazyLinear(120), BatchNorm(120, num_dims=2), nn.Sigmoid(),
    nn.LazyLinear(84), BatchNorm(84, num_dims=2), nn.Sigmoid(),
    nn.LazyLinear(3))
X = torch.randn(24, 1, 28, 28)
y = (X.mean(dim=(1, 2, 3)) > 0).long() + (X[:, 0, :14].mean(dim=(1, 2)) > 0).long()
for layer in net:
    X_ = X if layer is net[0] else X_
    X_ = layer(X_)
    print(layer.__class__.__name__, 'output shape:\t', X_.shape)
optimizer = torch.optim.SGD(net.parameters(), lr=0.5)
losses = []
for epoch in range(20):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(net(X), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f}")
assert losses[-1] < losses[0]
print(net[1].gamma.reshape((-1,)), net[1].beta.reshape((-1,)))
assert net[1].gamma.shape == (1, 6, 1, 1)

net = nn.Sequential(
    nn.LazyConv2d(6, kernel_size=5), nn.LazyBatchNorm2d(), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2), nn.Flatten(),
    nn.LazyLinear(84), nn.BatchNorm1d(84), nn.Sigmoid(), nn.LazyLinear(3))
out = net(X)
print(out.shape, net[1].running_mean.shape, net[1].num_batches_tracked)
assert int(net[1].num_batches_tracked) == 1
net.eval()
with torch.no_grad():
    print(net(X[:2]).shape)
