"""locuslab/TCN (Bai, Kolter & Koltun, "An Empirical Evaluation of Generic Convolutional and Recurrent
Networks for Sequence Modeling"), TCN/tcn.py + TCN/char_cnn/model.py + char_cnn_test.py at toy
size: Chomp1d (x[:, :, :-self.chomp_size].contiguous()), TemporalBlock with
weight_norm(nn.Conv1d(..., dilation=dilation, padding=padding)) from torch.nn.utils (the
deprecated spelling: weight_g / weight_v parameters and a forward pre-hook),
init_weights() calling self.conv1.weight.data.normal_(0, 0.01) on the hook-computed weight, the 1x1
downsample, TemporalConvNet with dilation_size = 2 ** i, the character-level TCN language model
(nn.Embedding encoder, tied decoder self.decoder.weight = self.encoder.weight, emb.transpose(1, 2)
into the TCN), evaluate()/train() with criterion(output.view(-1, n_characters), target.view(-1)),
clip_grad_norm_, and the newer torch.nn.utils.parametrizations.weight_norm (state_dict keys
parametrizations.weight.original0 / original1, the ParametrizedConv1d class) plus
torch.nn.utils.parametrize.register_parametrization of a custom constraint, removed again with
parametrize.remove_parametrizations."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import parametrize, weight_norm
from torch.nn.utils.parametrizations import weight_norm as weight_norm_p


class Chomp1d(nn.Module):
    def __init__(self, chomp_size):
        super(Chomp1d, self).__init__()
        self.chomp_size = chomp_size

    def forward(self, x):
        return x[:, :, :-self.chomp_size].contiguous()


class TemporalBlock(nn.Module):
    def __init__(self, n_inputs, n_outputs, kernel_size, stride, dilation, padding, dropout=0.2):
        super(TemporalBlock, self).__init__()
        self.conv1 = weight_norm(nn.Conv1d(n_inputs, n_outputs, kernel_size,
                                           stride=stride, padding=padding, dilation=dilation))
        self.chomp1 = Chomp1d(padding)
        self.relu1 = nn.ReLU()
        self.dropout1 = nn.Dropout(dropout)
        self.conv2 = weight_norm(nn.Conv1d(n_outputs, n_outputs, kernel_size,
                                           stride=stride, padding=padding, dilation=dilation))
        self.chomp2 = Chomp1d(padding)
        self.relu2 = nn.ReLU()
        self.dropout2 = nn.Dropout(dropout)
        self.net = nn.Sequential(self.conv1, self.chomp1, self.relu1, self.dropout1,
                                 self.conv2, self.chomp2, self.relu2, self.dropout2)
        self.downsample = nn.Conv1d(n_inputs, n_outputs, 1) if n_inputs != n_outputs else None
        self.relu = nn.ReLU()
        self.init_weights()

    def init_weights(self):
        self.conv1.weight.data.normal_(0, 0.01)
        self.conv2.weight.data.normal_(0, 0.01)
        if self.downsample is not None:
            self.downsample.weight.data.normal_(0, 0.01)

    def forward(self, x):
        out = self.net(x)
        res = x if self.downsample is None else self.downsample(x)
        return self.relu(out + res)


class TemporalConvNet(nn.Module):
    def __init__(self, num_inputs, num_channels, kernel_size=2, dropout=0.2):
        super(TemporalConvNet, self).__init__()
        layers = []
        num_levels = len(num_channels)
        for i in range(num_levels):
            dilation_size = 2 ** i
            in_channels = num_inputs if i == 0 else num_channels[i - 1]
            out_channels = num_channels[i]
            layers += [TemporalBlock(in_channels, out_channels, kernel_size, stride=1, dilation=dilation_size,
                                     padding=(kernel_size - 1) * dilation_size, dropout=dropout)]
        self.network = nn.Sequential(*layers)

    def forward(self, x):
        return self.network(x)


class TCN(nn.Module):
    def __init__(self, input_size, output_size, num_channels, kernel_size=2, dropout=0.2, emb_dropout=0.2):
        super(TCN, self).__init__()
        self.encoder = nn.Embedding(output_size, input_size)
        self.tcn = TemporalConvNet(input_size, num_channels, kernel_size=kernel_size, dropout=dropout)
        self.decoder = nn.Linear(input_size, output_size)
        self.decoder.weight = self.encoder.weight
        self.drop = nn.Dropout(emb_dropout)
        self.init_weights()

    def init_weights(self):
        self.encoder.weight.data.normal_(0, 0.01)
        self.decoder.bias.data.fill_(0)
        self.decoder.weight.data.normal_(0, 0.01)

    def forward(self, x):
        emb = self.drop(self.encoder(x))
        y = self.tcn(emb.transpose(1, 2))
        o = self.decoder(y.transpose(1, 2))
        return o.contiguous()


torch.manual_seed(1111)
block = TemporalBlock(4, 6, kernel_size=3, stride=1, dilation=2, padding=4, dropout=0.0)
print(block.conv1)
print(sorted(block.state_dict().keys()))
assert "conv1.weight" not in block.state_dict() and block.conv1.weight_g.shape == (6, 1, 1)
assert block.conv1.weight_v.shape == (6, 4, 3)
# the forward pre-hook recomputes weight from g and v, so init_weights' normal_ is overwritten
x = torch.randn(2, 4, 10)
y = block(x)
w = block.conv1.weight_v * (block.conv1.weight_g / block.conv1.weight_v.norm(dim=(1, 2), keepdim=True))
assert torch.allclose(block.conv1.weight, w)
assert y.shape == (2, 6, 10)
# causal: output at time t does not depend on inputs after t
x2 = x.clone()
x2[:, :, 7:] = 5.0
assert torch.allclose(block(x2)[:, :, :7], y[:, :, :7], atol=1e-6)
y.sum().backward()
assert block.conv1.weight_g.grad is not None and block.conv1.weight_v.grad.shape == (6, 4, 3)

text = "tcn models read characters through dilated causal convolutions. " * 8
chars = sorted(set(text))
n_characters = len(chars)
data = torch.tensor([chars.index(c) for c in text])
seq_len, batch_size = 32, 16
model = TCN(16, n_characters, [24, 24, 16], kernel_size=3, dropout=0.1, emb_dropout=0.1)
assert model.decoder.weight is model.encoder.weight
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
print(sum(p.numel() for p in model.parameters()))


def get_batch(i):
    starts = (torch.arange(batch_size) * 7 + i) % (len(data) - seq_len - 1)
    inp = torch.stack([data[s:s + seq_len] for s in starts])
    target = torch.stack([data[s + 1:s + seq_len + 1] for s in starts])
    return inp, target


def evaluate():
    model.eval()
    with torch.no_grad():
        inp, target = get_batch(3)
        output = model(inp)
        loss = criterion(output.view(-1, n_characters), target.view(-1))
        return loss.item()


start = evaluate()
for step in range(60):
    model.train()
    inp, target = get_batch(step)
    optimizer.zero_grad()
    output = model(inp)
    loss = criterion(output.view(-1, n_characters), target.view(-1))
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    optimizer.step()
end = evaluate()
print(f"eval loss {start:.3f} -> {end:.3f}, bpc {end / math.log(2):.3f}")
assert end < 0.75 * start

# removing the hook gives back a plain weight parameter holding the current value
conv = model.tcn.network[0].conv1
w_before = conv.weight.detach().clone()
torch.nn.utils.remove_weight_norm(conv)
assert isinstance(conv.weight, nn.Parameter) and "weight_g" not in conv.state_dict()
assert torch.allclose(conv.weight, w_before)

# the current spelling: a parametrization
conv = weight_norm_p(nn.Conv1d(4, 6, 3, padding=2, dilation=1))
print(conv)
print(list(conv.state_dict().keys()))
assert type(conv).__name__ == "ParametrizedConv1d" and isinstance(conv, nn.Conv1d)
g, v = conv.parametrizations.weight.original0, conv.parametrizations.weight.original1
assert g.shape == (6, 1, 1) and torch.allclose(conv.weight, v)
with torch.no_grad():
    g.mul_(2.0)
assert torch.allclose(conv.weight, 2 * v)
out = conv(torch.randn(2, 4, 9))
out.pow(2).mean().backward()
assert g.grad.shape == (6, 1, 1) and v.grad.shape == (6, 4, 3)
parametrize.remove_parametrizations(conv, "weight")
assert type(conv) is nn.Conv1d and list(conv.state_dict().keys()) == ["bias", "weight"]


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Symmetric())
print(layer)
assert torch.allclose(layer.weight, layer.weight.T)
assert parametrize.is_parametrized(layer) and not parametrize.is_parametrized(layer, "bias")
opt = torch.optim.SGD(layer.parameters(), lr=0.1)
for _ in range(5):
    loss = (layer(torch.randn(8, 3)) - torch.randn(8, 3)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
assert torch.allclose(layer.weight, layer.weight.T)
with parametrize.cached():
    assert layer.weight is layer.weight
