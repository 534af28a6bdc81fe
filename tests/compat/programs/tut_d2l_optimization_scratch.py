"""Dive into Deep Learning (d2l.ai, PyTorch), chapter 12 "Optimization Algorithms", from
scratch on the airfoil-style regression (synthetic here): init_*_states returning zero tensors
shaped like the weights, sgd / sgd_momentum / adagrad / rmsprop / adadelta / adam updates
written on p[:] and states under torch.no_grad(), hyperparams dicts, a train_ch11 loop over a
minibatch iterator with nn.init-free weights w = torch.normal(0.0, 0.01, size=(n, 1),
requires_grad=True); then the concise train_concise_ch11 with torch.optim classes and
nn.MSELoss(reduction='none'); each optimizer must lower the loss, and the from-scratch momentum
update must match torch.optim.SGD(momentum=...) step for step."""
import math

import torch
from torch import nn

torch.manual_seed(0)
n_samples, feature_dim = 300, 5
features = torch.randn(n_samples, feature_dim)
true_w = torch.randn(feature_dim, 1)
labels = features @ true_w + 0.3 + 0.01 * torch.randn(n_samples, 1)


def data_iter(batch_size):
    idx = torch.randperm(n_samples)
    for i in range(0, n_samples, batch_size):
        j = idx[i:i + batch_size]
        yield features[j], labels[j]


def linreg(X, w, b):
    return torch.matmul(X, w) + b


def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def sgd(params, states, hyperparams):
    for p in params:
        p.data.sub_(hyperparams['lr'] * p.grad)
        p.grad.data.zero_()


def init_momentum_states(feature_dim):
    v_w = torch.zeros((feature_dim, 1))
    v_b = torch.zeros(1)
    return (v_w, v_b)


def sgd_momentum(params, states, hyperparams):
    for p, v in zip(params, states):
        with torch.no_grad():
            v[:] = hyperparams['momentum'] * v + p.grad
            p[:] -= hyperparams['lr'] * v
        p.grad.data.zero_()


def init_adagrad_states(feature_dim):
    s_w = torch.zeros((feature_dim, 1))
    s_b = torch.zeros(1)
    return (s_w, s_b)


def adagrad(params, states, hyperparams):
    eps = 1e-6
    for p, s in zip(params, states):
        with torch.no_grad():
            s[:] += torch.square(p.grad)
            p[:] -= hyperparams['lr'] * p.grad / torch.sqrt(s + eps)
        p.grad.data.zero_()


def init_rmsprop_states(feature_dim):
    s_w = torch.zeros((feature_dim, 1))
    s_b = torch.zeros(1)
    return (s_w, s_b)


def rmsprop(params, states, hyperparams):
    gamma, eps = hyperparams['gamma'], 1e-6
    for p, s in zip(params, states):
        with torch.no_grad():
            s[:] = gamma * s + (1 - gamma) * torch.square(p.grad)
            p[:] -= hyperparams['lr'] * p.grad / torch.sqrt(s + eps)
        p.grad.data.zero_()


def init_adadelta_states(feature_dim):
    s_w, s_b = torch.zeros((feature_dim, 1)), torch.zeros(1)
    delta_w, delta_b = torch.zeros((feature_dim, 1)), torch.zeros(1)
    return ((s_w, delta_w), (s_b, delta_b))


def adadelta(params, states, hyperparams):
    rho, eps = hyperparams['rho'], 1e-5
    for p, (s, delta) in zip(params, states):
        with torch.no_grad():
            # In-place updates via [:]
            s[:] = rho * s + (1 - rho) * torch.square(p.grad)
            g = (torch.sqrt(delta + eps) / torch.sqrt(s + eps)) * p.grad
            p[:] -= g
            delta[:] = rho * delta + (1 - rho) * g * g
        p.grad.data.zero_()


def init_adam_states(feature_dim):
    v_w, v_b = torch.zeros((feature_dim, 1)), torch.zeros(1)
    s_w, s_b = torch.zeros((feature_dim, 1)), torch.zeros(1)
    return ((v_w, s_w), (v_b, s_b))


def adam(params, states, hyperparams):
    beta1, beta2, eps = 0.9, 0.999, 1e-6
    for p, (v, s) in zip(params, states):
        with torch.no_grad():
            v[:] = beta1 * v + (1 - beta1) * p.grad
            s[:] = beta2 * s + (1 - beta2) * torch.square(p.grad)
            v_bias_corr = v / (1 - beta1 ** hyperparams['t'])
            s_bias_corr = s / (1 - beta2 ** hyperparams['t'])
            p[:] -= hyperparams['lr'] * v_bias_corr / (torch.sqrt(s_bias_corr) + eps)
        p.grad.data.zero_()
    hyperparams['t'] += 1


def evaluate_loss(net, loss):
    with torch.no_grad():
        return loss(net(features), labels).mean().item()


def train_ch11(trainer_fn, states, hyperparams, num_epochs=4, batch_size=10):
    torch.manual_seed(1)
    w = torch.normal(mean=0.0, std=0.01, size=(feature_dim, 1), requires_grad=True)
    b = torch.zeros((1), requires_grad=True)
    net, loss = lambda X: linreg(X, w, b), squared_loss
    start = evaluate_loss(net, loss)
    for _ in range(num_epochs):
        for X, y in data_iter(batch_size):
            l = loss(net(X), y).mean()
            l.backward()
            trainer_fn([w, b], states, hyperparams)
    return start, evaluate_loss(net, loss), (w, b)


results = {
    'sgd': train_ch11(sgd, None, {'lr': 0.05}),
    'momentum': train_ch11(sgd_momentum, init_momentum_states(feature_dim),
                           {'lr': 0.02, 'momentum': 0.5}),
    'adagrad': train_ch11(adagrad, init_adagrad_states(feature_dim), {'lr': 0.1}),
    'rmsprop': train_ch11(rmsprop, init_rmsprop_states(feature_dim), {'lr': 0.01, 'gamma': 0.9}),
    'adadelta': train_ch11(adadelta, init_adadelta_states(feature_dim), {'rho': 0.9},
                           num_epochs=30),
    'adam': train_ch11(adam, init_adam_states(feature_dim), {'lr': 0.01, 't': 1}),
}
for name, (start, end, _) in results.items():
    print(f'{name}: loss {start:.3f} -> {end:.4f}')
    assert end < start * 0.5, (name, start, end)


def train_concise_ch11(trainer_fn, hyperparams, num_epochs=4):
    torch.manual_seed(1)
    net = nn.Sequential(nn.Linear(feature_dim, 1))

    def init_weights(module):
        if type(module) == nn.Linear:
            torch.nn.init.normal_(module.weight, std=0.01)
    net.apply(init_weights)
    optimizer = trainer_fn(net.parameters(), **hyperparams)
    loss = nn.MSELoss(reduction='none')
    start = evaluate_loss(net, loss)
    for _ in range(num_epochs):
        for X, y in data_iter(10):
            optimizer.zero_grad()
            out = net(X)
            y = y.reshape(out.shape)
            l = loss(out, y)
            l.mean().backward()
            optimizer.step()
    return start, evaluate_loss(net, loss) / 2


for trainer, hp in [(torch.optim.SGD, {'lr': 0.05}), (torch.optim.SGD, {'lr': 0.02, 'momentum': 0.5}),
                    (torch.optim.Adagrad, {'lr': 0.1}), (torch.optim.RMSprop, {'lr': 0.01, 'alpha': 0.9}),
                    (torch.optim.Adadelta, {'rho': 0.9}), (torch.optim.Adam, {'lr': 0.01})]:
    start, end = train_concise_ch11(trainer, hp, num_epochs=30 if trainer is torch.optim.Adadelta else 4)
    print(trainer.__name__, start, end)
    assert end < start * 0.5, (trainer.__name__, start, end)

# the from-scratch momentum is torch.optim.SGD(momentum=...) (dampening 0)
torch.manual_seed(3)
w1 = torch.randn(feature_dim, 1, requires_grad=True)
b1 = torch.zeros(1, requires_grad=True)
w2, b2 = w1.detach().clone().requires_grad_(), b1.detach().clone().requires_grad_()
states = init_momentum_states(feature_dim)
opt = torch.optim.SGD([w2, b2], lr=0.02, momentum=0.5)
for X, y in data_iter(50):
    squared_loss(linreg(X, w1, b1), y).mean().backward()
    sgd_momentum([w1, b1], states, {'lr': 0.02, 'momentum': 0.5})
    opt.zero_grad()
    squared_loss(linreg(X, w2, b2), y).mean().backward()
    opt.step()
assert torch.allclose(w1, w2, atol=1e-6) and torch.allclose(b1, b2, atol=1e-6)
