"""fastai/course22p2 nbs/12_accel_sgd.ipynb at toy size (a small conv net on synthetic 16x16
images, a plain training loop in place of the Learner): the hand-written SGD (reg_step with
p *= 1 - lr*wd, p -= p.grad * lr under no_grad, p.grad.data.zero_()), Momentum keeping
p.grad_avg as an attribute on the Parameter, RMSProp (p.sqr_avg = p.grad**2 first), Adam with
bias correction by self.i; the exponentially weighted average by hand; then torch's own optimizer
object: dir(lr_scheduler) names, the public names of dir(opt), opt.state[param] after one step,
len(opt.param_groups), list(pg) keys, lr_scheduler.CosineAnnealingLR(opt, 100) with base_lrs /
get_last_lr() / sched.optimizer.step() / sched.step() past T_max, BatchSchedCB / EpochSchedCB
style scheduling with partial(lr_scheduler.CosineAnnealingLR, T_max=tmax) and
partial(lr_scheduler.OneCycleLR, max_lr=lr, total_steps=tmax) on optim.AdamW, a recorder reading
pg['lr'] and pg['betas'][0]."""
from functools import partial

import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.optim import lr_scheduler

torch.set_printoptions(precision=2, linewidth=140, sci_mode=False)
torch.manual_seed(1)

g = torch.Generator().manual_seed(0)
ys_all = torch.randint(0, 4, (128,), generator=g)
xs_all = torch.randn(128, 1, 16, 16, generator=g) * 0.3
for i, c in enumerate(ys_all.tolist()):
    xs_all[i, 0, c * 4:c * 4 + 4, :] += 1.0
batches = [(xs_all[i:i + 32], ys_all[i:i + 32]) for i in range(0, 128, 32)]


def get_model():
    return nn.Sequential(nn.Conv2d(1, 8, 3, stride=2, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                         nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 4))


def fit(model, opt, epochs=3, after_batch=None, after_epoch=None):
    for epoch in range(epochs):
        model.train()
        for xb, yb in batches:
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            opt.zero_grad()
            if after_batch: after_batch()
        if after_epoch: after_epoch()
    model.eval()
    with torch.no_grad():
        acc = (model(xs_all).argmax(1) == ys_all).float().mean().item()
    return loss.item(), acc


class SGD:
    def __init__(self, params, lr, wd=0.):
        params = list(params)
        self.params, self.lr, self.wd = params, lr, wd
        self.i = 0

    def step(self):
        with torch.no_grad():
            for p in self.params:
                self.reg_step(p)
                self.opt_step(p)
        self.i += 1

    def opt_step(self, p): p -= p.grad * self.lr

    def reg_step(self, p):
        if self.wd != 0: p *= 1 - self.lr * self.wd

    def zero_grad(self):
        for p in self.params: p.grad.data.zero_()


class Momentum(SGD):
    def __init__(self, params, lr, wd=0., mom=0.9):
        super().__init__(params, lr=lr, wd=wd)
        self.mom = mom

    def opt_step(self, p):
        if not hasattr(p, 'grad_avg'): p.grad_avg = torch.zeros_like(p.grad)
        p.grad_avg = p.grad_avg * self.mom + p.grad * (1 - self.mom)
        p -= self.lr * p.grad_avg


class RMSProp(SGD):
    def __init__(self, params, lr, wd=0., sqr_mom=0.99, eps=1e-5):
        super().__init__(params, lr=lr, wd=wd)
        self.sqr_mom, self.eps = sqr_mom, eps

    def opt_step(self, p):
        if not hasattr(p, 'sqr_avg'): p.sqr_avg = p.grad**2
        p.sqr_avg = p.sqr_avg * self.sqr_mom + p.grad**2 * (1 - self.sqr_mom)
        p -= self.lr * p.grad / (p.sqr_avg.sqrt() + self.eps)


class Adam(SGD):
    def __init__(self, params, lr, wd=0., beta1=0.9, beta2=0.99, eps=1e-5):
        super().__init__(params, lr=lr, wd=wd)
        self.beta1, self.beta2, self.eps = beta1, beta2, eps

    def opt_step(self, p):
        if not hasattr(p, 'avg'): p.avg = torch.zeros_like(p.grad.data)
        if not hasattr(p, 'sqr_avg'): p.sqr_avg = torch.zeros_like(p.grad.data)
        p.avg = self.beta1 * p.avg + (1 - self.beta1) * p.grad
        unbias_avg = p.avg / (1 - (self.beta1**(self.i + 1)))
        p.sqr_avg = self.beta2 * p.sqr_avg + (1 - self.beta2) * (p.grad**2)
        unbias_sqr_avg = p.sqr_avg / (1 - (self.beta2**(self.i + 1)))
        p -= self.lr * unbias_avg / (unbias_sqr_avg + self.eps).sqrt()


results = {}
for name, opt_func, lr in [("sgd", partial(SGD, wd=1e-4), 0.4), ("momentum", Momentum, 0.5),
                           ("rmsprop", RMSProp, 3e-3), ("adam", Adam, 6e-3)]:
    torch.manual_seed(42)
    model = get_model()
    opt = opt_func(model.parameters(), lr=lr)
    results[name] = fit(model, opt, epochs=6)
    print(name, results[name])
    assert results[name][1] > 0.6, (name, results[name])
p0 = next(iter(model.parameters()))
assert p0.avg.shape == p0.shape and isinstance(p0, nn.Parameter) and opt.i == 24

xs = torch.linspace(-4, 4, 100)
ys = 1 - (xs / 3) ** 2 + torch.randn(100) * 0.1
for beta in [0.5, 0.7, 0.9, 0.99]:
    avg, res = 0, []
    for yi in ys:
        avg = beta * avg + (1 - beta) * yi
        res.append(avg)
    assert res[-1].shape == () and res[-1].dtype == torch.float32
print(' '.join(o for o in dir(lr_scheduler) if o[0].isupper() and o[1].islower()))
names = set(filter(lambda x: x[0].isupper() and x[1].islower(), dir(lr_scheduler)))
assert {"CosineAnnealingLR", "OneCycleLR", "ExponentialLR", "StepLR", "LambdaLR"} <= names

model = get_model()
opt = optim.SGD(model.parameters(), lr=6e-3)
xb, yb = batches[0]
F.cross_entropy(model(xb), yb).backward()
opt.step()
print(' '.join(o for o in dir(opt) if o[0] != '_'))
print(opt)
param = next(iter(model.parameters()))
st = opt.state[param]
print(st, len(opt.param_groups))
pg = opt.param_groups[0]
print(list(pg))
assert list(pg)[:2] == ['params', 'lr'] and {'momentum', 'weight_decay', 'nesterov'} <= set(pg)
sched = lr_scheduler.CosineAnnealingLR(opt, 100)
print(sched.base_lrs, sched.get_last_lr())
assert sched.base_lrs == [6e-3] and sched.get_last_lr() == [6e-3]


def sched_lrs(sched, steps):
    lrs = [sched.get_last_lr()]
    for i in range(steps):
        sched.optimizer.step()
        sched.step()
        lrs.append(sched.get_last_lr())
    return lrs


lrs = sched_lrs(sched, 110)
print(lrs[50], lrs[100], lrs[110])
assert abs(lrs[50][0] - 3e-3) < 1e-9 and lrs[100][0] < 1e-12 and lrs[110][0] > 0


class Recorder:
    def __init__(self, opt, **d): self.d, self.pg, self.recs = d, opt.param_groups[0], {k: [] for k in d}

    def after_batch(self):
        for k, v in self.d.items(): self.recs[k].append(v(self))


def _lr(cb): return cb.pg['lr']
def _beta1(cb): return cb.pg['betas'][0]


tmax = 3 * len(batches)
sched = partial(lr_scheduler.CosineAnnealingLR, T_max=tmax)
torch.manual_seed(42)
model = get_model()
opt = optim.AdamW(model.parameters(), lr=2e-2)
schedo = sched(opt)
rec = Recorder(opt, lr=_lr)
out = fit(model, opt, after_batch=lambda: (schedo.step(), rec.after_batch()))
print(out, rec.recs['lr'])
assert rec.recs['lr'][-1] < 1e-12 and out[1] > 0.4

sched = partial(lr_scheduler.CosineAnnealingLR, T_max=3)
torch.manual_seed(42)
model = get_model()
opt = optim.AdamW(model.parameters(), lr=2e-2)
schedo = sched(opt)
out = fit(model, opt, after_epoch=schedo.step)
assert opt.param_groups[0]['lr'] < 1e-12

lr, epochs = 6e-2, 5
torch.manual_seed(42)
model = get_model()
tmax = epochs * len(batches)
opt = optim.AdamW(model.parameters(), lr=lr)
sched = partial(lr_scheduler.OneCycleLR, max_lr=lr, total_steps=tmax)
schedo = sched(opt)
rec = Recorder(opt, lr=_lr, mom=_beta1)
out = fit(model, opt, epochs=epochs, after_batch=lambda: (schedo.step(), rec.after_batch())
          if schedo.last_epoch < tmax - 1 else rec.after_batch())
lrs, moms = rec.recs['lr'], rec.recs['mom']
print(out, max(lrs), min(moms), max(moms))
assert abs(max(lrs) - lr) < 1e-3 and abs(min(moms) - 0.85) < 1e-3 and abs(max(moms) - 0.95) < 1e-9
assert lrs.index(max(lrs)) == moms.index(min(moms))
