"""fastai/course22p2 nbs/26_diffusion_unet.ipynb at toy size on synthetic 16x16 images (the
Learner pieces from miniai written out; MixedPrecision, a cuda-only callback, left out; the
FID/KID evaluation and scipy's sample_lms left out): k-diffusion's scalings(sig) and noisify
(sig = (torch.randn([n])*1.2-1.2).exp().to(x0), torch.randn_like(x0, device=...)) in a
collate_fn on default_collate over dicts, unet_conv (an nn.Sequential grown with .append),
UnetResBlock, the cooperative __call__ MRO demo, the SaveModule mixin (super().forward in a
class mixed before nn.Module subclasses: SavedResBlock, SavedConv), down_block / upsample
(nn.Upsample(scale_factor=2.)) / UpBlock popping the saved activations with torch.cat, the first
UNet2DModel, partial(optim.Adam, eps=1e-5) with OneCycleLR, then timestep_embedding (linspace
exponents, sin/cos, F.pad for an odd width), lin(), EmbResBlock (emb_proj(F.silu(t))[:, :, None,
None], torch.chunk into scale and shift), saved() wrapping a module's forward with functools.wraps,
DownBlock, EmbUNetModel, and sampling: sigmas_karras, denoise, get_ancestral_step,
sample_euler, sample_euler_ancestral and sample_heun under @torch.no_grad()."""
import math
import random
from copy import copy
from functools import partial, wraps
from operator import attrgetter

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn, optim, tensor
from torch.optim import lr_scheduler
from torch.utils.data import DataLoader, default_collate

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


# ---- 26_diffusion_unet
set_seed(42)
xl, yl = 'image', 'label'
n_steps = 1000
bs = 32
sig_data = 0.66

# synthetic "fashion" images in [-1, 1], 12x12 padded to 16x16 as transformi pads 28 to 32
g = torch.Generator().manual_seed(0)
def make(n):
    imgs = torch.zeros(n, 1, 12, 12)
    for i in range(n):
        r, c = torch.randint(0, 6, (2,), generator=g).tolist()
        imgs[i, 0, r:r+6, c:c+6] = 1.
    return [{xl: F.pad(o, (2, 2, 2, 2))*2-1, yl: 0} for o in imgs]
tds = {'train': make(128), 'test': make(64)}


def scalings(sig):
    totvar = sig**2+sig_data**2
    # c_skip,c_out,c_in
    return sig_data**2/totvar, sig*sig_data/totvar.sqrt(), 1/totvar.sqrt()


def noisify(x0):
    device = x0.device
    sig = (torch.randn([len(x0)])*1.2-1.2).exp().to(x0).reshape(-1, 1, 1, 1)
    noise = torch.randn_like(x0, device=device)
    c_skip, c_out, c_in = scalings(sig)
    noised_input = x0 + noise*sig
    target = (x0-c_skip*noised_input)/c_out
    return (noised_input*c_in, sig.squeeze()), target


def collate_ddpm(b): return noisify(default_collate(b)[xl])
def dl_ddpm(ds): return DataLoader(ds, batch_size=bs, collate_fn=collate_ddpm, num_workers=0)


dls = DataLoaders(dl_ddpm(tds['train']), dl_ddpm(tds['test']))
(xb, sb), yb = next(iter(dls.train))
assert xb.shape == (bs, 1, 16, 16) and sb.shape == (bs,) and yb.shape == xb.shape
c_skip, c_out, c_in = scalings(sb.reshape(-1, 1, 1, 1))
assert torch.allclose(c_skip, sig_data**2 / (sb**2 + sig_data**2).reshape(-1, 1, 1, 1))
assert torch.allclose(c_out**2, c_skip * sb.reshape(-1, 1, 1, 1)**2)   # Karras et al.'s preconditioning


def unet_conv(ni, nf, ks=3, stride=1, act=nn.SiLU, norm=None, bias=True):
    layers = nn.Sequential()
    if norm: layers.append(norm(ni))
    if act: layers.append(act())
    layers.append(nn.Conv2d(ni, nf, stride=stride, kernel_size=ks, padding=ks//2, bias=bias))
    return layers


class UnetResBlock(nn.Module):
    def __init__(self, ni, nf=None, ks=3, act=nn.SiLU, norm=nn.BatchNorm2d):
        super().__init__()
        if nf is None: nf = ni
        self.convs = nn.Sequential(unet_conv(ni, nf, ks, act=act, norm=norm),
                                   unet_conv(nf, nf, ks, act=act, norm=norm))
        self.idconv = noop if ni == nf else nn.Conv2d(ni, nf, 1)

    def forward(self, x): return self.convs(x) + self.idconv(x)


said = []
class A:
    def __call__(self):
        super().__call__()
        said.append('a')


class B:
    def __call__(self): said.append('b')


class C(A, B): pass


C()()
assert said == ['b', 'a']


class SaveModule:
    def forward(self, x, *args, **kwargs):
        self.saved = super().forward(x, *args, **kwargs)
        return self.saved


class SavedResBlock(SaveModule, UnetResBlock): pass
class SavedConv(SaveModule, nn.Conv2d): pass


def down_block(ni, nf, add_down=True, num_layers=1):
    res = nn.Sequential(*[SavedResBlock(ni=ni if i == 0 else nf, nf=nf)
                          for i in range(num_layers)])
    if add_down: res.append(SavedConv(nf, nf, 3, stride=2, padding=1))
    return res


def upsample(nf): return nn.Sequential(nn.Upsample(scale_factor=2.), nn.Conv2d(nf, nf, 3, padding=1))


class UpBlock(nn.Module):
    def __init__(self, ni, prev_nf, nf, add_up=True, num_layers=2):
        super().__init__()
        self.resnets = nn.ModuleList(
            [UnetResBlock((prev_nf if i == 0 else nf)+(ni if (i == num_layers-1) else nf), nf)
             for i in range(num_layers)])
        self.up = upsample(nf) if add_up else nn.Identity()

    def forward(self, x, ups):
        for resnet in self.resnets: x = resnet(torch.cat([x, ups.pop()], dim=1))
        return self.up(x)


class UNet2DModel(nn.Module):
    def __init__(self, in_channels=3, out_channels=3, nfs=(224, 448, 672, 896), num_layers=1):
        super().__init__()
        self.conv_in = nn.Conv2d(in_channels, nfs[0], kernel_size=3, padding=1)
        nf = nfs[0]
        self.downs = nn.Sequential()
        for i in range(len(nfs)):
            ni = nf
            nf = nfs[i]
            self.downs.append(down_block(ni, nf, add_down=i != len(nfs)-1, num_layers=num_layers))
        self.mid_block = UnetResBlock(nfs[-1])
        rev_nfs = list(reversed(nfs))
        nf = rev_nfs[0]
        self.ups = nn.ModuleList()
        for i in range(len(nfs)):
            prev_nf = nf
            nf = rev_nfs[i]
            ni = rev_nfs[min(i+1, len(nfs)-1)]
            self.ups.append(UpBlock(ni, prev_nf, nf, add_up=i != len(nfs)-1, num_layers=num_layers+1))
        self.conv_out = unet_conv(nfs[0], out_channels, act=nn.SiLU, norm=nn.BatchNorm2d)

    def forward(self, inp):
        x = self.conv_in(inp[0])
        saved = [x]
        x = self.downs(x)
        saved += [p.saved for o in self.downs for p in o]
        x = self.mid_block(x)
        for block in self.ups: x = block(x, saved)
        return self.conv_out(x)


model = UNet2DModel(in_channels=1, out_channels=1, nfs=(8, 16, 32), num_layers=2)
out = model((xb, sb))
assert out.shape == xb.shape
assert [p.saved.shape[-1] for o in model.downs for p in o] == [16, 16, 8, 8, 8, 4, 4, 4]
lr = 3e-3
epochs = 2
opt_func = partial(optim.Adam, eps=1e-5)
tmax = epochs * len(dls.train)
sched = partial(lr_scheduler.OneCycleLR, max_lr=lr, total_steps=tmax)
metrics = MetricsCB()
cbs = [DeviceCB(), TrainCB(), metrics, BatchSchedCB(sched)]
learn = Learner(model, dls, nn.MSELoss(), lr=lr, cbs=cbs, opt_func=opt_func)
learn.fit(epochs)
assert learn.opt.param_groups[0]['eps'] == 1e-5
losses = [float(l['loss']) for l in metrics.logs]
assert all(math.isfinite(l) for l in losses) and losses[2] < losses[0], losses

# the sinusoidal timestep embedding
emb_dim = 16
tsteps = torch.linspace(-10, 10, 100)
max_period = 10000
exponent = -math.log(max_period) * torch.linspace(0, 1, emb_dim//2, device=tsteps.device)
emb = tsteps[:, None].float() * exponent.exp()[None, :]
assert emb.shape == (100, 8)
emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=-1)
assert emb.shape == (100, 16)


def timestep_embedding(tsteps, emb_dim, max_period=10000):
    exponent = -math.log(max_period) * torch.linspace(0, 1, emb_dim//2, device=tsteps.device)
    emb = tsteps[:, None].float() * exponent.exp()[None, :]
    emb = torch.cat([emb.sin(), emb.cos()], dim=-1)
    return F.pad(emb, (0, 1, 0, 0)) if emb_dim % 2 == 1 else emb


assert torch.allclose(timestep_embedding(tsteps, 16), emb)
e = timestep_embedding(tsteps, 33, max_period=1000)
assert e.shape == (100, 33) and bool((e[:, -1] == 0).all())
assert torch.allclose(e[:, 0], tsteps.sin()) and torch.allclose(e[:, 16], tsteps.cos())
assert torch.allclose(e[:, 15], (tsteps / 1000).sin(), atol=1e-6)


def lin(ni, nf, act=nn.SiLU, norm=None, bias=True):
    layers = nn.Sequential()
    if norm: layers.append(norm(ni))
    if act: layers.append(act())
    layers.append(nn.Linear(ni, nf, bias=bias))
    return layers


class EmbResBlock(nn.Module):
    def __init__(self, n_emb, ni, nf=None, ks=3, act=nn.SiLU, norm=nn.BatchNorm2d):
        super().__init__()
        if nf is None: nf = ni
        self.emb_proj = nn.Linear(n_emb, nf*2)
        self.conv1 = unet_conv(ni, nf, ks, act=act, norm=norm)  # , bias=not norm)
        self.conv2 = unet_conv(nf, nf, ks, act=act, norm=norm)
        self.idconv = noop if ni == nf else nn.Conv2d(ni, nf, 1)

    def forward(self, x, t):
        inp = x
        x = self.conv1(x)
        emb = self.emb_proj(F.silu(t))[:, :, None, None]
        scale, shift = torch.chunk(emb, 2, dim=1)
        x = x*(1+scale) + shift
        x = self.conv2(x)
        return x + self.idconv(inp)


def saved(m, blk):
    m_ = m.forward

    @wraps(m.forward)
    def _f(*args, **kwargs):
        res = m_(*args, **kwargs)
        blk.saved.append(res)
        return res
    m.forward = _f
    return m


class DownBlock(nn.Module):
    def __init__(self, n_emb, ni, nf, add_down=True, num_layers=1):
        super().__init__()
        self.resnets = nn.ModuleList([saved(EmbResBlock(n_emb, ni if i == 0 else nf, nf), self)
                                      for i in range(num_layers)])
        self.down = saved(nn.Conv2d(nf, nf, 3, stride=2, padding=1), self) if add_down else nn.Identity()

    def forward(self, x, t):
        self.saved = []
        for resnet in self.resnets: x = resnet(x, t)
        x = self.down(x)
        return x


class UpBlock(nn.Module):
    def __init__(self, n_emb, ni, prev_nf, nf, add_up=True, num_layers=2):
        super().__init__()
        self.resnets = nn.ModuleList(
            [EmbResBlock(n_emb, (prev_nf if i == 0 else nf)+(ni if (i == num_layers-1) else nf), nf)
             for i in range(num_layers)])
        self.up = upsample(nf) if add_up else nn.Identity()

    def forward(self, x, t, ups):
        for resnet in self.resnets: x = resnet(torch.cat([x, ups.pop()], dim=1), t)
        return self.up(x)


class EmbUNetModel(nn.Module):
    def __init__(self, in_channels=3, out_channels=3, nfs=(224, 448, 672, 896), num_layers=1):
        super().__init__()
        self.conv_in = nn.Conv2d(in_channels, nfs[0], kernel_size=3, padding=1)
        self.n_temb = nf = nfs[0]
        n_emb = nf*4
        # TODO: remove act func from 1st MLP layer
        self.emb_mlp = nn.Sequential(lin(self.n_temb, n_emb, norm=nn.BatchNorm1d),
                                     lin(n_emb, n_emb))
        self.downs = nn.ModuleList()
        for i in range(len(nfs)):
            ni = nf
            nf = nfs[i]
            self.downs.append(DownBlock(n_emb, ni, nf, add_down=i != len(nfs)-1, num_layers=num_layers))
        self.mid_block = EmbResBlock(n_emb, nfs[-1])
        rev_nfs = list(reversed(nfs))
        nf = rev_nfs[0]
        self.ups = nn.ModuleList()
        for i in range(len(nfs)):
            prev_nf = nf
            nf = rev_nfs[i]
            ni = rev_nfs[min(i+1, len(nfs)-1)]
            self.ups.append(UpBlock(n_emb, ni, prev_nf, nf, add_up=i != len(nfs)-1, num_layers=num_layers+1))
        self.conv_out = unet_conv(nfs[0], out_channels, act=nn.SiLU, norm=nn.BatchNorm2d, bias=False)

    def forward(self, inp):
        x, t = inp
        temb = timestep_embedding(t, self.n_temb)
        emb = self.emb_mlp(temb)
        x = self.conv_in(x)
        saved = [x]
        for block in self.downs: x = block(x, emb)
        saved += [p for o in self.downs for p in o.saved]
        x = self.mid_block(x, emb)
        for block in self.ups: x = block(x, emb, saved)
        return self.conv_out(x)


set_seed(42)
model = EmbUNetModel(in_channels=1, out_channels=1, nfs=(8, 16, 32), num_layers=2)
blk = model.downs[0].resnets[0]
assert blk.forward.__name__ == 'forward' and blk.forward.__wrapped__.__self__ is blk
lr = 1e-2
opt_func = partial(optim.Adam, eps=1e-5)
sched = partial(lr_scheduler.OneCycleLR, max_lr=lr, total_steps=tmax)
metrics = MetricsCB()
cbs = [DeviceCB(), TrainCB(), metrics, BatchSchedCB(sched)]
learn = Learner(model, dls, nn.MSELoss(), lr=lr, cbs=cbs, opt_func=opt_func)
learn.fit(epochs)
assert [len(o.saved) for o in model.downs] == [3, 3, 2]
losses = [float(l['loss']) for l in metrics.logs]
assert all(math.isfinite(l) for l in losses) and losses[2] < losses[0], losses

# sampling with the Karras sigmas
sz = (8, 1, 16, 16)


def sigmas_karras(n, sigma_min=0.01, sigma_max=80., rho=7.):
    ramp = torch.linspace(0, 1, n)
    min_inv_rho = sigma_min**(1/rho)
    max_inv_rho = sigma_max**(1/rho)
    sigmas = (max_inv_rho + ramp * (min_inv_rho-max_inv_rho))**rho
    return torch.cat([sigmas, tensor([0.])]).to(def_device)


def denoise(model, x, sig):
    sig = sig[None]  # * torch.ones((len(x),1), device=x.device)
    c_skip, c_out, c_in = scalings(sig)
    return model((x*c_in, sig))*c_out + x*c_skip


def get_ancestral_step(sigma_from, sigma_to, eta=1.):
    if not eta: return sigma_to, 0.
    var_to, var_from = sigma_to**2, sigma_from**2
    sigma_up = min(sigma_to, eta * (var_to * (var_from-var_to)/var_from)**0.5)
    return (var_to-sigma_up**2)**0.5, sigma_up


@torch.no_grad()
def sample_euler_ancestral(x, sigs, i, model, eta=1.):
    sig, sig2 = sigs[i], sigs[i+1]
    denoised = denoise(model, x, sig)
    sigma_down, sigma_up = get_ancestral_step(sig, sig2, eta=eta)
    x = x + (x-denoised)/sig*(sigma_down-sig)
    return x + torch.randn_like(x)*sigma_up


@torch.no_grad()
def sample_euler(x, sigs, i, model):
    sig, sig2 = sigs[i], sigs[i+1]
    denoised = denoise(model, x, sig)
    return x + (x-denoised)/sig*(sig2-sig)


@torch.no_grad()
def sample_heun(x, sigs, i, model, s_churn=0., s_tmin=0., s_tmax=float('inf'), s_noise=1.):
    sig, sig2 = sigs[i], sigs[i+1]
    n = len(sigs)
    gamma = min(s_churn/(n-1), 2**0.5-1) if s_tmin <= sig <= s_tmax else 0.
    eps = torch.randn_like(x) * s_noise
    sigma_hat = sig * (gamma+1)
    if gamma > 0: x = x + eps * (sigma_hat**2-sig**2)**0.5
    denoised = denoise(model, x, sig)
    d = (x-denoised)/sig
    dt = sig2-sigma_hat
    x_2 = x + d*dt
    if sig2 == 0: return x_2
    denoised_2 = denoise(model, x_2, sig2)
    d_2 = (x_2-denoised_2)/sig2
    d_prime = (d+d_2)/2
    return x + d_prime*dt


def sample(sampler, model, steps=100, sigma_max=80., **kwargs):
    preds = []
    x = torch.randn(sz).to(def_device)*sigma_max
    sigs = sigmas_karras(steps, sigma_max=sigma_max)
    for i in range(len(sigs)-1):
        x = sampler(x, sigs, i, model, **kwargs)
        preds.append(x)
    return preds


sigs = sigmas_karras(10)
assert sigs.shape == (11,) and abs(sigs[0].item() - 80.) < 1e-3 and abs(sigs[-2].item() - 0.01) < 1e-6
assert sigs[-1] == 0 and bool((sigs[:-1] > sigs[1:]).all())
down, up = get_ancestral_step(sigs[0], sigs[1])
assert torch.allclose(down**2 + up**2, sigs[1]**2)
assert get_ancestral_step(sigs[0], sigs[1], eta=0.) == (sigs[1], 0.)

model.eval()
for sampler, kw in [(sample_euler, {}), (sample_euler_ancestral, {'eta': 1.}),
                    (sample_heun, {'s_churn': 0.5})]:
    set_seed(42)
    preds = sample(sampler, model, steps=10, **kw)
    s = preds[-1]
    print(sampler.__name__, s.min().item(), s.max().item())
    assert len(preds) == 10 and s.shape == sz and bool(torch.isfinite(s).all())
    assert not preds[-1].requires_grad
    assert s.abs().max() < preds[0].abs().max()      # from sigma 80 noise to image scale
