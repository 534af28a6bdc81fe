"""UvA Deep Learning tutorial 4 ("Optimization and Initialization", Phillip Lippe): BaseNetwork of
nn.Linear + activation in a nn.Sequential built from a list, const_init / constant_variance_init /
xavier_init / kaiming_init walking model.named_parameters() with param.data.fill_ / normal_
(std=...), the statistics of activations via forward hooks-free loops (feats.view(-1), .std()),
gradients per layer after one backward (param.grad.view(-1).std()), and the OptimizerTemplate
pattern: a base class with zero_grad (p.grad.detach_(); p.grad.zero_()), @torch.no_grad() step,
and SGD, SGDMomentum and Adam subclasses written with param_momentum dicts, compared with
torch.optim on the pathological curvature function."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(42)


class Identity(nn.Module):
    def forward(self, x):
        return x


class BaseNetwork(nn.Module):

    def __init__(self, act_fn, input_size=64, num_classes=10, hidden_sizes=[64, 32, 32, 16]):
        super().__init__()
        layers = []
        layer_sizes = [input_size] + hidden_sizes
        for layer_index in range(1, len(layer_sizes)):
            layers += [nn.Linear(layer_sizes[layer_index - 1], layer_sizes[layer_index]), act_fn]
        layers += [nn.Linear(layer_sizes[-1], num_classes)]
        self.layers = nn.Sequential(*layers)  # nn.Sequential summarizes a list of modules into a single module
        self.config = {"act_fn": act_fn.__class__.__name__, "input_size": input_size,
                       "num_classes": num_classes, "hidden_sizes": hidden_sizes}

    def forward(self, x):
        x = x.view(x.size(0), -1)
        out = self.layers(x)
        return out


X = torch.randn(256, 64)
y = torch.randint(0, 10, (256,))


def weight_stds(model):
    return {name: param.data.view(-1).std().item() for name, param in model.named_parameters()
            if name.endswith(".weight")}


def activation_stds(model):
    feats = X
    stds = {}
    with torch.no_grad():
        for layer_index, layer in enumerate(model.layers):
            feats = layer(feats)
            if isinstance(layer, nn.Linear):
                stds[f"Layer {layer_index}"] = feats.view(-1).std().item()
    return stds


def gradient_stds(model):
    model.zero_grad()
    preds = model(X)
    loss = F.cross_entropy(preds, y)
    loss.backward()
    grads = {name: params.grad.view(-1).cpu().clone().numpy()
             for name, params in model.named_parameters() if "weight" in name}
    model.zero_grad()
    return {k: float(v.std()) for k, v in grads.items()}


model = BaseNetwork(act_fn=Identity())


def const_init(model, fill=0.0):
    for name, param in model.named_parameters():
        param.data.fill_(fill)


const_init(model, fill=0.005)
print({k: f"{v:.1e}" for k, v in activation_stds(model).items()})
hidden = [v for k, v in gradient_stds(model).items() if k != "layers.8.weight"]
assert all(v < 1e-6 for v in hidden)  # all weights alike: no symmetry breaking


def constant_variance_init(model, std=0.01):
    for name, param in model.named_parameters():
        param.data.normal_(std=std)


constant_variance_init(model, std=0.01)
print({k: f"{v:.2e}" for k, v in activation_stds(model).items()})


def equal_var_init(model):
    for name, param in model.named_parameters():
        if name.endswith(".bias"):
            param.data.fill_(0)
        else:
            param.data.normal_(std=1.0 / math.sqrt(param.shape[1]))


equal_var_init(model)
print(weight_stds(model))
stds = activation_stds(model)
print(stds)
assert 0.5 < stds["Layer 0"] < 1.5


def xavier_init(model):
    for name, param in model.named_parameters():
        if name.endswith(".bias"):
            param.data.fill_(0)
        else:
            bound = math.sqrt(6) / math.sqrt(param.shape[0] + param.shape[1])
            param.data.uniform_(-bound, bound)


model = BaseNetwork(act_fn=nn.Tanh())
xavier_init(model)
print(gradient_stds(model))
print(activation_stds(model))


def kaiming_init(model):
    for name, param in model.named_parameters():
        if name.endswith(".bias"):
            param.data.fill_(0)
        elif name.startswith("layers.0"):  # The first layer does not have ReLU applied on its input
            param.data.normal_(0, 1 / math.sqrt(param.shape[1]))
        else:
            param.data.normal_(0, math.sqrt(2) / math.sqrt(param.shape[1]))


model = BaseNetwork(act_fn=nn.ReLU())
kaiming_init(model)
print(activation_stds(model))


class OptimizerTemplate:

    def __init__(self, params, lr):
        self.params = list(params)
        self.lr = lr

    def zero_grad(self):
        # Set gradients of all parameters to zero
        for p in self.params:
            if p.grad is not None:
                p.grad.detach_()  # For second-order optimizers important
                p.grad.zero_()

    @torch.no_grad()
    def step(self):
        # Apply update step to all parameters
        for p in self.params:
            if p.grad is None:  # We skip parameters without any gradients
                continue
            self.update_param(p)

    def update_param(self, p):
        # To be implemented in optimizer-specific classes
        raise NotImplementedError


class SGD(OptimizerTemplate):

    def __init__(self, params, lr):
        super().__init__(params, lr)

    def update_param(self, p):
        p_update = -self.lr * p.grad
        p.add_(p_update)  # In-place update => saves memory and does not create computation graph


class SGDMomentum(OptimizerTemplate):

    def __init__(self, params, lr, momentum=0.0):
        super().__init__(params, lr)
        self.momentum = momentum  # Corresponds to beta_1 in the equation above
        self.param_momentum = {p: torch.zeros_like(p.data) for p in self.params}  # Dict to store m_t

    def update_param(self, p):
        self.param_momentum[p] = (1 - self.momentum) * p.grad + self.momentum * self.param_momentum[p]
        p_update = -self.lr * self.param_momentum[p]
        p.add_(p_update)


class Adam(OptimizerTemplate):

    def __init__(self, params, lr, beta1=0.9, beta2=0.999, eps=1e-8):
        super().__init__(params, lr)
        self.beta1 = beta1
        self.beta2 = beta2
        self.eps = eps
        self.param_step = {p: 0 for p in self.params}  # Remembers "t" for each parameter for bias correction
        self.param_momentum = {p: torch.zeros_like(p.data) for p in self.params}
        self.param_2nd_momentum = {p: torch.zeros_like(p.data) for p in self.params}

    def update_param(self, p):
        self.param_step[p] += 1
        self.param_momentum[p] = (1 - self.beta1) * p.grad + self.beta1 * self.param_momentum[p]
        self.param_2nd_momentum[p] = (1 - self.beta2) * (p.grad) ** 2 + self.beta2 * self.param_2nd_momentum[p]
        bias_correction_1 = 1 - self.beta1 ** self.param_step[p]
        bias_correction_2 = 1 - self.beta2 ** self.param_step[p]
        p_2nd_mom = self.param_2nd_momentum[p] / bias_correction_2
        p_mom = self.param_momentum[p] / bias_correction_1
        p_lr = self.lr / (torch.sqrt(p_2nd_mom) + self.eps)
        p_update = -p_lr * p_mom
        p.add_(p_update)


def pathological_curve_loss(w1, w2):
    # Example of a pathological curvature. There are many more possible, feel free to experiment here!
    x1_loss = torch.tanh(w1) ** 2 + 0.01 * torch.abs(w1)
    x2_loss = torch.sigmoid(w2)
    return x1_loss + x2_loss


def train_curve(optimizer_func, curve_func=pathological_curve_loss, num_updates=100, init=[5, 5]):
    weights = nn.Parameter(torch.FloatTensor(init), requires_grad=True)
    optim = optimizer_func([weights])
    list_points = []
    for _ in range(num_updates):
        loss = curve_func(weights[0], weights[1])
        list_points.append(torch.cat([weights.data.detach(), loss.unsqueeze(dim=0).detach()], dim=0))
        optim.zero_grad()
        loss.backward()
        optim.step()
    points = torch.stack(list_points, dim=0).numpy()
    return points


SGD_points = train_curve(lambda params: SGD(params, lr=10))
SGDMom_points = train_curve(lambda params: SGDMomentum(params, lr=10, momentum=0.9))
Adam_points = train_curve(lambda params: Adam(params, lr=1))
print(SGD_points.shape, SGD_points.dtype, SGD_points[9], SGDMom_points[-1], Adam_points[-1])
ref_points = train_curve(lambda params: torch.optim.Adam(params, lr=1))
print(abs(ref_points - Adam_points).max() < 1e-4)
assert abs(ref_points - Adam_points).max() < 1e-3
ref_sgd = train_curve(lambda params: torch.optim.SGD(params, lr=10), num_updates=10)
assert abs(ref_sgd - SGD_points[:10]).max() < 1e-3

model = BaseNetwork(act_fn=nn.ReLU())
kaiming_init(model)
opt = SGDMomentum(model.parameters(), lr=0.1, momentum=0.9)
first = F.cross_entropy(model(X), y).item()
for it in range(30):
    opt.zero_grad()
    loss = F.cross_entropy(model(X), y)
    loss.backward()
    opt.step()
print(f"{loss.item():.4f}")
assert loss.item() < first
