"""fastai/course22p2 nbs/15_DDPM.ipynb and 17_DDPM_v2.ipynb (miniai/accel.py) at toy size on
synthetic 16x16 images, with a small UNet of our own standing in for diffusers' UNet2DModel
(the same attribute names that init_ddpm walks: down_blocks[i].resnets[j].conv2,
.downsamplers, up_blocks, conv_out; forward(x, t) returning an object with .sample): DDPMCB
(a TrainCB with beta/alpha/alphabar schedules in unicode attribute names, torch.cumprod,
before_batch noisifying with torch.randint timesteps and alphabar[t].reshape(-1,1,1,1), predict
reading .sample, sample() under @torch.no_grad() running all the reverse steps with
torch.full timesteps and the x_0 estimate clamped to [-1, 1]), the v2 noisify/sample functions
and DDPMCB, UNet subclassing the model to unpack (x, t), init_ddpm (conv2.weight.data.zero_(),
init.orthogonal_), partial(optim.Adam, eps=1e-5), collate_ddpm over default_collate of dicts,
MixedPrecision on torch.autocast("cuda", dtype=torch.float16) and torch.cuda.amp.GradScaler()
(on a machine without cuda both disable themselves with a warning, as the lesson runs on cpu),
DDPMCB2 in after_predict, TrainCB(n_inp=2), and MultDL repeating each batch. torch.save of the
whole model (pickle) is a state_dict round trip here; 200 diffusion steps, not 1000."""
import math
import random
import warnings
from types import SimpleNamespace
from copy import copy
from functools import partial, wraps
from operator import attrgetter

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn, optim, tensor
from torch.nn import init
from torch.optim import lr_scheduler
from torch.utils.data import DataLoader, TensorDataset, default_collate

def_device = 'cuda' if torch.cuda.is_available() else 'cpu'


def noop(x=None, *args, **kwargs): return x            # fastcore.all.noop


def set_seed(seed, deterministic=False):
    torch.use_deterministic_algorithms(deterministic)
    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)


def to_device(x, device=def_device):
    if isinstance(x, torch.Tensor): return x.to(device)
    return type(x)(to_device(o, device) for o in x)


def to_cpu(x):
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
        self.model, self.dls, self.loss_func, self.lr, self.cbs, self.opt_func = \
            model, dls, loss_func, lr, list(cbs or []), opt_func

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
        self.n_epochs = n_epochs
        self.epochs = range(n_epochs)
        if lr is None: lr = self.lr
        if self.opt_func: self.opt = self.opt_func(self.model.parameters(), lr)
        self._fit(train, valid)

    def __getattr__(self, name):
        if name in ('predict', 'get_loss', 'backward', 'step', 'zero_grad'): return partial(self.callback, name)
        raise AttributeError(name)

    def callback(self, method_nm): run_cbs(self.cbs, method_nm, self)

    @property
    def training(self): return self.model.training


class BatchSchedCB(Callback):
    def __init__(self, sched): self.sched = sched
    def before_fit(self, learn): self.schedo = self.sched(learn.opt)

    def after_batch(self, learn):
        if learn.training: self.schedo.step()


# ---- a small stand-in for diffusers.UNet2DModel (same attribute names, .sample output)
def timestep_embedding(tsteps, emb_dim, max_period=10000):
    exponent = -math.log(max_period) * torch.linspace(0, 1, emb_dim//2, device=tsteps.device)
    emb = tsteps[:, None].float() * exponent.exp()[None, :]
    return torch.cat([emb.sin(), emb.cos()], dim=-1)


class ResnetBlock2D(nn.Module):
    def __init__(self, ni, nf, n_emb, groups):
        super().__init__()
        self.norm1, self.conv1 = nn.GroupNorm(groups, ni), nn.Conv2d(ni, nf, 3, padding=1)
        self.time_emb_proj = nn.Linear(n_emb, nf)
        self.norm2, self.conv2 = nn.GroupNorm(groups, nf), nn.Conv2d(nf, nf, 3, padding=1)
        self.conv_shortcut = nn.Conv2d(ni, nf, 1) if ni != nf else nn.Identity()

    def forward(self, x, emb):
        h = self.conv1(F.silu(self.norm1(x))) + self.time_emb_proj(F.silu(emb))[:, :, None, None]
        return self.conv_shortcut(x) + self.conv2(F.silu(self.norm2(h)))


class Downsample2D(nn.Module):
    def __init__(self, nf):
        super().__init__()
        self.conv = nn.Conv2d(nf, nf, 3, stride=2, padding=1)

    def forward(self, x): return self.conv(x)


class DownBlock2D(nn.Module):
    def __init__(self, ni, nf, n_emb, groups, add_down):
        super().__init__()
        self.resnets = nn.ModuleList([ResnetBlock2D(ni, nf, n_emb, groups)])
        self.downsamplers = nn.ModuleList([Downsample2D(nf)]) if add_down else None


class UpBlock2D(nn.Module):
    def __init__(self, ni, nf, n_emb, groups, add_up):
        super().__init__()
        self.resnets = nn.ModuleList([ResnetBlock2D(ni, nf, n_emb, groups)])
        self.upsamplers = nn.Upsample(scale_factor=2.) if add_up else None


class UNet2DModel(nn.Module):
    def __init__(self, in_channels=1, out_channels=1, block_out_channels=(8, 16, 32), norm_num_groups=4):
        super().__init__()
        nfs, n_emb = block_out_channels, block_out_channels[0] * 4
        self.n_temb = nfs[0]
        self.time_embedding = nn.Sequential(nn.Linear(nfs[0], n_emb), nn.SiLU(), nn.Linear(n_emb, n_emb))
        self.conv_in = nn.Conv2d(in_channels, nfs[0], 3, padding=1)
        self.down_blocks = nn.ModuleList(
            [DownBlock2D(nfs[max(i-1, 0)], nf, n_emb, norm_num_groups, i < len(nfs)-1) for i, nf in enumerate(nfs)])
        rev = list(reversed(nfs))
        self.up_blocks = nn.ModuleList(
            [UpBlock2D(rev[max(i-1, 0)] + nf, nf, n_emb, norm_num_groups, i < len(nfs)-1) for i, nf in enumerate(rev)])
        self.conv_norm_out = nn.GroupNorm(norm_num_groups, nfs[0])
        self.conv_out = nn.Conv2d(nfs[0], out_channels, 3, padding=1)

    def forward(self, sample, timestep):
        emb = self.time_embedding(timestep_embedding(timestep, self.n_temb))
        x, skips = self.conv_in(sample), []
        for blk in self.down_blocks:
            x = blk.resnets[0](x, emb)
            skips.append(x)
            if blk.downsamplers is not None: x = blk.downsamplers[0](x)
        for blk in self.up_blocks:
            x = blk.resnets[0](torch.cat([x, skips.pop()], dim=1), emb)
            if blk.upsamplers is not None: x = blk.upsamplers(x)
        return SimpleNamespace(sample=self.conv_out(F.silu(self.conv_norm_out(x))))


# ---- data: synthetic "fashion" in [-1, 1]
set_seed(42)
xl, yl = 'image', 'label'
g = torch.Generator().manual_seed(0)
def make(n):
    imgs = torch.zeros(n, 1, 16, 16)
    for i in range(n):
        r, c = torch.randint(0, 8, (2,), generator=g).tolist()
        imgs[i, 0, r:r+8, c:c+8] = 1.
    return imgs*2-1
xs_train, xs_test = make(128), make(64)
bs = 32
dls = DataLoaders(DataLoader(TensorDataset(xs_train, torch.zeros(128, dtype=torch.long)), batch_size=bs, shuffle=True),
                  DataLoader(TensorDataset(xs_test, torch.zeros(64, dtype=torch.long)), batch_size=bs))


# ---- 15_DDPM
class DDPMCB(TrainCB):
    order = DeviceCB.order+1

    def __init__(self, n_steps, beta_min, beta_max):
        super().__init__()
        self.n_steps, self.βmin, self.βmax = n_steps, beta_min, beta_max
        # variance schedule, linearly increased with timestep
        self.β = torch.linspace(self.βmin, self.βmax, self.n_steps)
        self.α = 1. - self.β
        self.ᾱ = torch.cumprod(self.α, dim=0)
        self.σ = self.β.sqrt()

    def predict(self, learn): learn.preds = learn.model(*learn.batch[0]).sample

    def before_batch(self, learn):
        device = learn.batch[0].device
        ε = torch.randn(learn.batch[0].shape, device=device)  # noise, x_T
        x0 = learn.batch[0]  # original images, x_0
        self.ᾱ = self.ᾱ.to(device)
        n = x0.shape[0]
        # select random timesteps
        t = torch.randint(0, self.n_steps, (n,), device=device, dtype=torch.long)
        ᾱ_t = self.ᾱ[t].reshape(-1, 1, 1, 1).to(device)
        xt = ᾱ_t.sqrt()*x0 + (1-ᾱ_t).sqrt()*ε  # noisify the image
        # input to our model is noisy image and timestep, ground truth is the noise
        learn.batch = ((xt, t), ε)

    @torch.no_grad()
    def sample(self, model, sz):
        device = next(model.parameters()).device
        x_t = torch.randn(sz, device=device)
        preds = []
        for t in reversed(range(self.n_steps)):
            t_batch = torch.full((x_t.shape[0],), t, device=device, dtype=torch.long)
            z = (torch.randn(x_t.shape) if t > 0 else torch.zeros(x_t.shape)).to(device)
            ᾱ_t1 = self.ᾱ[t-1] if t > 0 else torch.tensor(1)
            b̄_t = 1 - self.ᾱ[t]
            b̄_t1 = 1 - ᾱ_t1
            noise_pred = learn.model(x_t, t_batch).sample
            x_0_hat = ((x_t - b̄_t.sqrt() * noise_pred)/self.ᾱ[t].sqrt()).clamp(-1, 1)
            x0_coeff = ᾱ_t1.sqrt()*(1-self.α[t])/b̄_t
            xt_coeff = self.α[t].sqrt()*b̄_t1/b̄_t
            x_t = x_0_hat*x0_coeff + x_t*xt_coeff + self.σ[t]*z
            preds.append(x_t.cpu())
        return preds


model = UNet2DModel(in_channels=1, out_channels=1, block_out_channels=(8, 16, 32))
lr = 4e-3
epochs = 2
tmax = epochs * len(dls.train)
sched = partial(lr_scheduler.OneCycleLR, max_lr=lr, total_steps=tmax)
ddpm_cb = DDPMCB(n_steps=200, beta_min=0.0001, beta_max=0.02)
assert ddpm_cb.ᾱ.shape == (200,) and abs(ddpm_cb.ᾱ[-1].item() - math.exp(sum(math.log(1 - (0.0001 + i * 0.0199 / 199)) for i in range(200)))) < 1e-6
metrics = MetricsCB()
cbs = [ddpm_cb, DeviceCB(), metrics, BatchSchedCB(sched)]
learn = Learner(model, dls, nn.MSELoss(), lr=lr, cbs=cbs, opt_func=optim.Adam)
learn.fit(epochs)
(xt, t), ε = learn.batch
assert xt.shape == ε.shape == (bs, 1, 16, 16) and t.dtype == torch.long
losses = [float(l['loss']) for l in metrics.logs]
assert losses[2] < losses[0] and all(math.isfinite(l) for l in losses), losses

# torch.save(learn.model, ...) pickles the module; a state_dict round trip instead
torch.save(learn.model.state_dict(), 'fashion_ddpm.pth')
learn.model = UNet2DModel(in_channels=1, out_channels=1, block_out_channels=(8, 16, 32))
learn.model.load_state_dict(torch.load('fashion_ddpm.pth'))
set_seed(42)
samples = ddpm_cb.sample(learn.model, (4, 1, 16, 16))
assert len(samples) == 200 and samples[-1].shape == (4, 1, 16, 16)
assert bool(torch.isfinite(samples[-1]).all()) and samples[-1].abs().max() < 3


# ---- 17_DDPM_v2
betamin, betamax, n_steps = 0.0001, 0.02, 200
beta = torch.linspace(betamin, betamax, n_steps)
alpha = 1.-beta
alphabar = alpha.cumprod(dim=0)
sigma = beta.sqrt()
assert torch.allclose(alphabar, ddpm_cb.ᾱ)


def noisify(x0, ᾱ):
    device = x0.device
    n = len(x0)
    t = torch.randint(0, n_steps, (n,), dtype=torch.long)
    ε = torch.randn(x0.shape, device=device)
    ᾱ_t = ᾱ[t].reshape(-1, 1, 1, 1).to(device)
    xt = ᾱ_t.sqrt()*x0 + (1-ᾱ_t).sqrt()*ε
    return (xt, t.to(device)), ε


xb, yb = next(iter(dls.train))
(xt, t), ε = noisify(xb[:25], alphabar)
assert xt.shape == (25, 1, 16, 16) and t.shape == (25,)
abt = alphabar[t].reshape(-1, 1, 1, 1)
assert torch.allclose((xt - (1-abt).sqrt()*ε)/abt.sqrt(), xb[:25], atol=1e-3)


@torch.no_grad()
def sample(model, sz, alpha, alphabar, sigma, n_steps):
    device = next(model.parameters()).device
    x_t = torch.randn(sz, device=device)
    preds = []
    for t in reversed(range(n_steps)):
        t_batch = torch.full((x_t.shape[0],), t, device=device, dtype=torch.long)
        z = (torch.randn(x_t.shape) if t > 0 else torch.zeros(x_t.shape)).to(device)
        ᾱ_t1 = alphabar[t-1] if t > 0 else torch.tensor(1)
        b̄_t = 1 - alphabar[t]
        b̄_t1 = 1 - ᾱ_t1
        x_0_hat = ((x_t - b̄_t.sqrt() * learn.model((x_t, t_batch)))/alphabar[t].sqrt()).clamp(-1, 1)
        x_t = x_0_hat * ᾱ_t1.sqrt()*(1-alpha[t])/b̄_t + x_t * alpha[t].sqrt()*b̄_t1/b̄_t + sigma[t]*z
        preds.append(x_t.cpu())
    return preds


class DDPMCB(Callback):
    order = DeviceCB.order+1

    def __init__(self, n_steps, beta_min, beta_max):
        super().__init__()
        self.n_steps, self.beta_min, self.beta_max = n_steps, beta_min, beta_max
        self.beta = torch.linspace(self.beta_min, self.beta_max, self.n_steps)
        self.α = 1. - self.beta
        self.ᾱ = torch.cumprod(self.α, dim=0)
        self.σ = self.beta.sqrt()

    def before_batch(self, learn): learn.batch = noisify(learn.batch[0], self.ᾱ)
    def sample(self, model, sz): return sample(model, sz, self.α, self.ᾱ, self.σ, self.n_steps)


class UNet(UNet2DModel):
    def forward(self, x): return super().forward(*x).sample


def init_ddpm(model):
    for o in model.down_blocks:
        for p in o.resnets:
            p.conv2.weight.data.zero_()
            for p in list(o.downsamplers or []): init.orthogonal_(p.conv.weight)
    for o in model.up_blocks:
        for p in o.resnets: p.conv2.weight.data.zero_()
    model.conv_out.weight.data.zero_()


class TrainLearner(Learner):
    def predict(self): self.preds = self.model(self.batch[0])
    def get_loss(self): self.loss = self.loss_func(self.preds, self.batch[1])
    def backward(self): self.loss.backward()
    def step(self): self.opt.step()
    def zero_grad(self): self.opt.zero_grad()


ddpm_cb = DDPMCB(n_steps=200, beta_min=0.0001, beta_max=0.02)
lr = 5e-3
sched = partial(lr_scheduler.OneCycleLR, max_lr=lr, total_steps=tmax)
metrics = MetricsCB()
cbs = [ddpm_cb, DeviceCB(), metrics, BatchSchedCB(sched)]
model = UNet(in_channels=1, out_channels=1, block_out_channels=(8, 16, 32), norm_num_groups=4)
init_ddpm(model)
w = model.down_blocks[0].downsamplers[0].conv.weight.flatten(1)
assert torch.allclose(w @ w.T, torch.eye(8), atol=1e-5)          # orthogonal rows
assert model.conv_out.weight.abs().sum() == 0
opt_func = partial(optim.Adam, eps=1e-5)
learn = TrainLearner(model, dls, nn.MSELoss(), lr=lr, cbs=cbs, opt_func=opt_func)
learn.fit(epochs)
assert model.conv_out.weight.abs().sum() > 0
losses = [float(l['loss']) for l in metrics.logs]
assert all(math.isfinite(l) for l in losses), losses
set_seed(1)
samples = ddpm_cb.sample(learn.model, (2, 1, 16, 16))
assert len(samples) == 200 and bool(torch.isfinite(samples[-1]).all())

# noisify in the DataLoader's collate_fn
tds = {'train': [{xl: o, yl: 0} for o in xs_train], 'test': [{xl: o, yl: 0} for o in xs_test]}
b = next(iter(DataLoader(tds['train'], batch_size=2)))
assert b[xl].shape == (2, 1, 16, 16) and b[yl].tolist() == [0, 0]


def collate_ddpm(b): return noisify(default_collate(b)[xl], alphabar)
def dl_ddpm(ds): return DataLoader(ds, batch_size=bs, collate_fn=collate_ddpm, num_workers=0)


dls = DataLoaders(dl_ddpm(tds['train']), dl_ddpm(tds['test']))


class MixedPrecision(TrainCB):
    order = DeviceCB.order+10

    def before_fit(self, learn): self.scaler = torch.cuda.amp.GradScaler()

    def before_batch(self, learn):
        self.autocast = torch.autocast("cuda", dtype=torch.float16)
        self.autocast.__enter__()

    def after_loss(self, learn): self.autocast.__exit__(None, None, None)

    def backward(self, learn): self.scaler.scale(learn.loss).backward()

    def step(self, learn):
        self.scaler.step(learn.opt)
        self.scaler.update()


lr = 1e-2
sched = partial(lr_scheduler.OneCycleLR, max_lr=lr, total_steps=tmax)
metrics = MetricsCB()
cbs = [DeviceCB(), metrics, BatchSchedCB(sched)]
if torch.cuda.is_available(): cbs.append(MixedPrecision())
else: cbs.append(TrainCB())
model = UNet(in_channels=1, out_channels=1, block_out_channels=(8, 16, 32), norm_num_groups=4)
init_ddpm(model)
learn = Learner(model, dls, nn.MSELoss(), lr=lr, cbs=cbs, opt_func=opt_func)
learn.fit(epochs)
assert learn.preds.dtype == torch.float32 and math.isfinite(float(metrics.logs[-1]['loss']))


# with n_inp=2: noisify returns (xt, t, ε) and the diffusers model is called as model(xt, t)
def noisify(x0, ᾱ):
    device = x0.device
    n = len(x0)
    t = torch.randint(0, n_steps, (n,), dtype=torch.long)
    ε = torch.randn(x0.shape, device=device)
    ᾱ_t = ᾱ[t].reshape(-1, 1, 1, 1).to(device)
    xt = ᾱ_t.sqrt()*x0 + (1-ᾱ_t).sqrt()*ε
    return xt, t.to(device), ε


dls = DataLoaders(dl_ddpm(tds['train']), dl_ddpm(tds['test']))


class DDPMCB2(Callback):
    def after_predict(self, learn): learn.preds = learn.preds.sample


class MultDL:
    def __init__(self, dl, mult=2): self.dl, self.mult = dl, mult
    def __len__(self): return len(self.dl)*self.mult

    def __iter__(self):
        for o in self.dl:
            for i in range(self.mult): yield o


dls.train = MultDL(dls.train)
assert len(dls.train) == 8
model = UNet2DModel(in_channels=1, out_channels=1, block_out_channels=(8, 16, 32), norm_num_groups=4)
init_ddpm(model)
metrics = MetricsCB()
seen = []
class CountCB(Callback):
    def before_batch(self, learn): seen.append(learn.batch[1])
cbs = [DDPMCB2(), DeviceCB(), metrics, CountCB(), TrainCB(n_inp=2)]
learn = Learner(model, dls, nn.MSELoss(), lr=lr, cbs=cbs, opt_func=opt_func)
learn.fit(1, valid=False)
assert len(seen) == 8 and all(torch.equal(a, b) for a, b in zip(seen[::2], seen[1::2]))
assert math.isfinite(float(metrics.logs[-1]['loss']))

# what the lesson's MixedPrecision does on a machine without cuda: both parts disable themselves
if not torch.cuda.is_available():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        ac = torch.autocast("cuda", dtype=torch.float16)
        with ac:
            y = nn.Linear(4, 4)(torch.randn(2, 4))
        scaler = torch.cuda.amp.GradScaler()
    assert y.dtype == torch.float32 and not scaler.is_enabled()
    loss = y.sum()
    assert scaler.scale(loss) is loss
