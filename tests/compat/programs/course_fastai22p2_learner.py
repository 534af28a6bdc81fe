"""fastai/course22p2 nbs/09_learner.ipynb / miniai/learner.py, at toy size on synthetic data
(fastcore's store_attr/L and torcheval's Mean/MulticlassAccuracy written out with torch ops): the
callback Learner with run_cbs sorted by attrgetter('order'), the with_cbs decorator catching
Cancel{Fit,Epoch,Batch}Exception, torch.no_grad()(self.one_epoch)(False) (no_grad used as a
decorator on a bound method), model.train(training), __getattr__ forwarding to callbacks,
TrainCB(n_inp=1) with learn.model(*learn.batch[:n_inp]), DeviceCB with to_device over tuples,
MetricsCB with to_cpu (detach().cpu(), float16 -> float), f'{v.compute():.3f}', SingleBatchCB,
TrainLearner, MomentumLearner (p.grad *= self.mom under no_grad), and the LR finder: ExponentialLR
(learn.opt, gamma) stepped per batch, learn.opt.param_groups[0]['lr'], math.isnan on a 0-d tensor,
loss > self.min*self.max_mult, cleanup_fit."""
import math
from collections.abc import Mapping
from copy import copy
from functools import partial
from operator import attrgetter

import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.optim.lr_scheduler import ExponentialLR
from torch.utils.data import DataLoader, TensorDataset

def_device = 'mps' if torch.backends.mps.is_available() else 'cuda' if torch.cuda.is_available() else 'cpu'


def to_device(x, device=def_device):
    if isinstance(x, torch.Tensor): return x.to(device)
    if isinstance(x, Mapping): return {k: v.to(device) for k, v in x.items()}
    return type(x)(to_device(o, device) for o in x)


class Mean:   # torcheval.metrics.Mean
    def __init__(self): self.reset()
    def reset(self): self.total, self.weight = torch.tensor(0., dtype=torch.float64), 0.

    def update(self, x, weight=1.0):
        self.total += (x * weight).sum().double()
        self.weight += weight
        return self

    def compute(self): return self.total / self.weight


class MulticlassAccuracy:   # torcheval.metrics.MulticlassAccuracy
    def __init__(self): self.reset()
    def reset(self): self.correct, self.n = torch.tensor(0.), torch.tensor(0.)

    def update(self, input, target):
        self.correct += (input.argmax(dim=1) == target).sum()
        self.n += target.shape[0]
        return self

    def compute(self): return self.correct / self.n


class DataLoaders:
    def __init__(self, *dls): self.train, self.valid = dls[:2]


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


def to_cpu(x):
    if isinstance(x, Mapping): return {k: to_cpu(v) for k, v in x.items()}
    if isinstance(x, list): return [to_cpu(o) for o in x]
    if isinstance(x, tuple): return tuple(to_cpu(list(x)))
    res = x.detach().cpu()
    return res.float() if res.dtype == torch.float16 else res


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


class TrainCB(Callback):
    def __init__(self, n_inp=1): self.n_inp = n_inp
    def predict(self, learn): learn.preds = learn.model(*learn.batch[:self.n_inp])
    def get_loss(self, learn): learn.loss = learn.loss_func(learn.preds, *learn.batch[self.n_inp:])
    def backward(self, learn): learn.loss.backward()
    def step(self, learn): learn.opt.step()
    def zero_grad(self, learn): learn.opt.zero_grad()


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
        cbs = list(cbs or [])
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
        cbs = list(cbs or []) if not isinstance(cbs, Callback) else [cbs]
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


class MomentumLearner(TrainLearner):
    def __init__(self, model, dls, loss_func, lr=None, cbs=None, opt_func=optim.SGD, mom=0.85):
        self.mom = mom
        super().__init__(model, dls, loss_func, lr, cbs, opt_func)

    def zero_grad(self):
        with torch.no_grad():
            for p in self.model.parameters(): p.grad *= self.mom


class LRFinderCB(Callback):
    def __init__(self, gamma=1.3, max_mult=3): self.gamma, self.max_mult = gamma, max_mult

    def before_fit(self, learn):
        self.sched = ExponentialLR(learn.opt, self.gamma)
        self.lrs, self.losses = [], []
        self.min = math.inf

    def after_batch(self, learn):
        if not learn.training: raise CancelEpochException()
        self.lrs.append(learn.opt.param_groups[0]['lr'])
        loss = to_cpu(learn.loss)
        self.losses.append(loss)
        if loss < self.min: self.min = loss
        if math.isnan(loss) or (loss > self.min * self.max_mult):
            raise CancelFitException()
        self.sched.step()

    def cleanup_fit(self, learn):
        self.done = True


def lr_find(self, gamma=1.3, max_mult=3, start_lr=1e-5, max_epochs=10):
    cb = LRFinderCB(gamma=gamma, max_mult=max_mult)
    self.fit(max_epochs, lr=start_lr, cbs=cb)
    return cb


Learner.lr_find = lr_find

# data: 10 noisy prototypes of 64 features
torch.manual_seed(0)
protos = (torch.rand(10, 64) > 0.7).float()
def make(n):
    y = torch.randint(0, 10, (n,))
    return protos[y] + 0.3 * torch.randn(n, 64), y
dls = DataLoaders(DataLoader(TensorDataset(*make(512)), batch_size=64, shuffle=True),
                  DataLoader(TensorDataset(*make(128)), batch_size=128))
m, nh = 64, 50
def get_model(): return nn.Sequential(nn.Linear(m, nh), nn.ReLU(), nn.Linear(nh, 10))


# TrainCB + DeviceCB + MetricsCB
metrics = MetricsCB(accuracy=MulticlassAccuracy())
cbs = [TrainCB(), DeviceCB(), metrics]
learn = Learner(get_model(), dls, F.cross_entropy, lr=0.2, cbs=cbs)
learn.fit(2)
assert [l['train'] for l in metrics.logs] == ['train', 'eval', 'train', 'eval']
assert float(metrics.logs[-1]['accuracy']) > 0.8, metrics.logs

# SingleBatchCB stops after one batch; cleanup still runs
class CountCB(Callback):
    def __init__(self): self.n, self.cleaned = 0, False
    def after_batch(self, learn): self.n += 1
    def cleanup_fit(self, learn): self.cleaned = True


cnt = CountCB()
learn = TrainLearner(get_model(), dls, F.cross_entropy, lr=0.1, cbs=[DeviceCB(), cnt])
learn.fit(1, cbs=[SingleBatchCB()])
assert cnt.n == 1 and cnt.cleaned and len(learn.cbs) == 2

# MomentumLearner keeps a decayed gradient instead of zeroing it
metrics = MetricsCB(accuracy=MulticlassAccuracy())
learn = MomentumLearner(get_model(), dls, F.cross_entropy, lr=0.1, cbs=[DeviceCB(), metrics])
learn.fit(2)
g = learn.model[0].weight.grad
assert g is not None and g.abs().sum() > 0
assert float(metrics.logs[-1]['accuracy']) > 0.8, metrics.logs

# the LR finder: lr grows by gamma each batch until the loss blows up
learn = MomentumLearner(get_model(), dls, F.cross_entropy, cbs=[DeviceCB()])
finder = learn.lr_find(gamma=1.5, max_epochs=30)
print(len(finder.lrs), finder.lrs[:3], finder.lrs[-1])
assert finder.done and finder.lrs[0] == 1e-5
assert all(abs(b / a - 1.5) < 1e-9 for a, b in zip(finder.lrs, finder.lrs[1:]))
assert finder.lrs[-1] > 1e-2 and finder.losses[0].dtype == torch.float32
assert finder.min == min(finder.losses)
