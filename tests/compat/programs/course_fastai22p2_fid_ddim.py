"""fastai/course22p2 nbs/18_fid.ipynb (miniai/fid.py) and 20_DDIM.ipynb, at toy size (the
miniai Learner written out as in course_fastai22p2_resnet; a small conv net stands in for the
trained classifier whose features FID compares, and a small UNet-like model with a .sample
output for the DDPM; scipy's sqrtm, which the lesson switched to, is not installed: the lesson's
own _sqrtm_newton_schulz is used, as its commented-out line does): _sqrtm_newton_schulz
(mat.norm(), .double(), torch.eye(n, n).to(mat), Y, Z = Y@T, T@Z), _calc_stats (feats.T.cov()),
_calc_fid with .trace(), _squared_mmd with kxx.diagonal(0, -1, -2) and batched matmuls, _calc_kid
slicing by round(), ImageEval built on TrainLearner(..., loss_func=noop, opt_func=None) and
capture_preds, get_feats feeding a plain list as a DataLoader; DDIM: linear_sched returning a
SimpleNamespace, ddim_step (x_t += sig * torch.randn(x_t.shape).to(x_t)), sample() with skipped
timesteps and torch.tensor(1) for the last abar, and noisify's triangular timesteps
(np.random.triangular -> tensor(t, dtype=torch.long) truncating floats)."""
import math
import random
from types import SimpleNamespace
from collections.abc import Mapping
from copy import copy
from functools import partial
from operator import attrgetter

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn, optim, tensor
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


class CapturePreds(Callback):
    def before_fit(self, learn): self.all_inps, self.all_preds, self.all_targs = [], [], []

    def after_batch(self, learn):
        self.all_inps. append(to_cpu(learn.batch[0]))
        self.all_preds.append(to_cpu(learn.preds))
        self.all_targs.append(to_cpu(learn.batch[1]))

    def after_fit(self, learn):
        self.all_preds, self.all_targs, self.all_inps = map(torch.cat, [self.all_preds, self.all_targs, self.all_inps])


def capture_preds(self, cbs=None, inps=False):
    cp = CapturePreds()
    self.fit(1, train=False, cbs=[cp]+list(cbs or []))
    res = cp.all_preds, cp.all_targs
    if inps: res = res+(cp.all_inps,)
    return res


Learner.capture_preds = capture_preds


# ---- miniai/fid.py
def _sqrtm_newton_schulz(mat, num_iters=100):
    mat_nrm = mat.norm()
    mat = mat.double()
    Y = mat/mat_nrm
    n = len(mat)
    I = torch.eye(n, n).to(mat)
    Z = torch.eye(n, n).to(mat)
    for i in range(num_iters):
        T = (3*I - Z@Y)/2
        Y, Z = Y@T, T@Z
        res = Y*mat_nrm.sqrt()
        if ((mat-(res@res)).norm()/mat_nrm).abs() <= 1e-6: break
    return res


def _calc_stats(feats):
    feats = feats.squeeze()
    return feats.mean(0), feats.T.cov()


def _calc_fid(m1, c1, m2, c2):
    csr = _sqrtm_newton_schulz(c1@c2)
    return (((m1-m2)**2).sum() + c1.trace() + c2.trace() - 2*csr.trace()).item()


def _squared_mmd(x, y):
    def k(a, b): return (a@b.transpose(-2, -1)/a.shape[-1]+1)**3
    m, n = x.shape[-2], y.shape[-2]
    kxx, kyy, kxy = k(x, x), k(y, y), k(x, y)
    kxx_sum = kxx.sum([-1, -2])-kxx.diagonal(0, -1, -2).sum(-1)
    kyy_sum = kyy.sum([-1, -2])-kyy.diagonal(0, -1, -2).sum(-1)
    kxy_sum = kxy.sum([-1, -2])
    return kxx_sum/m/(m-1) + kyy_sum/n/(n-1) - kxy_sum*2/m/n


def _calc_kid(x, y, maxs=50):
    xs, ys = x.shape[0], y.shape[0]
    n = max(math.ceil(min(xs/maxs, ys/maxs)), 4)
    mmd = 0.
    for i in range(n):
        cur_x = x[round(i*xs/n): round((i+1)*xs/n)]
        cur_y = y[round(i*ys/n): round((i+1)*ys/n)]
        mmd += _squared_mmd(cur_x, cur_y)
    return (mmd/n).item()


class ImageEval:
    def __init__(self, model, dls, cbs=None):
        self.learn = TrainLearner(model, dls, loss_func=noop, cbs=cbs, opt_func=None)
        self.feats = self.learn.capture_preds()[0].float().cpu().squeeze()
        self.stats = _calc_stats(self.feats)

    def get_feats(self, samp):
        self.learn.dls = DataLoaders([], [(samp, tensor([0]))])
        return self.learn.capture_preds()[0].float().cpu().squeeze()

    def fid(self, samp): return _calc_fid(*self.stats, *_calc_stats(self.get_feats(samp)))
    def kid(self, samp): return _calc_kid(self.feats, self.get_feats(samp))


# the square root of a symmetric positive definite matrix
torch.manual_seed(0)
A = torch.randn(6, 6, dtype=torch.float64)
spd = A @ A.T + 6 * torch.eye(6, dtype=torch.float64)
r = _sqrtm_newton_schulz(spd)
assert r.dtype == torch.float64 and torch.allclose(r @ r, spd, atol=1e-5)
assert torch.allclose(r, r.T, atol=1e-8)

# features of synthetic 16x16 images from a small classifier body (no head: 16 features)
set_seed(42)
g = torch.Generator().manual_seed(0)
def images(n, shift=0.):
    return (torch.rand(n, 1, 16, 16, generator=g) + shift).clamp(0, 1) * 2 - 1
feat_model = nn.Sequential(nn.Conv2d(1, 8, 3, stride=2, padding=1), nn.ReLU(),
                           nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU(),
                           nn.AdaptiveAvgPool2d(1), nn.Flatten())
real = images(128)
dls = DataLoaders(DataLoader(TensorDataset(real, torch.zeros(128, dtype=torch.long)), batch_size=64),
                  DataLoader(TensorDataset(real, torch.zeros(128, dtype=torch.long)), batch_size=64))
ie = ImageEval(feat_model, dls, cbs=[DeviceCB()])
assert ie.feats.shape == (128, 16) and ie.stats[1].shape == (16, 16)
assert torch.allclose(ie.stats[1], torch.tensor(np.cov(ie.feats.numpy().T), dtype=torch.float32), atol=1e-5)
same, other = images(96), images(96, shift=0.4)
fid_same, fid_other = ie.fid(same), ie.fid(other)
kid_same, kid_other = ie.kid(same), ie.kid(other)
print('fid', fid_same, fid_other, 'kid', kid_same, kid_other)
assert isinstance(fid_same, float) and fid_other > 10 * max(fid_same, 1e-6) and kid_other > kid_same
mmd = _squared_mmd(ie.feats[:64], ie.feats[64:])
assert mmd.dim() == 0


# ---- 20_DDIM: the DDIM sampler by hand on a tiny noise-predicting model
n_steps = 1000


def linear_sched(betamin=0.0001, betamax=0.02, n_steps=1000):
    beta = torch.linspace(betamin, betamax, n_steps)
    return SimpleNamespace(a=1.-beta, abar=(1.-beta).cumprod(dim=0), sig=beta.sqrt())


sc = linear_sched(betamax=0.01, n_steps=n_steps)
abar = sc.abar
assert abar.shape == (1000,) and bool((abar[1:] < abar[:-1]).all())


def ddim_step(x_t, t, noise, abar_t, abar_t1, bbar_t, bbar_t1, eta):
    vari = ((bbar_t1/bbar_t) * (1-abar_t/abar_t1))
    sig = vari.sqrt()*eta
    x_0_hat = ((x_t-bbar_t.sqrt()*noise) / abar_t.sqrt())
    x_t = abar_t1.sqrt()*x_0_hat + (bbar_t1-sig**2).sqrt()*noise
    if t > 0: x_t += sig * torch.randn(x_t.shape).to(x_t)
    return x_t


class TinyNoiseModel(nn.Module):   # stands in for the trained diffusers UNet
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 1, 3, padding=1)

    @property
    def device(self): return next(self.parameters()).device

    def forward(self, x, t):
        return SimpleNamespace(sample=self.conv(x) * 0.1)


@torch.no_grad()
def sample(f, model, sz, n_steps, skips=1, eta=1.):
    tsteps = list(reversed(range(0, n_steps, skips)))
    x_t = torch.randn(sz).to(model.device)
    preds = []
    for i, t in enumerate(tsteps):
        abar_t1 = abar[tsteps[i+1]] if t > 0 else torch.tensor(1)
        noise = model(x_t, t).sample
        x_t = f(x_t, t, noise, abar[t], abar_t1, 1-abar[t], 1-abar_t1, eta)
        preds.append(x_t.float().cpu())
    return preds


set_seed(1)
model = TinyNoiseModel()
samples = sample(ddim_step, model, (4, 1, 16, 16), 1000, 10)
assert len(samples) == 100 and samples[-1].shape == (4, 1, 16, 16)
assert bool(torch.isfinite(samples[-1]).all())
# eta=0 is deterministic: the same start gives the same sample
set_seed(2)
a = sample(ddim_step, model, (2, 1, 16, 16), 1000, 50, eta=0.)[-1]
set_seed(2)
b = sample(ddim_step, model, (2, 1, 16, 16), 1000, 50, eta=0.)[-1]
assert torch.equal(a, b)
# with a perfect noise model the deterministic sampler recovers x_0 from x_t in one jump
x0 = images(2)
eps = torch.randn(x0.shape)
t = 500
xt = abar[t].sqrt() * x0 + (1 - abar[t]).sqrt() * eps
one = torch.tensor(1)
rec = ddim_step(xt, 0, eps, abar[t], one, 1 - abar[t], 1 - one, 0.)
assert torch.allclose(rec, x0, atol=1e-4)


def noisify(x0, ᾱ):
    device = x0.device
    n = len(x0)
    t = torch.randint(0, n_steps, (n,), dtype=torch.long)
    t = np.random.triangular(0, 0.5, 1, (n,))*n_steps
    t = tensor(t, dtype=torch.long)
    ε = torch.randn(x0.shape, device=device)
    ᾱ_t = ᾱ[t].reshape(-1, 1, 1, 1).to(device)
    xt = ᾱ_t.sqrt()*x0 + (1-ᾱ_t).sqrt()*ε
    return (xt, t.to(device)), ε


np.random.seed(0)
xb = images(256)
(xt, t), ε = noisify(xb, abar)
tri = np.random.RandomState(0).triangular(0, 0.5, 1, (256,)) * n_steps
assert t.dtype == torch.int64 and t.tolist() == [int(v) for v in tri]      # truncated, as torch
assert 300 < t.float().mean() < 700 and xt.shape == xb.shape
