"""pytorch/examples mnist_forward_forward/main.py (Hinton's Forward-Forward algorithm) on
synthetic 'digits': overlay_y_on_x writing the label into the first 10 pixels
(x_[range(x.shape[0]), y] = x.max()), get_y_neg drawing a wrong label per sample with
torch.randint, a Layer(nn.Linear) subclass with its own Adam optimizer, a forward that
normalises x / (x.norm(2, 1, keepdim=True) + 1e-4) and a train() that overrides Module.train,
the goodness h.pow(2).mean(1) and loss log1p(exp(cat([-g_pos + threshold, g_neg - threshold]))),
and predict() taking goodness_per_label.argmax(1)."""
import argparse

import torch
import torch.nn as nn
from torch.optim import Adam

args = argparse.Namespace(lr=0.03, threshold=2.0, epochs=300, log_interval=100)
device = torch.device("cpu")


def get_y_neg(y):
    y_neg = y.clone()
    for idx, y_samp in enumerate(y):
        allowed_indices = list(range(10))
        allowed_indices.remove(y_samp.item())
        y_neg[idx] = torch.tensor(allowed_indices)[
            torch.randint(len(allowed_indices), size=(1,))
        ].item()
    return y_neg.to(device)


def overlay_y_on_x(x, y, classes=10):
    x_ = x.clone()
    x_[:, :classes] *= 0.0
    x_[range(x.shape[0]), y] = x.max()
    return x_


class Net(torch.nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.layers = []
        for d in range(len(dims) - 1):
            self.layers = self.layers + [Layer(dims[d], dims[d + 1]).to(device)]

    def predict(self, x):
        goodness_per_label = []
        for label in range(10):
            h = overlay_y_on_x(x, label)
            goodness = []
            for layer in self.layers:
                h = layer(h)
                goodness = goodness + [h.pow(2).mean(1)]
            goodness_per_label += [sum(goodness).unsqueeze(1)]
        goodness_per_label = torch.cat(goodness_per_label, 1)
        return goodness_per_label.argmax(1)

    def train(self, x_pos, x_neg):
        h_pos, h_neg = x_pos, x_neg
        for i, layer in enumerate(self.layers):
            print("training layer: ", i)
            h_pos, h_neg = layer.train(h_pos, h_neg)


class Layer(nn.Linear):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__(in_features, out_features, bias, device, dtype)
        self.relu = torch.nn.ReLU()
        self.opt = Adam(self.parameters(), lr=args.lr)
        self.threshold = args.threshold
        self.num_epochs = args.epochs

    def forward(self, x):
        x_direction = x / (x.norm(2, 1, keepdim=True) + 1e-4)
        return self.relu(torch.mm(x_direction, self.weight.T) + self.bias.unsqueeze(0))

    def train(self, x_pos, x_neg):
        for i in range(self.num_epochs):
            g_pos = self.forward(x_pos).pow(2).mean(1)
            g_neg = self.forward(x_neg).pow(2).mean(1)
            loss = torch.log1p(
                torch.exp(
                    torch.cat([-g_pos + self.threshold, g_neg - self.threshold])
                )
            ).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            if i % args.log_interval == 0:
                print("Loss: ", loss.item())
        return self.forward(x_pos).detach(), self.forward(x_neg).detach()


torch.manual_seed(1)
# 10 prototype "digits" of 64 pixels; samples are noisy copies
prototypes = torch.rand(10, 64)
y = torch.randint(0, 10, (200,))
x = prototypes[y] + 0.1 * torch.randn(200, 64)
net = Net([64, 100, 100])
x_pos = overlay_y_on_x(x, y)
y_neg = get_y_neg(y)
assert (y_neg != y).all()
x_neg = overlay_y_on_x(x, y_neg)
assert torch.equal(x_pos[torch.arange(200), y], x.max().expand(200))
net.train(x_pos, x_neg)
train_error = 1.0 - net.predict(x).eq(y).float().mean().item()
print("train error:", train_error)
assert train_error < 0.5, train_error
