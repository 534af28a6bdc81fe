"""fastai/course22p2 nbs/04_minibatch_training.ipynb, with synthetic MNIST-shaped data (fastcore's
store_attr/chunked/test_close written out): a Model with a python-list of layers, log_softmax three
ways (x.exp()/sum .log(), x - x.exp().sum(-1,keepdim=True).log(), x - x.logsumexp(-1,keepdim=True)),
logsumexp by hand with x.max(-1)[0], nll via input[range(target.shape[0]), target], checked
against F.nll_loss(F.log_softmax(pred, -1)) and F.cross_entropy, f'{loss:.2f}' of a 0-d tensor,
the manual SGD loop over layers with hasattr(l, 'weight'), l.weight -= l.weight.grad * lr under
no_grad and .grad.zero_(), nn.Module() with an attribute child (named_children, parameters),
MLP, a hand-made MyModule with __setattr__, add_module(f'layer_{i}', l) with functools.reduce,
nn.ModuleList, nn.Sequential, an Optimizer class using p.grad.data.zero_(), optim.SGD, Dataset /
DataLoader / Sampler / BatchSampler / collate by hand, then torch.utils.data's RandomSampler,
SequentialSampler, BatchSampler(drop_last=False), DataLoader(batch_sampler=..., collate_fn=...),
DataLoader(bs, sampler=..., collate_fn=...), DataLoader(shuffle=True, drop_last=True,
num_workers=2), train_ds[[4,6,7]] fancy indexing, DataLoader(ds, sampler=batch_sampler) giving a
leading batch dim of 1, and fit(...) / get_dls(...) with model.train()/eval() and .item()*n."""
import random
from functools import reduce
from itertools import islice

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn, optim, tensor
from torch.utils.data import BatchSampler, DataLoader, RandomSampler, SequentialSampler


def test_close(a, b, eps=1e-5):
    assert (abs(a - b) < eps).all(), f"close:\n{a}\n{b}"


def chunked(it, chunk_sz, drop_last=False):
    it = iter(it)
    while True:
        res = list(islice(it, chunk_sz))
        if not res or (drop_last and len(res) < chunk_sz): return
        yield res


torch.set_printoptions(precision=2, linewidth=140, sci_mode=False)
torch.manual_seed(1)
rng = np.random.RandomState(0)
protos = (rng.rand(10, 784) > 0.9).astype(np.float32)
y_tr, y_va = rng.randint(0, 10, 1000), rng.randint(0, 10, 200)
x_tr = protos[y_tr] * 0.8 + rng.rand(1000, 784).astype(np.float32) * 0.1
x_va = protos[y_va] * 0.8 + rng.rand(200, 784).astype(np.float32) * 0.1
x_train, y_train, x_valid, y_valid = map(tensor, [x_tr, y_tr, x_va, y_va])
n, m = x_train.shape
c = y_train.max() + 1
nh = 50


class Model(nn.Module):
    def __init__(self, n_in, nh, n_out):
        super().__init__()
        self.layers = [nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, n_out)]

    def __call__(self, x):
        for l in self.layers: x = l(x)
        return x


model = Model(m, nh, 10)
pred = model(x_train)
print(pred.shape)


def log_softmax(x): return (x.exp() / (x.exp().sum(-1, keepdim=True))).log()


first = log_softmax(pred)


def log_softmax(x): return x - x.exp().sum(-1, keepdim=True).log()


def logsumexp(x):
    m = x.max(-1)[0]
    return m + (x - m[:, None]).exp().sum(-1).log()


def log_softmax(x): return x - x.logsumexp(-1, keepdim=True)


test_close(logsumexp(pred), pred.logsumexp(-1))
sm_pred = log_softmax(pred)
test_close(first, sm_pred, 1e-4)
print(y_train[:3])
print(sm_pred[0, 5], sm_pred[1, 0], sm_pred[2, 4])
print(sm_pred[[0, 1, 2], y_train[:3]])
assert sm_pred[[0, 1, 2], y_train[:3]][0] == sm_pred[0, y_train[0]]


def nll(input, target): return -input[range(target.shape[0]), target].mean()


loss = nll(sm_pred, y_train)
print(loss)
test_close(F.nll_loss(F.log_softmax(pred, -1), y_train), loss, 1e-3)
test_close(F.cross_entropy(pred, y_train), loss, 1e-3)
loss_func = F.cross_entropy
bs = 50
xb = x_train[0:bs]
preds = model(xb)
print(preds[0], preds.shape)
yb = y_train[0:bs]
print(loss_func(preds, yb), preds.argmax(dim=1))


def accuracy(out, yb): return (out.argmax(dim=1) == yb).float().mean()


print(accuracy(preds, yb))
lr = 0.5
epochs = 3


def report(loss, preds, yb): print(f'{loss:.2f}, {accuracy(preds, yb):.2f}')


xb, yb = x_train[:bs], y_train[:bs]
preds = model(xb)
report(loss_func(preds, yb), preds, yb)
for epoch in range(epochs):
    for i in range(0, n, bs):
        s = slice(i, min(n, i + bs))
        xb, yb = x_train[s], y_train[s]
        preds = model(xb)
        loss = loss_func(preds, yb)
        loss.backward()
        with torch.no_grad():
            for l in model.layers:
                if hasattr(l, 'weight'):
                    l.weight -= l.weight.grad * lr
                    l.bias -= l.bias.grad * lr
                    l.weight.grad.zero_()
                    l.bias.grad.zero_()
    report(loss, preds, yb)
assert accuracy(preds, yb) > 0.5

m1 = nn.Module()
m1.foo = nn.Linear(3, 4)
print(m1)
print(list(m1.named_children()))
assert [k for k, _ in m1.named_children()] == ["foo"] and len(list(m1.parameters())) == 2


class MLP(nn.Module):
    def __init__(self, n_in, nh, n_out):
        super().__init__()
        self.l1 = nn.Linear(n_in, nh)
        self.l2 = nn.Linear(nh, n_out)
        self.relu = nn.ReLU()

    def forward(self, x): return self.l2(self.relu(self.l1(x)))


model = MLP(m, nh, 10)
print(model.l1)
print(model)
for name, l in model.named_children(): print(f"{name}: {l}")
for p in model.parameters(): print(p.shape)


def fit():
    for epoch in range(epochs):
        for i in range(0, n, bs):
            s = slice(i, min(n, i + bs))
            xb, yb = x_train[s], y_train[s]
            preds = model(xb)
            loss = loss_func(preds, yb)
            loss.backward()
            with torch.no_grad():
                for p in model.parameters(): p -= p.grad * lr
                model.zero_grad()
        report(loss, preds, yb)


fit()


class MyModule:
    def __init__(self, n_in, nh, n_out):
        self._modules = {}
        self.l1 = nn.Linear(n_in, nh)
        self.l2 = nn.Linear(nh, n_out)

    def __setattr__(self, k, v):
        if not k.startswith("_"): self._modules[k] = v
        super().__setattr__(k, v)

    def __repr__(self): return f'{self._modules}'

    def parameters(self):
        for l in self._modules.values(): yield from l.parameters()


mdl = MyModule(m, nh, 10)
print(mdl)
assert [tuple(p.shape) for p in mdl.parameters()] == [(nh, m), (nh,), (10, nh), (10,)]
layers = [nn.Linear(m, nh), nn.ReLU(), nn.Linear(nh, 10)]


class Model(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = layers
        for i, l in enumerate(self.layers): self.add_module(f'layer_{i}', l)

    def forward(self, x): return reduce(lambda val, layer: layer(val), self.layers, x)


model = Model(layers)
print(model)
print(model(xb).shape)
assert [k for k, _ in model.named_children()] == ["layer_0", "layer_1", "layer_2"]


class SequentialModel(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = nn.ModuleList(layers)

    def forward(self, x):
        for l in self.layers: x = l(x)
        return x


model = SequentialModel(layers)
print(model)
fit()
model = nn.Sequential(nn.Linear(m, nh), nn.ReLU(), nn.Linear(nh, 10))
fit()
print(loss_func(model(xb), yb), accuracy(model(xb), yb))


class Optimizer():
    def __init__(self, params, lr=0.5): self.params, self.lr = list(params), lr

    def step(self):
        with torch.no_grad():
            for p in self.params: p -= p.grad * self.lr

    def zero_grad(self):
        for p in self.params: p.grad.data.zero_()


model = nn.Sequential(nn.Linear(m, nh), nn.ReLU(), nn.Linear(nh, 10))
opt = Optimizer(model.parameters())
for epoch in range(epochs):
    for i in range(0, n, bs):
        s = slice(i, min(n, i + bs))
        xb, yb = x_train[s], y_train[s]
        preds = model(xb)
        loss = loss_func(preds, yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
    report(loss, preds, yb)


def get_model():
    model = nn.Sequential(nn.Linear(m, nh), nn.ReLU(), nn.Linear(nh, 10))
    return model, optim.SGD(model.parameters(), lr=lr)


class Dataset():
    def __init__(self, x, y): self.x, self.y = x, y
    def __len__(self): return len(self.x)
    def __getitem__(self, i): return self.x[i], self.y[i]


train_ds, valid_ds = Dataset(x_train, y_train), Dataset(x_valid, y_valid)
assert len(train_ds) == len(x_train)
assert len(valid_ds) == len(x_valid)
xb, yb = train_ds[0:5]
assert xb.shape == (5, 28 * 28)
assert yb.shape == (5,)


class MyDataLoader():
    def __init__(self, ds, bs): self.ds, self.bs = ds, bs

    def __iter__(self):
        for i in range(0, len(self.ds), self.bs): yield self.ds[i:i + self.bs]


train_dl = MyDataLoader(train_ds, bs)
valid_dl = MyDataLoader(valid_ds, bs)
xb, yb = next(iter(valid_dl))
print(xb.shape, yb, yb[0])
model, opt = get_model()


def fit():
    for epoch in range(epochs):
        for xb, yb in train_dl:
            preds = model(xb)
            loss = loss_func(preds, yb)
            loss.backward()
            opt.step()
            opt.zero_grad()
        report(loss, preds, yb)


fit()


class Sampler():
    def __init__(self, ds, shuffle=False): self.n, self.shuffle = len(ds), shuffle

    def __iter__(self):
        res = list(range(self.n))
        if self.shuffle: random.shuffle(res)
        return iter(res)


ss = Sampler(train_ds)
it = iter(ss)
for o in range(5): print(next(it))
print(list(islice(ss, 5)))
ss = Sampler(train_ds, shuffle=True)
print(list(islice(ss, 5)))


class MyBatchSampler():
    def __init__(self, sampler, bs, drop_last=False):
        self.sampler, self.bs, self.drop_last = sampler, bs, drop_last

    def __iter__(self): yield from chunked(iter(self.sampler), self.bs, drop_last=self.drop_last)


batchs = MyBatchSampler(ss, 4)
print(list(islice(batchs, 5)))


def collate(b):
    xs, ys = zip(*b)
    return torch.stack(xs), torch.stack(ys)


class MyDataLoader2():
    def __init__(self, ds, batchs, collate_fn=collate):
        self.ds, self.batchs, self.collate_fn = ds, batchs, collate_fn

    def __iter__(self): yield from (self.collate_fn(self.ds[i] for i in b) for b in self.batchs)


train_samp = MyBatchSampler(Sampler(train_ds, shuffle=True), bs)
valid_samp = MyBatchSampler(Sampler(valid_ds, shuffle=False), bs)
train_dl = MyDataLoader2(train_ds, batchs=train_samp)
valid_dl = MyDataLoader2(valid_ds, batchs=valid_samp)
xb, yb = next(iter(valid_dl))
print(yb[0], xb.shape, yb.shape)
assert xb.shape == (bs, 784) and yb.dtype == torch.int64
model, opt = get_model()
fit()
print(train_ds[[3, 6, 8, 1]])
print(train_ds.__getitem__([3, 6, 8, 1]))
for o in map(train_ds.__getitem__, ([3, 6], [8, 1])): print(o)

train_samp = BatchSampler(RandomSampler(train_ds), bs, drop_last=False)
valid_samp = BatchSampler(SequentialSampler(valid_ds), bs, drop_last=False)
train_dl = DataLoader(train_ds, batch_sampler=train_samp, collate_fn=collate)
valid_dl = DataLoader(valid_ds, batch_sampler=valid_samp, collate_fn=collate)
model, opt = get_model()
fit()
print(loss_func(model(xb), yb), accuracy(model(xb), yb))
train_dl = DataLoader(train_ds, bs, sampler=RandomSampler(train_ds), collate_fn=collate)
valid_dl = DataLoader(valid_ds, bs, sampler=SequentialSampler(valid_ds), collate_fn=collate)
train_dl = DataLoader(train_ds, bs, shuffle=True, drop_last=True, num_workers=2)
valid_dl = DataLoader(valid_ds, bs, shuffle=False, num_workers=2)
model, opt = get_model()
fit()
print(loss_func(model(xb), yb), accuracy(model(xb), yb))
print(train_ds[[4, 6, 7]])
train_dl = DataLoader(train_ds, sampler=train_samp)
valid_dl = DataLoader(valid_ds, sampler=valid_samp)
xb, yb = next(iter(train_dl))
print(xb.shape, yb.shape)
assert xb.shape == (1, bs, 784) and yb.shape == (1, bs)


def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss = loss_func(model(xb), yb)
            loss.backward()
            opt.step()
            opt.zero_grad()
        model.eval()
        with torch.no_grad():
            tot_loss, tot_acc, count = 0., 0., 0
            for xb, yb in valid_dl:
                pred = model(xb)
                n = len(xb)
                count += n
                tot_loss += loss_func(pred, yb).item() * n
                tot_acc += accuracy(pred, yb).item() * n
        print(epoch, tot_loss / count, tot_acc / count)
    return tot_loss / count, tot_acc / count


def get_dls(train_ds, valid_ds, bs, **kwargs):
    return (DataLoader(train_ds, batch_size=bs, shuffle=True, **kwargs),
            DataLoader(valid_ds, batch_size=bs * 2, **kwargs))


train_dl, valid_dl = get_dls(train_ds, valid_ds, bs)
model, opt = get_model()
loss, acc = fit(3, model, loss_func, opt, train_dl, valid_dl)
assert isinstance(loss, float) and acc > 0.8, (loss, acc)
