"""Dive into Deep Learning (d2l.ai, PyTorch), chapter "Optimization Algorithms": gradient descent
on f(x) = x**2 and Newton's method on f(x) = cosh(c x) with torch.tensor scalars, then the
from-scratch optimizers exactly as the book writes them -- init_momentum_states / sgd_momentum
with `with torch.no_grad(): v[:] = momentum * v + p.grad; p[:] -= lr * v` and
p.grad.data.zero_(), adagrad (s[:] += torch.square(p.grad), torch.sqrt(s + eps)), rmsprop,
adadelta (two state tensors per parameter), adam with hyperparams['t'] bias correction -- run by
train_ch11 (w = torch.normal(mean=0.0, std=0.01, size=(d, 1), requires_grad=True), linreg,
squared_loss(...).mean()), beside train_concise_ch11 (nn.Sequential(nn.Linear(5, 1)),
module.apply(init_weights) with `type(module) == nn.Linear`, nn.MSELoss(reduction='none'),
torch.optim.SGD(momentum=) / Adagrad / RMSprop(alpha=) / Adadelta(rho=) / Adam); and the
learning-rate scheduling section: SquareRootScheduler, FactorScheduler, CosineScheduler with
warmup, written into trainer.param_groups[0]['lr'], against lr_scheduler.MultiStepLR."""
import math

import numpy as np
import torch
from torch import nn

# 12.3 gradient descent: f(x) = x ** 2
def f(x):
    return x ** 2

def f_grad(x):
    return 2 * x

def gd(eta, f_grad):
    x = 10.0
    results = [x]
    for i in range(10):
        x -= eta * f_grad(x)
        results.append(float(x))
    print(f'epoch 10, x: {x:f}')
    return results

results = gd(0.2, f_grad)
assert abs(results[-1]) < 0.1

# Newton's method on a nonconvex-looking cosh
c = torch.tensor(0.5)

def f(x):
    return torch.cosh(c * x)

def f_grad(x):
    return c * torch.sinh(c * x)

def f_hess(x):
    return c ** 2 * torch.cosh(c * x)

def newton(eta=1):
    x = 10.0
    results = [x]
    for i in range(10):
        x -= eta * f_grad(x) / f_hess(x)
        results.append(float(x))
    print('epoch 10, x:', x)
    return results

res = newton()
assert abs(res[-1]) < 1e-4


# the airfoil-like regression problem, synthetic
def get_data_ch11(batch_size=10, n=300):
    g = torch.Generator().manual_seed(0)
    X = torch.randn(n, 5, generator=g)
    true_w = torch.tensor([[2.0], [-1.0], [0.5], [0.0], [1.5]])
    y = X @ true_w + 0.1 + 0.05 * torch.randn(n, 1, generator=g)
    data = (X - X.mean(axis=0)) / X.std(axis=0)
    dataset = torch.utils.data.TensorDataset(data, y.reshape(-1))
    return torch.utils.data.DataLoader(dataset, batch_size, shuffle=True), data.shape[1]


def linreg(X, w, b):
    return torch.matmul(X, w) + b


def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def evaluate_loss(net, data_iter, loss):
    metric = [0.0, 0]
    for X, y in data_iter:
        out = net(X)
        y = y.reshape(out.shape)
        l = loss(out, y)
        metric[0] += l.sum()
        metric[1] += l.numel()
    return float(metric[0] / metric[1])


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


def train_ch11(trainer_fn, states, hyperparams, data_iter, feature_dim, num_epochs=2):
    w = torch.normal(mean=0.0, std=0.01, size=(feature_dim, 1), requires_grad=True)
    b = torch.zeros((1), requires_grad=True)
    net, loss = lambda X: linreg(X, w, b), squared_loss
    for _ in range(num_epochs):
        for X, y in data_iter:
            l = loss(net(X), y).mean()
            l.backward()
            trainer_fn([w, b], states, hyperparams)
    final = evaluate_loss(net, data_iter, loss)
    print(f'{trainer_fn.__name__}: loss: {final:.3f}')
    return final


def train_concise_ch11(trainer_fn, hyperparams, data_iter, num_epochs=4):
    net = nn.Sequential(nn.Linear(5, 1))

    def init_weights(module):
        if type(module) == nn.Linear:
            torch.nn.init.normal_(module.weight, std=0.01)

    net.apply(init_weights)
    optimizer = trainer_fn(net.parameters(), **hyperparams)
    loss = nn.MSELoss(reduction='none')
    for _ in range(num_epochs):
        for X, y in data_iter:
            optimizer.zero_grad()
            out = net(X)
            y = y.reshape(out.shape)
            l = loss(out, y)
            l.mean().backward()
            optimizer.step()
    final = evaluate_loss(net, data_iter, loss) / 2
    print(f'{trainer_fn.__name__}: loss: {final:.3f}')
    return final


torch.manual_seed(0)
data_iter, feature_dim = get_data_ch11(10)
scratch = {
    'sgd_momentum': train_ch11(sgd_momentum, init_momentum_states(feature_dim),
                               {'lr': 0.02, 'momentum': 0.5}, data_iter, feature_dim),
    'adagrad': train_ch11(adagrad, init_adagrad_states(feature_dim), {'lr': 0.5}, data_iter, feature_dim),
    'rmsprop': train_ch11(rmsprop, init_rmsprop_states(feature_dim), {'lr': 0.05, 'gamma': 0.9},
                          data_iter, feature_dim),
    'adadelta': train_ch11(adadelta, init_adadelta_states(feature_dim), {'rho': 0.9}, data_iter,
                           feature_dim, num_epochs=40),
    'adam': train_ch11(adam, init_adam_states(feature_dim), {'lr': 0.1, 't': 1}, data_iter, feature_dim),
}
for name, final in scratch.items():
    assert final < 0.1, (name, final)

concise = [
    train_concise_ch11(torch.optim.SGD, {'lr': 0.01, 'momentum': 0.9}, data_iter),
    train_concise_ch11(torch.optim.Adagrad, {'lr': 0.3}, data_iter),
    train_concise_ch11(torch.optim.RMSprop, {'lr': 0.03, 'alpha': 0.9, 'eps': 1e-6}, data_iter),
    train_concise_ch11(torch.optim.Adadelta, {'rho': 0.9}, data_iter, num_epochs=60),
    train_concise_ch11(torch.optim.Adam, {'lr': 0.1}, data_iter),
]
assert all(final < 0.1 for final in concise), concise


# 12.11 learning rate scheduling
class SquareRootScheduler:
    def __init__(self, lr=0.1):
        self.lr = lr

    def __call__(self, num_update):
        return self.lr * pow(num_update + 1.0, -0.5)


class FactorScheduler:
    def __init__(self, factor=1, stop_factor_lr=1e-7, base_lr=0.1):
        self.factor = factor
        self.stop_factor_lr = stop_factor_lr
        self.base_lr = base_lr

    def __call__(self, num_update):
        self.base_lr = max(self.stop_factor_lr, self.base_lr * self.factor)
        return self.base_lr


class CosineScheduler:
    def __init__(self, max_update, base_lr=0.01, final_lr=0, warmup_steps=0, warmup_begin_lr=0):
        self.base_lr_orig = base_lr
        self.max_update = max_update
        self.final_lr = final_lr
        self.warmup_steps = warmup_steps
        self.warmup_begin_lr = warmup_begin_lr
        self.max_steps = self.max_update - self.warmup_steps

    def get_warmup_lr(self, epoch):
        increase = (self.base_lr_orig - self.warmup_begin_lr) * float(epoch) / float(self.warmup_steps)
        return self.warmup_begin_lr + increase

    def __call__(self, epoch):
        if epoch < self.warmup_steps:
            return self.get_warmup_lr(epoch)
        if epoch <= self.max_update:
            self.base_lr = self.final_lr + (self.base_lr_orig - self.final_lr) * (
                1 + math.cos(math.pi * (epoch - self.warmup_steps) / self.max_steps)) / 2
        return self.base_lr


def net_fn():
    return nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1))


def train(net, data_iter, num_epochs, trainer, scheduler=None):
    loss = nn.MSELoss()
    lrs = []
    for epoch in range(num_epochs):
        for X, y in data_iter:
            trainer.zero_grad()
            l = loss(net(X).reshape(-1), y)
            l.backward()
            trainer.step()
        if scheduler:
            if scheduler.__module__ == torch.optim.lr_scheduler.__name__:
                scheduler.step()
            else:
                for param_group in trainer.param_groups:
                    param_group['lr'] = scheduler(epoch)
        lrs.append(trainer.param_groups[0]['lr'])
    return lrs, evaluate_loss(net, data_iter, nn.MSELoss(reduction='none'))


torch.manual_seed(1)
for sched in [SquareRootScheduler(lr=0.1), FactorScheduler(factor=0.9, stop_factor_lr=1e-2, base_lr=0.1),
              CosineScheduler(max_update=6, base_lr=0.1, final_lr=0.01, warmup_steps=2)]:
    net = net_fn()
    trainer = torch.optim.SGD(net.parameters(), lr=0.1)
    lrs, final = train(net, data_iter, 8, trainer, sched)
    print(type(sched).__name__, [round(l, 4) for l in lrs], round(final, 4))
    assert final < 0.5

net = net_fn()
trainer = torch.optim.SGD(net.parameters(), lr=0.5)
scheduler = torch.optim.lr_scheduler.MultiStepLR(trainer, milestones=[3, 6], gamma=0.5)
lrs, final = train(net, data_iter, 8, trainer, scheduler)
print('MultiStepLR', lrs, scheduler.get_last_lr())
assert lrs == [0.5, 0.5, 0.25, 0.25, 0.25, 0.125, 0.125, 0.125]
assert np.isclose(scheduler.get_last_lr()[0], 0.125)
