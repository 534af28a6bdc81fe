"""fastai/course22p2 nbs/13_resnet.ipynb (miniai/resnet.py, with the miniai pieces it imports:
learner.py, activations.py, init.py, sgd.py) at toy size on synthetic 16x16 images (fastcore's
store_attr/L/noop/risinstance/filter_ex and torcheval's metrics written out): the callback
Learner, ActivationStats(fc.risinstance(GeneralRelu)) as a HooksCallback, act_gr =
partial(GeneralRelu, leak=0.1, sub=0.4), conv() with nn.BatchNorm2d and bias=False,
model.apply(partial(init_weights, leaky=0.1)), BatchSchedCB(partial(lr_scheduler.OneCycleLR,
max_lr=lr, total_steps=tmax)) with optim.AdamW, the ResBlock (_conv_block, idconv = fc.noop
if ni==nf else a 1x1 conv, nn.AvgPool2d(2, ceil_mode=True) on odd sizes), the ResNet ending in
nn.Flatten, nn.Linear(bias=False) and nn.BatchNorm1d, the _print_shape Hooks walk, and
Learner.summary() with a nonlocal string and parameter count."""
import math
import random
from collections.abc import Mapping
from copy import copy
from functools import partial
from operator import attrgetter

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.nn import init
from torch.optim import lr_scheduler
from torch.utils.data import DataLoader, TensorDataset

def_device = 'cuda' if torch.cuda.is_available() else 'cpu'


def noop(x=None, *args, **kwargs): return x            # fastcore.all.noop
def risinstance(types): return lambda x: isinstance(x, types)
def filter_ex(xs, f): return [x for x in xs if f(x)]


def set_seed(seed, deterministic=False):
    torch.use_deterministic_algorithms(deterministic)
    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)


def to_device(x, device=def_device):
    if isinstance(x, torch.Tensor): return x.to(device)
    if isinstance(x, Mapping): return {k: v.to(device) for k, v in x.items()}
    return type(x)(to_device(o, device) for o in x)


def to_cpu(x):
    if isinstance(x, Mapping): return {k: to_cpu(v) for k, v in x.items()}
    if isinstance(x, list): return [to_cpu(o) for o in x]
    if isinstance(x, tuple): return tuple(to_cpu(list(x)))
    res = x.detach().cpu()
    return res.float() if res.dtype == torch.float16 else res


class Mean:   # torcheval.metrics.Mean
    def __init__(self): self.reset()
    def reset(self): self.total, self.weight = torch.tensor(0., dtype=torch.float64), 0.

    def update(self, x, weight=1.0):
        self.total += (x * weight).sum().double()
        self.weight += weight

    def compute(self): return self.total / self.weight


class MulticlassAccuracy:   # torcheval.metrics.MulticlassAccuracy
    def __init__(self): self.reset()
    def reset(self): self.correct, self.n = torch.tensor(0.), torch.tensor(0.)

    def update(self, input, target):
        self.correct += (input.argmax(dim=1) == target).sum()
        self.n += target.shape[0]

    def compute(self): return self.correct / self.n


class DataLoaders:
    def __init__(self, *dls): self.train, self.valid = dls[:2]


# ---- miniai/learner.py
class CancelFitException(Exception): pass
class CancelBatchException(Exception): pass
class CancelEpochException(Exception): pass
class Callback(): order = 0


def run_cbs(cbs, method_nm, learn=None):
    for cb in sorted(cbs, key=attrgetter('order')):
        method = getattr(cb, method_nm, None)
        if method is not None: method(learn)


class SingleBatchCB(Callback):
    order = 1
    def after_batch(self, learn): raise CancelFitException()


class MetricsCB(Callback):
    def __init__(self, *ms, **metrics):
        for o in ms: metrics[type(o).__name__] = o
        self.metrics = metrics
        self.all_metrics = copy(metrics)
        self.all_metrics['loss'] = self.loss = Mean()
        self.logs = []

    def _log(self, d): print(d); self.logs.append(d)
    def before_fit(self, learn): learn.metrics = self
    def before_epoch(self, learn): [o.reset() for o in self.all_metrics.values()]

    def after_epoch(self, learn):
        log = {k: f'{v.compute():.3f}' for k, v in self.all_metrics.items()}
        log['epoch'] = learn.epoch
        log['train'] = 'train' if learn.model.training else 'eval'
        self._log(log)

    def after_batch(self, learn):
        x, y, *_ = to_cpu(learn.batch)
        for m in self.metrics.values(): m.update(to_cpu(learn.preds), y)
        self.loss.update(to_cpu(learn.loss), weight=len(x))


class DeviceCB(Callback):
    def __init__(self, device=def_device): self.device = device

    def before_fit(self, learn):
        if hasattr(learn.model, 'to'): learn.model.to(self.device)

    def before_batch(self, learn): learn.batch = to_device(learn.batch, device=self.device)


class with_cbs:
    def __init__(self, nm): self.nm = nm

    def __call__(self, f):
        def _f(o, *args, **kwargs):
            try:
                o.callback(f'before_{self.nm}')
                f(o, *args, **kwargs)
                o.callback(f'after_{self.nm}')
            except globals()[f'Cancel{self.nm.title()}Exception']: pass
            finally: o.callback(f'cleanup_{self.nm}')
        return _f


class Learner():
    def __init__(self, model, dls=(0,), loss_func=F.mse_loss, lr=0.1, cbs=None, opt_func=optim.SGD):
        cbs = list(cbs) if isinstance(cbs, (list, tuple)) else ([] if cbs is None else [cbs])
        self.model, self.dls, self.loss_func, self.lr, self.cbs, self.opt_func = \
            model, dls, loss_func, lr, cbs, opt_func

    @with_cbs('batch')
    def _one_batch(self):
        self.predict()
        self.callback('after_predict')
        self.get_loss()
        self.callback('after_loss')
        if self.training:
            self.backward()
            self.callback('after_backward')
            self.step()
            self.callback('after_step')
            self.zero_grad()

    @with_cbs('epoch')
    def _one_epoch(self):
        for self.iter, self.batch in enumerate(self.dl): self._one_batch()

    def one_epoch(self, training):
        self.model.train(training)
        self.dl = self.dls.train if training else self.dls.valid
        self._one_epoch()

    @with_cbs('fit')
    def _fit(self, train, valid):
        for self.epoch in self.epochs:
            if train: self.one_epoch(True)
            if valid: torch.no_grad()(self.one_epoch)(False)

    def fit(self, n_epochs=1, train=True, valid=True, cbs=None, lr=None):
        cbs = list(cbs) if isinstance(cbs, (list, tuple)) else ([] if cbs is None else [cbs])
        for cb in cbs: self.cbs.append(cb)
        try:
            self.n_epochs = n_epochs
            self.epochs = range(n_epochs)
            if lr is None: lr = self.lr
            if self.opt_func: self.opt = self.opt_func(self.model.parameters(), lr)
            self._fit(train, valid)
        finally:
            for cb in cbs: self.cbs.remove(cb)

    def __getattr__(self, name):
        if name in ('predict', 'get_loss', 'backward', 'step', 'zero_grad'): return partial(self.callback, name)
        raise AttributeError(name)

    def callback(self, method_nm): run_cbs(self.cbs, method_nm, self)

    @property
    def training(self): return self.model.training


class TrainLearner(Learner):
    def predict(self): self.preds = self.model(self.batch[0])
    def get_loss(self): self.loss = self.loss_func(self.preds, self.batch[1])
    def backward(self): self.loss.backward()
    def step(self): self.opt.step()
    def zero_grad(self): self.opt.zero_grad()


# ---- miniai/activations.py
class Hook():
    def __init__(self, m, f): self.hook = m.register_forward_hook(partial(f, self))
    def remove(self): self.hook.remove()
    def __del__(self): self.remove()


class Hooks(list):
    def __init__(self, ms, f): super().__init__([Hook(m, f) for m in ms])
    def __enter__(self, *args): return self
    def __exit__(self, *args): self.remove()
    def __del__(self): self.remove()

    def __delitem__(self, i):
        self[i].remove()
        super().__delitem__(i)

    def remove(self):
        for h in self: h.remove()


class HooksCallback(Callback):
    def __init__(self, hookfunc, mod_filter=noop, on_train=True, on_valid=False, mods=None):
        self.hookfunc, self.mod_filter, self.on_train, self.on_valid, self.mods = \
            hookfunc, mod_filter, on_train, on_valid, mods
        super().__init__()

    def before_fit(self, learn):
        if self.mods: mods = self.mods
        else: mods = filter_ex(learn.model.modules(), self.mod_filter)
        self.hooks = Hooks(mods, partial(self._hookfunc, learn))

    def _hookfunc(self, learn, *args, **kwargs):
        if (self.on_train and learn.training) or (self.on_valid and not learn.training): self.hookfunc(*args, **kwargs)

    def after_fit(self, learn): self.hooks.remove()
    def __iter__(self): return iter(self.hooks)
    def __len__(self): return len(self.hooks)


def append_stats(hook, mod, inp, outp):
    if not hasattr(hook, 'stats'): hook.stats = ([], [], [])
    acts = to_cpu(outp)
    hook.stats[0].append(acts.mean())
    hook.stats[1].append(acts.std())
    hook.stats[2].append(acts.abs().histc(40, 0, 10))


def get_min(h):
    h1 = torch.stack(h.stats[2]).t().float()
    return h1[0] / h1.sum(0)


class ActivationStats(HooksCallback):
    def __init__(self, mod_filter=noop): super().__init__(append_stats, mod_filter)


# ---- miniai/init.py, sgd.py
class GeneralRelu(nn.Module):
    def __init__(self, leak=None, sub=None, maxv=None):
        super().__init__()
        self.leak, self.sub, self.maxv = leak, sub, maxv

    def forward(self, x):
        x = F.leaky_relu(x, self.leak) if self.leak is not None else F.relu(x)
        if self.sub is not None: x -= self.sub
        if self.maxv is not None: x.clamp_max_(self.maxv)
        return x


def init_weights(m, leaky=0.):
    if isinstance(m, (nn.Conv1d, nn.Conv2d, nn.Conv3d)): init.kaiming_normal_(m.weight, a=leaky)


def conv(ni, nf, ks=3, stride=2, act=nn.ReLU, norm=None, bias=None):
    if bias is None: bias = not isinstance(norm, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d))
    layers = [nn.Conv2d(ni, nf, stride=stride, kernel_size=ks, padding=ks//2, bias=bias)]
    if norm: layers.append(norm(nf))
    if act: layers.append(act())
    return nn.Sequential(*layers)


class BaseSchedCB(Callback):
    def __init__(self, sched): self.sched = sched
    def before_fit(self, learn): self.schedo = self.sched(learn.opt)

    def _step(self, learn):
        if learn.training: self.schedo.step()


class BatchSchedCB(BaseSchedCB):
    def after_batch(self, learn): self._step(learn)


# ---- 13_resnet
act_gr = partial(GeneralRelu, leak=0.1, sub=0.4)


def _conv_block(ni, nf, stride, act=act_gr, norm=None, ks=3):
    return nn.Sequential(conv(ni, nf, stride=1, act=act, norm=norm, ks=ks),
                         conv(nf, nf, stride=stride, act=None, norm=norm, ks=ks))


class ResBlock(nn.Module):
    def __init__(self, ni, nf, stride=1, ks=3, act=act_gr, norm=None):
        super().__init__()
        self.convs = _conv_block(ni, nf, stride, act=act, ks=ks, norm=norm)
        self.idconv = noop if ni == nf else conv(ni, nf, ks=1, stride=1, act=None)
        self.pool = noop if stride == 1 else nn.AvgPool2d(2, ceil_mode=True)
        self.act = act()

    def forward(self, x): return self.act(self.convs(x) + self.idconv(self.pool(x)))


# synthetic "fashion": 4 classes of 16x16 blobs in different quadrants, normalised
set_seed(42)
g = torch.Generator().manual_seed(0)
def make(n):
    y = torch.randint(0, 4, (n,), generator=g)
    x = torch.randn(n, 1, 16, 16, generator=g) * 0.3
    for i, c in enumerate(y.tolist()):
        r, col = divmod(c, 2)
        x[i, 0, r*8:r*8+8, col*8:col*8+8] += 1.0
    xmean, xstd = x.mean(), x.std()
    return (x - xmean) / xstd, y
bs = 64
dls = DataLoaders(DataLoader(TensorDataset(*make(256)), batch_size=bs, shuffle=True),
                  DataLoader(TensorDataset(*make(128)), batch_size=128))

# the plain conv net with batchnorm, OneCycle AdamW and activation stats
metrics = MetricsCB(accuracy=MulticlassAccuracy())
astats = ActivationStats(risinstance(GeneralRelu))
cbs = [DeviceCB(), metrics, astats]
iw = partial(init_weights, leaky=0.1)


def get_model(act=nn.ReLU, nfs=(8, 16, 32, 64), norm=nn.BatchNorm2d):
    layers = [conv(1, 8, stride=1, act=act, norm=norm)]
    layers += [conv(nfs[i], nfs[i+1], act=act, norm=norm) for i in range(len(nfs)-1)]
    return nn.Sequential(*layers, conv(nfs[-1], 10, act=None, norm=norm, bias=True), nn.Flatten()).to(def_device)


set_seed(42)
lr, epochs = 6e-2, 2
model = get_model(act_gr, norm=nn.BatchNorm2d).apply(iw)
# conv() tests isinstance(norm, ...) on the class, not an instance: every conv keeps its bias
assert model[0][0].bias is not None and model[-2][0].bias is not None
tmax = epochs * len(dls.train)
sched = partial(lr_scheduler.OneCycleLR, max_lr=lr, total_steps=tmax)
xtra = [BatchSchedCB(sched)]
learn = TrainLearner(model, dls, F.cross_entropy, lr=lr, cbs=cbs+xtra, opt_func=optim.AdamW)
learn.fit(epochs)
assert len(astats) == 4                      # one hook per GeneralRelu
for h in astats:
    assert len(h.stats[0]) == tmax           # on_train only
    mins = get_min(h)
    assert mins.shape == (tmax,) and bool(((mins >= 0) & (mins <= 1)).all())
assert float(metrics.logs[-1]['accuracy']) > 0.6, metrics.logs
pg = learn.opt.param_groups[0]
print(pg['lr'], pg['initial_lr'], pg['max_lr'], pg['min_lr'], pg['betas'])
assert (pg['initial_lr'], pg['max_lr'], pg['min_lr']) == (lr / 25, lr, lr / 25 / 1e4)
assert xtra[0].schedo.last_epoch == tmax and pg['betas'][0] != 0.9


# the ResNet
def get_model(act=nn.ReLU, nfs=(8, 16, 32, 64), norm=nn.BatchNorm2d):
    layers = [ResBlock(1, 8, stride=1, act=act, norm=norm)]
    layers += [ResBlock(nfs[i], nfs[i+1], act=act, norm=norm, stride=2) for i in range(len(nfs)-1)]
    layers += [nn.Flatten(), nn.Linear(nfs[-1] * 4, 10, bias=False), nn.BatchNorm1d(10)]
    return nn.Sequential(*layers).to(def_device)


shapes = []
def _print_shape(hook, mod, inp, outp):
    print(type(mod).__name__, inp[0].shape, outp.shape)
    shapes.append((type(mod).__name__, tuple(inp[0].shape), tuple(outp.shape)))
model = get_model()
learn = TrainLearner(model, dls, F.cross_entropy, cbs=[DeviceCB(), SingleBatchCB()])
with Hooks(model, _print_shape) as hooks: learn.fit(1, train=False)
assert shapes == [('ResBlock', (128, 1, 16, 16), (128, 8, 16, 16)),
                  ('ResBlock', (128, 8, 16, 16), (128, 16, 8, 8)),
                  ('ResBlock', (128, 16, 8, 8), (128, 32, 4, 4)),
                  ('ResBlock', (128, 32, 4, 4), (128, 64, 2, 2)),
                  ('Flatten', (128, 64, 2, 2), (128, 256)),
                  ('Linear', (128, 256), (128, 10)),
                  ('BatchNorm1d', (128, 10), (128, 10))], shapes
n = len(shapes)
learn.fit(1, train=False)
assert len(shapes) == n                     # the hooks went with the with-block

# ceil_mode pooling keeps an odd size: 5x5 -> 3x3 on both paths of the block
blk = ResBlock(4, 6, stride=2)
assert blk(torch.randn(2, 4, 5, 5)).shape == (2, 6, 3, 3)
assert ResBlock(6, 6).idconv is noop


def summary(self):
    res = '|Module|Input|Output|Num params|\n|--|--|--|--|\n'
    tot = 0
    def _f(hook, mod, inp, outp):
        nonlocal res, tot
        nparms = sum(o.numel() for o in mod.parameters())
        tot += nparms
        res += f'|{type(mod).__name__}|{tuple(inp[0].shape)}|{tuple(outp.shape)}|{nparms}|\n'
    with Hooks(self.model, _f) as hooks: self.fit(1, lr=1, train=False, cbs=SingleBatchCB())
    print("Tot params: ", tot)
    print(res)
    return tot, res


Learner.summary = summary
tot, res = TrainLearner(get_model(), dls, F.cross_entropy, cbs=DeviceCB()).summary()
assert tot == sum(p.numel() for p in get_model().parameters())
assert res.count('\n') == 2 + 7 and '|Linear|(128, 256)|(128, 10)|2560|' in res

set_seed(42)
lr = 2e-2
metrics = MetricsCB(accuracy=MulticlassAccuracy())
sched = partial(lr_scheduler.OneCycleLR, max_lr=lr, total_steps=tmax)
model = get_model(act_gr, norm=nn.BatchNorm2d).apply(iw)
learn = TrainLearner(model, dls, F.cross_entropy, lr=lr, cbs=[DeviceCB(), metrics, BatchSchedCB(sched)],
                     opt_func=optim.AdamW)
learn.fit(epochs)
assert float(metrics.logs[-1]['accuracy']) > 0.6, metrics.logs
assert math.isfinite(float(metrics.logs[-1]['loss']))
