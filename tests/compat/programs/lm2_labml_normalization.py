"""labml.ai's annotated normalization layers (labml_nn/normalization: batch_norm, layer_norm,
instance_norm, group_norm, batch_channel_norm, weight_standardization with its Conv2d, and
deep_norm's DeepNorm), as written (labml's logger.inspect printed with print), each checked
against the torch.nn layer it re-implements on a small CNN-shaped batch: the variance as
mean(x ** 2) - mean ** 2 over dim=[0, 2] / dim=[-1] lists, buffers registered with
register_buffer('exp_mean', ...) and then re-assigned (self.exp_mean = (1 - momentum) * ... ),
torch.Size([n]) and Size equality with x.shape[-len(...):], EstimatedBatchNorm updating under
torch.no_grad(), weight_standardization with `c_out, c_in, *kernel_shape = weight.shape` and
torch.var_mean(weight, dim=1, keepdim=True), an nn.Conv2d subclass whose forward calls F.conv2d
with self.stride / padding / dilation / groups, and a few SGD steps through each layer."""
from typing import Union, List

import torch
from torch import nn, Size
from torch.nn import functional as F

torch.manual_seed(0)


class BatchNorm(nn.Module):
    def __init__(self, channels: int, *,
                 eps: float = 1e-5, momentum: float = 0.1,
                 affine: bool = True, track_running_stats: bool = True):
        super().__init__()
        self.channels = channels
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.scale = nn.Parameter(torch.ones(channels))
            self.shift = nn.Parameter(torch.zeros(channels))
        if self.track_running_stats:
            self.register_buffer('exp_mean', torch.zeros(channels))
            self.register_buffer('exp_var', torch.ones(channels))

    def forward(self, x: torch.Tensor):
        x_shape = x.shape
        batch_size = x_shape[0]
        assert self.channels == x.shape[1]
        x = x.view(batch_size, self.channels, -1)
        if self.training or not self.track_running_stats:
            mean = x.mean(dim=[0, 2])
            mean_x2 = (x ** 2).mean(dim=[0, 2])
            var = mean_x2 - mean ** 2
            if self.training and self.track_running_stats:
                self.exp_mean = (1 - self.momentum) * self.exp_mean + self.momentum * mean
                self.exp_var = (1 - self.momentum) * self.exp_var + self.momentum * var
        else:
            mean = self.exp_mean
            var = self.exp_var
        x_norm = (x - mean.view(1, -1, 1)) / torch.sqrt(var + self.eps).view(1, -1, 1)
        if self.affine:
            x_norm = self.scale.view(1, -1, 1) * x_norm + self.shift.view(1, -1, 1)
        return x_norm.view(x_shape)


class LayerNorm(nn.Module):
    def __init__(self, normalized_shape: Union[int, List[int], Size], *,
                 eps: float = 1e-5,
                 elementwise_affine: bool = True):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = torch.Size([normalized_shape])
        elif isinstance(normalized_shape, list):
            normalized_shape = torch.Size(normalized_shape)
        assert isinstance(normalized_shape, torch.Size)
        self.normalized_shape = normalized_shape
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if self.elementwise_affine:
            self.gain = nn.Parameter(torch.ones(normalized_shape))
            self.bias = nn.Parameter(torch.zeros(normalized_shape))

    def forward(self, x: torch.Tensor):
        assert self.normalized_shape == x.shape[-len(self.normalized_shape):]
        dims = [-(i + 1) for i in range(len(self.normalized_shape))]
        mean = x.mean(dim=dims, keepdim=True)
        mean_x2 = (x ** 2).mean(dim=dims, keepdim=True)
        var = mean_x2 - mean ** 2
        x_norm = (x - mean) / torch.sqrt(var + self.eps)
        if self.elementwise_affine:
            x_norm = self.gain * x_norm + self.bias
        return x_norm


class InstanceNorm(nn.Module):
    def __init__(self, channels: int, *,
                 eps: float = 1e-5, affine: bool = True):
        super().__init__()
        self.channels = channels
        self.eps = eps
        self.affine = affine
        if self.affine:
            self.scale = nn.Parameter(torch.ones(channels))
            self.shift = nn.Parameter(torch.zeros(channels))

    def forward(self, x: torch.Tensor):
        x_shape = x.shape
        batch_size = x_shape[0]
        assert self.channels == x.shape[1]
        x = x.view(batch_size, self.channels, -1)
        mean = x.mean(dim=[-1], keepdim=True)
        mean_x2 = (x ** 2).mean(dim=[-1], keepdim=True)
        var = mean_x2 - mean ** 2
        x_norm = (x - mean) / torch.sqrt(var + self.eps)
        x_norm = x_norm.view(batch_size, self.channels, -1)
        if self.affine:
            x_norm = self.scale.view(1, -1, 1) * x_norm + self.shift.view(1, -1, 1)
        return x_norm.view(x_shape)


class GroupNorm(nn.Module):
    def __init__(self, groups: int, channels: int, *,
                 eps: float = 1e-5, affine: bool = True):
        super().__init__()
        assert channels % groups == 0, "Number of channels should be evenly divisible by the number of groups"
        self.groups = groups
        self.channels = channels
        self.eps = eps
        self.affine = affine
        if self.affine:
            self.scale = nn.Parameter(torch.ones(channels))
            self.shift = nn.Parameter(torch.zeros(channels))

    def forward(self, x: torch.Tensor):
        x_shape = x.shape
        batch_size = x_shape[0]
        assert self.channels == x.shape[1]
        x = x.view(batch_size, self.groups, -1)
        mean = x.mean(dim=[-1], keepdim=True)
        mean_x2 = (x ** 2).mean(dim=[-1], keepdim=True)
        var = mean_x2 - mean ** 2
        x_norm = (x - mean) / torch.sqrt(var + self.eps)
        if self.affine:
            x_norm = x_norm.view(batch_size, self.channels, -1)
            x_norm = self.scale.view(1, -1, 1) * x_norm + self.shift.view(1, -1, 1)
        return x_norm.view(x_shape)


class EstimatedBatchNorm(nn.Module):
    def __init__(self, channels: int,
                 eps: float = 1e-5, momentum: float = 0.1, affine: bool = True):
        super().__init__()
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.channels = channels
        if self.affine:
            self.scale = nn.Parameter(torch.ones(channels))
            self.shift = nn.Parameter(torch.zeros(channels))
        self.register_buffer('exp_mean', torch.zeros(channels))
        self.register_buffer('exp_var', torch.ones(channels))

    def forward(self, x: torch.Tensor):
        x_shape = x.shape
        batch_size = x_shape[0]
        assert self.channels == x.shape[1]
        x = x.view(batch_size, self.channels, -1)
        if self.training:
            with torch.no_grad():
                mean = x.mean(dim=[0, 2])
                mean_x2 = (x ** 2).mean(dim=[0, 2])
                var = mean_x2 - mean ** 2
                self.exp_mean = (1 - self.momentum) * self.exp_mean + self.momentum * mean
                self.exp_var = (1 - self.momentum) * self.exp_var + self.momentum * var
        x_norm = (x - self.exp_mean.view(1, -1, 1)) / torch.sqrt(self.exp_var + self.eps).view(1, -1, 1)
        if self.affine:
            x_norm = self.scale.view(1, -1, 1) * x_norm + self.shift.view(1, -1, 1)
        return x_norm.view(x_shape)


class ChannelNorm(nn.Module):
    def __init__(self, channels, groups,
                 eps: float = 1e-5, affine: bool = True):
        super().__init__()
        self.channels = channels
        self.groups = groups
        self.eps = eps
        self.affine = affine
        if self.affine:
            self.scale = nn.Parameter(torch.ones(groups))
            self.shift = nn.Parameter(torch.zeros(groups))

    def forward(self, x: torch.Tensor):
        x_shape = x.shape
        batch_size = x_shape[0]
        assert self.channels == x.shape[1]
        x = x.view(batch_size, self.groups, -1)
        mean = x.mean(dim=[-1], keepdim=True)
        mean_x2 = (x ** 2).mean(dim=[-1], keepdim=True)
        var = mean_x2 - mean ** 2
        x_norm = (x - mean) / torch.sqrt(var + self.eps)
        if self.affine:
            x_norm = self.scale.view(1, -1, 1) * x_norm + self.shift.view(1, -1, 1)
        return x_norm.view(x_shape)


class BatchChannelNorm(nn.Module):
    def __init__(self, channels: int, groups: int,
                 eps: float = 1e-5, momentum: float = 0.1, estimate: bool = True):
        super().__init__()
        if estimate:
            self.batch_norm = EstimatedBatchNorm(channels,
                                                 eps=eps, momentum=momentum)
        else:
            self.batch_norm = BatchNorm(channels,
                                        eps=eps, momentum=momentum)
        self.channel_norm = ChannelNorm(channels, groups, eps)

    def forward(self, x):
        x = self.batch_norm(x)
        return self.channel_norm(x)


def weight_standardization(weight: torch.Tensor, eps: float):
    c_out, c_in, *kernel_shape = weight.shape
    weight = weight.view(c_out, -1)
    var, mean = torch.var_mean(weight, dim=1, keepdim=True)
    weight = (weight - mean) / (torch.sqrt(var + eps))
    return weight.view(c_out, c_in, *kernel_shape)


class Conv2d(nn.Conv2d):
    def __init__(self, in_channels, out_channels, kernel_size,
                 stride=1,
                 padding=0,
                 dilation=1,
                 groups: int = 1,
                 bias: bool = True,
                 padding_mode: str = 'zeros',
                 eps: float = 1e-5):
        super(Conv2d, self).__init__(in_channels, out_channels, kernel_size,
                                     stride=stride,
                                     padding=padding,
                                     dilation=dilation,
                                     groups=groups,
                                     bias=bias,
                                     padding_mode=padding_mode)
        self.eps = eps

    def forward(self, x: torch.Tensor):
        return F.conv2d(x, weight_standardization(self.weight, self.eps), self.bias, self.stride,
                        self.padding, self.dilation, self.groups)


class DeepNorm(nn.Module):
    def __init__(self, alpha: float, normalized_shape: Union[int, List[int], Size], *,
                 eps: float = 1e-5,
                 elementwise_affine: bool = True):
        super().__init__()
        self.alpha = alpha
        self.layer_norm = LayerNorm(normalized_shape, eps=eps, elementwise_affine=elementwise_affine)

    def forward(self, x: torch.Tensor, gx: torch.Tensor):
        return self.layer_norm(x + self.alpha * gx)


# ---------------------------------------------------------------- the _test()s and checks
x = torch.zeros([2, 3, 2, 4])
print(x.shape)
bn = BatchNorm(3)
x = bn(x)
print(x.shape)
print(bn.exp_var.shape)

x = torch.zeros([2, 3, 2, 4])
ln = LayerNorm(x.shape[2:])
x = ln(x)
print(x.shape, ln.gain.shape)

x = torch.zeros([2, 6, 2, 4])
print(GroupNorm(2, 6)(x).shape, InstanceNorm(6)(x).shape)

conv2d = Conv2d(10, 20, 5)
print(conv2d.weight.shape)
print(conv2d(torch.zeros(2, 10, 12, 12)).shape)

x = torch.randn(4, 6, 5, 5) * 3 + 1
checks = [
    ('BatchNorm', BatchNorm(6), nn.BatchNorm2d(6)),
    ('LayerNorm', LayerNorm([6, 5, 5]), nn.LayerNorm([6, 5, 5])),
    ('InstanceNorm', InstanceNorm(6), nn.InstanceNorm2d(6, affine=True)),
    ('GroupNorm', GroupNorm(3, 6), nn.GroupNorm(3, 6)),
]
for name, mine, ref in checks:
    diff = (mine(x) - ref(x)).abs().max().item()
    print(name, 'matches torch.nn:', diff < 1e-4)
    assert diff < 1e-4, (name, diff)

bn, ref = BatchNorm(6), nn.BatchNorm2d(6)
for _ in range(3):
    bn(x), ref(x)
print('running mean matches:', torch.allclose(bn.exp_mean, ref.running_mean, atol=1e-5))
assert torch.allclose(bn.exp_mean, ref.running_mean, atol=1e-5)
assert 'exp_mean' in dict(bn.named_buffers()) and bn.exp_mean.requires_grad is False
bn.eval()
ref.eval()
print('eval (biased running var) close:', (bn(x) - ref(x)).abs().max().item() < 0.05)

w = torch.randn(8, 3, 3, 3)
ws = weight_standardization(w, 1e-5)
print(ws.view(8, -1).mean(1).abs().max().item() < 1e-5, ws.shape)
assert torch.allclose(ws.view(8, -1).var(1), torch.ones(8), atol=1e-3)

dn = DeepNorm(0.5, [6])
print(dn(torch.ones(2, 6), torch.arange(12.).view(2, 6)).sum(-1))

model = nn.Sequential(Conv2d(6, 8, 3, padding=1), BatchChannelNorm(8, 2), nn.ReLU(),
                      Conv2d(8, 4, 3, stride=2), GroupNorm(2, 4), nn.Flatten(), nn.Linear(16, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
y = (x.mean((1, 2, 3)) > 1).long()
losses = []
for step in range(10):
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
print([round(l, 4) for l in losses[::3]])
assert losses[-1] < losses[0]
print(model[1].batch_norm.exp_var.round(decimals=4))
