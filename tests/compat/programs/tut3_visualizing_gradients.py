"""PyTorch tutorial "Visualizing Gradients" (intermediate_source/visualizing_gradients_tutorial.py),
without the plot: fc_layer stacks (nn.Linear, norm_layer(out_size), nn.Sigmoid) with
norm_layer = nn.BatchNorm1d or nn.Identity, torch.flatten(x, 1), forward hooks registered on every
leaf module (any(layer.children()) is False) that attach output.register_hook(...) backward hooks
collecting (name, grad), ten SGD(momentum=0.9) steps on dummy data, and get_grads' mean absolute
gradient per layer: the BatchNorm model keeps its early-layer gradients, the sigmoid-only one
lets them vanish."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


def fc_layer(in_size, out_size, norm_layer):
    """Return a stack of linear->norm->sigmoid layers"""
    return nn.Sequential(nn.Linear(in_size, out_size), norm_layer(out_size), nn.Sigmoid())


class Net(nn.Module):
    """Define a network that has num_layers of linear->norm->sigmoid transformations"""
    def __init__(self, in_size=28*28, hidden_size=128,
                 out_size=10, num_layers=3, batchnorm=False):
        super().__init__()
        if batchnorm is False:
            norm_layer = nn.Identity
        else:
            norm_layer = nn.BatchNorm1d

        layers = []
        layers.append(fc_layer(in_size, hidden_size, norm_layer))

        for i in range(num_layers-1):
            layers.append(fc_layer(hidden_size, hidden_size, norm_layer))

        layers.append(nn.Linear(hidden_size, out_size))

        self.layers = nn.Sequential(*layers)

    def forward(self, x):
        x = torch.flatten(x, 1)
        return self.layers(x)


torch.manual_seed(0)
# set up dummy data
x = torch.randn(10, 28, 28)
y = torch.randint(10, (10, ))

# init model
model_bn = Net(batchnorm=True, num_layers=3)
model_nobn = Net(batchnorm=False, num_layers=3)

model_bn.train()
model_nobn.train()

optimizer_bn = optim.SGD(model_bn.parameters(), lr=0.01, momentum=0.9)
optimizer_nobn = optim.SGD(model_nobn.parameters(), lr=0.01, momentum=0.9)

print(model_bn.layers[0])
print(model_nobn.layers[0])
assert isinstance(model_bn.layers[0][1], nn.BatchNorm1d)
assert isinstance(model_nobn.layers[0][1], nn.Identity)


def hook_forward(module_name, grads, hook_backward):
    def hook(module, args, output):
        """Forward pass hook which attaches backward pass hooks to intermediate tensors"""
        output.register_hook(hook_backward(module_name, grads))
    return hook


def hook_backward(module_name, grads):
    def hook(grad):
        """Backward pass hook which appends gradients"""
        grads.append((module_name, grad))
    return hook


def get_all_layers(model, hook_forward, hook_backward):
    """Register forward pass hook (which registers a backward hook) to model outputs"""
    layers = dict()
    grads = []
    for name, layer in model.named_modules():
        # skip Sequential and/or wrapper modules
        if any(layer.children()) is False:
            layers[layer] = name
            layer.register_forward_hook(hook_forward(name, grads, hook_backward))
    return layers, grads


# register hooks
layers_bn, grads_bn = get_all_layers(model_bn, hook_forward, hook_backward)
layers_nobn, grads_nobn = get_all_layers(model_nobn, hook_forward, hook_backward)
assert list(layers_bn.values()) == ["layers.0.0", "layers.0.1", "layers.0.2", "layers.1.0",
                                    "layers.1.1", "layers.1.2", "layers.2.0", "layers.2.1",
                                    "layers.2.2", "layers.3"]

epochs = 10

for epoch in range(epochs):

    # important to clear, because we append to
    # outputs everytime we do a forward pass
    grads_bn.clear()
    grads_nobn.clear()

    optimizer_bn.zero_grad()
    optimizer_nobn.zero_grad()

    y_pred_bn = model_bn(x)
    y_pred_nobn = model_nobn(x)

    loss_bn = F.cross_entropy(y_pred_bn, y)
    loss_nobn = F.cross_entropy(y_pred_nobn, y)

    loss_bn.backward()
    loss_nobn.backward()

    optimizer_bn.step()
    optimizer_nobn.step()


def get_grads(grads):
    layer_idx = []
    avg_grads = []
    for idx, (name, grad) in enumerate(grads):
        if grad is not None:
            avg_grad = grad.abs().mean()
            avg_grads.append(avg_grad)
            # idx is backwards since we appended in backward pass
            layer_idx.append(len(grads) - 1 - idx)
    return layer_idx, avg_grads


layer_idx_bn, avg_grads_bn = get_grads(grads_bn)
layer_idx_nobn, avg_grads_nobn = get_grads(grads_nobn)
print([round(g.item(), 6) for g in avg_grads_bn])
print([round(g.item(), 6) for g in avg_grads_nobn])

# hooks fired in backward order: the head first, the first Linear last
assert [name for name, _ in grads_bn][0] == "layers.3"
assert [name for name, _ in grads_bn][-1] == "layers.0.0"
assert layer_idx_bn == list(range(9, -1, -1))
assert grads_bn[0][1].shape == (10, 10) and grads_bn[-1][1].shape == (10, 128)
# the hooked gradient of the logits is the cross-entropy gradient
expected = (F.softmax(y_pred_nobn.detach(), 1) - F.one_hot(y, 10).float()) / 10
assert torch.allclose(grads_nobn[0][1], expected, atol=1e-7)
# without BatchNorm the gradient shrinks through every sigmoid; with it, it survives
assert avg_grads_nobn[-1] < 0.1 * avg_grads_nobn[0]
assert avg_grads_bn[-1] > 5 * avg_grads_nobn[-1]
