"""fastai/course22, 04-how-does-a-neural-net-really-work and 05-linear-model-and-neural-net-from-
scratch, with a synthetic Titanic-like table (numpy columns instead of pandas): quadratic fitting
by hand with functools.partial, mae, abc.requires_grad_(), `abc -= abc.grad*0.01` under no_grad,
torch.clip and F.relu; then set_printoptions(linewidth=140, sci_mode=False, edgeitems=7),
tensor(column) and tensor(values, dtype=torch.float), t_indep.max(dim=0) unpacked, .sum(axis=1),
coeffs.sub_(coeffs.grad * lr) + grad.zero_(), f"{loss:.3f}", dict(zip(cols,
coeffs.requires_grad_(False))), sigmoid, indeps@coeffs, [:, None] targets, and the one- and
two-hidden-layer nets with torch.rand(1)[0] constants."""
from functools import partial

import numpy as np
import torch
import torch.nn.functional as F
from torch import tensor


def f(x): return 3 * x**2 + 2 * x + 1
def quad(a, b, c, x): return a * x**2 + b * x + c
def mk_quad(a, b, c): return partial(quad, a, b, c)
def noise(x, scale): return np.random.normal(scale=scale, size=x.shape)
def add_noise(x, mult, add): return x * (1 + noise(x, mult)) + noise(x, add)


f2 = mk_quad(3, 2, 1)
print(f2(torch.linspace(-2.1, 2.1, 5)[:, None]))
np.random.seed(42)
x = torch.linspace(-2, 2, steps=20)[:, None]
y = add_noise(f(x), 0.15, 1.5)
print(repr((x[:5], y[:5])))
print(type(y).__name__, y.dtype)


def mae(preds, acts): return (torch.abs(preds - acts)).mean()


def quad_mae(params):
    f = mk_quad(*params)
    return mae(f(x), y)


print(repr(quad_mae([1.1, 1.1, 1.1])))
abc = torch.tensor([1.1, 1.1, 1.1])
print(repr(abc.requires_grad_()))
loss = quad_mae(abc)
print(repr(loss))
loss.backward()
print(repr(abc.grad))
with torch.no_grad():
    abc -= abc.grad * 0.01
    loss = quad_mae(abc)
print(f'loss={loss:.2f}')
for i in range(10):
    loss = quad_mae(abc)
    loss.backward()
    with torch.no_grad(): abc -= abc.grad * 0.01
    print(f'step={i}; loss={loss:.2f}')
print(repr(abc), abc.is_leaf)


def rectified_linear(m, b, x):
    y = m * x + b
    return torch.clip(y, 0.)


def rectified_linear2(m, b, x): return F.relu(m * x + b)


def double_relu(m1, b1, m2, b2, x):
    return rectified_linear(m1, b1, x) + rectified_linear(m2, b2, x)


xs = torch.linspace(-2.1, 2.1, 7)[:, None]
print(partial(rectified_linear, 1, 1)(xs).T, partial(rectified_linear2, 1, 1)(xs).T)
print(partial(double_relu, -1.5, -1.5, 1.5, 1.5)(xs).flatten())

np.set_printoptions(linewidth=140)
torch.set_printoptions(linewidth=140, sci_mode=False, edgeitems=7)
rng = np.random.default_rng(0)
n = 400
sex_male = rng.random(n) < 0.6
pclass = rng.integers(1, 4, n)
age = rng.uniform(1, 70, n).round()
fare = np.exp(rng.normal(3 - 0.5 * pclass, 0.8))
survived = ((~sex_male) * 2.0 + (3 - pclass) * 0.7 - age / 40 + rng.normal(0, 0.7, n) > 0.6).astype(np.int64)
columns = {'Age': age, 'SibSp': rng.integers(0, 4, n).astype(float),
           'Parch': rng.integers(0, 3, n).astype(float), 'LogFare': np.log(fare + 1),
           'Sex_male': sex_male, 'Sex_female': ~sex_male, 'Pclass_1': pclass == 1,
           'Pclass_2': pclass == 2, 'Pclass_3': pclass == 3}
indep_cols = list(columns)
t_dep = tensor(survived)
t_indep = tensor(np.stack([np.asarray(columns[c], dtype=float) for c in indep_cols], 1),
                 dtype=torch.float)
print(repr(t_indep))
print(t_indep.shape, t_dep.dtype)
torch.manual_seed(442)
n_coeff = t_indep.shape[1]
coeffs = torch.rand(n_coeff) - 0.5
print(repr(coeffs))
print(repr(t_indep * coeffs))
vals, indices = t_indep.max(dim=0)
t_indep = t_indep / vals
print(repr(t_indep * coeffs))
preds = (t_indep * coeffs).sum(axis=1)
print(repr(preds[:10]))
loss = torch.abs(preds - t_dep).mean()
print(repr(loss))


def calc_preds(coeffs, indeps): return (indeps * coeffs).sum(axis=1)
def calc_loss(coeffs, indeps, deps): return torch.abs(calc_preds(coeffs, indeps) - deps).mean()


coeffs.requires_grad_()
loss = calc_loss(coeffs, t_indep, t_dep)
print(repr(loss))
loss.backward()
print(repr(coeffs.grad))
loss = calc_loss(coeffs, t_indep, t_dep)
loss.backward()
print(repr(coeffs.grad))
loss = calc_loss(coeffs, t_indep, t_dep)
loss.backward()
with torch.no_grad():
    coeffs.sub_(coeffs.grad * 0.1)
    coeffs.grad.zero_()
    print(calc_loss(coeffs, t_indep, t_dep))

perm = torch.randperm(n, generator=torch.Generator().manual_seed(42))
trn_split, val_split = perm[:320], perm[320:]
trn_indep, val_indep = t_indep[trn_split], t_indep[val_split]
trn_dep, val_dep = t_dep[trn_split], t_dep[val_split]
print(repr((len(trn_indep), len(val_indep))))


def update_coeffs(coeffs, lr):
    coeffs.sub_(coeffs.grad * lr)
    coeffs.grad.zero_()


def one_epoch(coeffs, lr):
    loss = calc_loss(coeffs, trn_indep, trn_dep)
    loss.backward()
    with torch.no_grad(): update_coeffs(coeffs, lr)
    print(f"{loss:.3f}", end="; ")


def init_coeffs(): return (torch.rand(n_coeff) - 0.5).requires_grad_()


def train_model(epochs=30, lr=0.01):
    torch.manual_seed(442)
    coeffs = init_coeffs()
    for i in range(epochs): one_epoch(coeffs, lr=lr)
    print()
    return coeffs


coeffs = train_model(18, lr=0.2)


def show_coeffs(): return dict(zip(indep_cols, coeffs.requires_grad_(False)))


print(show_coeffs())
preds = calc_preds(coeffs, val_indep)
results = val_dep.bool() == (preds > 0.5)
print(repr(results[:16]), repr(results.float().mean()))


def acc(coeffs): return (val_dep.bool() == (calc_preds(coeffs, val_indep) > 0.5)).float().mean()


print(repr(acc(coeffs)), repr(preds[:28]))


def calc_preds(coeffs, indeps): return torch.sigmoid((indeps * coeffs).sum(axis=1))


coeffs = train_model(lr=100)
print(repr(acc(coeffs)), show_coeffs())
print(repr((val_indep * coeffs).sum(axis=1)[:4]), repr((val_indep @ coeffs)[:4]))


def calc_preds(coeffs, indeps): return torch.sigmoid(indeps @ coeffs)
def init_coeffs(): return (torch.rand(n_coeff, 1) * 0.1).requires_grad_()


trn_dep = trn_dep[:, None]
val_dep = val_dep[:, None]
coeffs = train_model(lr=100)
print(repr(acc(coeffs)))


def init_coeffs(n_hidden=20):
    layer1 = (torch.rand(n_coeff, n_hidden) - 0.5) / n_hidden
    layer2 = torch.rand(n_hidden, 1) - 0.3
    const = torch.rand(1)[0]
    return layer1.requires_grad_(), layer2.requires_grad_(), const.requires_grad_()


def calc_preds(coeffs, indeps):
    l1, l2, const = coeffs
    res = F.relu(indeps @ l1)
    res = res @ l2 + const
    return torch.sigmoid(res)


def update_coeffs(coeffs, lr):
    for layer in coeffs:
        layer.sub_(layer.grad * lr)
        layer.grad.zero_()


coeffs = train_model(lr=1.4)
coeffs = train_model(lr=20)
one_hidden = acc(coeffs)
print(repr(one_hidden))


def init_coeffs():
    hiddens = [10, 10]
    sizes = [n_coeff] + hiddens + [1]
    n = len(sizes)
    layers = [(torch.rand(sizes[i], sizes[i + 1]) - 0.3) / sizes[i + 1] * 4 for i in range(n - 1)]
    consts = [(torch.rand(1)[0] - 0.5) * 0.1 for i in range(n - 1)]
    for l in layers + consts: l.requires_grad_()
    return layers, consts


def calc_preds(coeffs, indeps):
    layers, consts = coeffs
    n = len(layers)
    res = indeps
    for i, l in enumerate(layers):
        res = res @ l + consts[i]
        if i != n - 1: res = F.relu(res)
    return torch.sigmoid(res)


def update_coeffs(coeffs, lr):
    layers, consts = coeffs
    for layer in layers + consts:
        layer.sub_(layer.grad * lr)
        layer.grad.zero_()


coeffs = train_model(lr=4)
final = acc(coeffs)
print(repr(final))
assert one_hidden > 0.7 and 0 < final <= 1
