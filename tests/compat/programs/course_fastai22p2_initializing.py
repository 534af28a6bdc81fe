"""fastai/course22p2 nbs/10_activations + 11_initializing.ipynb (miniai/activations.py, init.py) at
toy size on synthetic 28x28 images: set_seed with torch.use_deterministic_algorithms(False), the
Hook / Hooks(list) classes on m.register_forward_hook(partial(f, self)) with context-manager
removal, append_stats (acts.mean(), acts.std(), acts.abs().histc(40,0,10)), get_hist
(torch.stack(...).t().float().log1p()) and get_min, GeneralRelu (F.leaky_relu(x, leak), in-place
x -= sub, x.clamp_max_(maxv)), conv() building nn.Conv2d(ni, nf, stride=2, kernel_size=ks,
padding=ks//2, bias=bias) with a norm, init_weights via model.apply(partial(init_weights,
leaky=0.1)) with init.kaiming_normal_(m.weight, a=leaky), input normalisation by xb.mean()/
xb.std(), lsuv_init (m_in.bias -= h.mean; m_in.weight.data /= h.std until |std-1| < 1e-3), the
hand-written LayerNorm (x.mean((1,2,3), keepdim=True), x.var((1,2,3), keepdim=True),
nn.Parameter(tensor(1.))) and BatchNorm (register_buffer, self.means.lerp_(m, self.mom) under
no_grad, eval mode using the buffers), compared with nn.BatchNorm2d's running stats."""
import random
from functools import partial

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn, tensor
from torch.nn import init


def set_seed(seed, deterministic=False):
    torch.use_deterministic_algorithms(deterministic)
    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)


def to_cpu(x):
    res = x.detach().cpu()
    return res.float() if res.dtype == torch.float16 else res


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


def append_stats(hook, mod, inp, outp):
    if not hasattr(hook, 'stats'): hook.stats = ([], [], [])
    acts = to_cpu(outp)
    hook.stats[0].append(acts.mean())
    hook.stats[1].append(acts.std())
    hook.stats[2].append(acts.abs().histc(40, 0, 10))


def get_hist(h): return torch.stack(h.stats[2]).t().float().log1p()


def get_min(h):
    h1 = torch.stack(h.stats[2]).t().float()
    return h1[0] / h1.sum(0)


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
    layers = [nn.Conv2d(ni, nf, stride=stride, kernel_size=ks, padding=ks // 2, bias=bias)]
    if norm: layers.append(norm(nf))
    if act: layers.append(act())
    return nn.Sequential(*layers)


def get_model(act=nn.ReLU, nfs=None, norm=None):
    if nfs is None: nfs = [1, 8, 16, 32, 64]
    layers = [conv(nfs[i], nfs[i + 1], act=act, norm=norm) for i in range(len(nfs) - 1)]
    return nn.Sequential(*layers, conv(nfs[-1], 10, act=None, norm=False, bias=True),
                         nn.Flatten())


set_seed(42)
xs = torch.rand(256, 1, 28, 28) * (torch.rand(256, 1, 28, 28) > 0.8)
ys = torch.randint(0, 10, (256,))
xs[torch.arange(256), 0, ys * 2 + 4, 4:24] = 1.0        # a class-dependent stroke
xb = xs[:64]
xmean, xstd = xb.mean(), xb.std()
print(xmean, xstd)


def _norm(b): return (b[0] - xmean) / xstd, b[1]


xn, _ = _norm((xs, ys))
assert abs(xn.mean().item()) < 0.1 and abs(xn.std().item() - 1) < 0.1

x = torch.linspace(-5., 5., 100)
gr = GeneralRelu(leak=0.1, sub=0.4)
out = gr(x)
assert torch.allclose(out, F.leaky_relu(x, 0.1) - 0.4)
assert GeneralRelu(maxv=2.)(x).max().item() == 2.

act_gr = partial(GeneralRelu, leak=0.1, sub=0.4)
iw = partial(init_weights, leaky=0.1)


def fit(model, epochs=2, lr=0.2, hook_mods=None):
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    with Hooks(hook_mods or [], append_stats) as hooks:
        for epoch in range(epochs):
            model.train()
            for i in range(0, 256, 64):
                xb_, yb_ = _norm((xs[i:i + 64], ys[i:i + 64]))
                loss = F.cross_entropy(model(xb_), yb_)
                loss.backward()
                opt.step()
                opt.zero_grad()
    return loss, hooks


set_seed(42)
model = get_model(act_gr).apply(iw)
w0 = model[0][0].weight
print(w0.std(), (2 / (1 + 0.1 ** 2) / 9) ** 0.5)
assert abs(w0.std().item() - (2 / (1 + 0.1 ** 2) / 9) ** 0.5) < 0.2
loss, hooks = fit(model, hook_mods=[m for m in model if isinstance(m, nn.Sequential)][:4])
print(loss)
h = hooks[0]
assert len(h.stats[0]) == 8 and h.stats[2][0].shape == (40,)
assert h.stats[2][0].dtype == torch.float32
hist = get_hist(h)
print(hist.shape, get_min(h))
assert hist.shape == (40, 8) and torch.all(get_min(h) <= 1)
n_hooks = len(model[0]._forward_hooks)
assert n_hooks == 0, "Hooks.__exit__ must have removed the hooks"

# hist by hand for one activation
acts = torch.tensor([0.1, 0.2, 9.9, 10.0, 11.0, -1.0])
print(acts.histc(4, 0, 10))
assert acts.histc(4, 0, 10).tolist() == [2., 0., 0., 2.]


def _lsuv_stats(hook, mod, inp, outp):
    acts = to_cpu(outp)
    hook.mean = acts.mean()
    hook.std = acts.std()


def lsuv_init(model, m, m_in, xb):
    h = Hook(m, _lsuv_stats)
    with torch.no_grad():
        while model(xb) is not None and (abs(h.std - 1) > 1e-3 or abs(h.mean) > 1e-3):
            m_in.bias -= h.mean
            m_in.weight.data /= h.std
    h.remove()


set_seed(42)
model = get_model(act_gr)
relus = [o for o in model.modules() if isinstance(o, GeneralRelu)]
convs = [o for o in model.modules() if isinstance(o, nn.Conv2d)]
xbn, _ = _norm((xb, None))
for ms in zip(relus, convs): lsuv_init(model, *ms, xbn)
with Hooks(relus, _lsuv_stats) as hs:
    model(xbn)
    print([(round(h.mean.item(), 4), round(h.std.item(), 4)) for h in hs])
    assert all(abs(h.std - 1) < 1e-2 for h in hs[:1])


class LayerNorm(nn.Module):
    def __init__(self, dummy, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.mult = nn.Parameter(tensor(1.))
        self.add = nn.Parameter(tensor(0.))

    def forward(self, x):
        m = x.mean((1, 2, 3), keepdim=True)
        v = x.var((1, 2, 3), keepdim=True)
        x = (x - m) / ((v + self.eps).sqrt())
        return x * self.mult + self.add


class BatchNorm(nn.Module):
    def __init__(self, nf, mom=0.1, eps=1e-5):
        super().__init__()
        # NB: pytorch bn mom is opposite of what you'd expect
        self.mom, self.eps = mom, eps
        self.mults = nn.Parameter(torch.ones(nf, 1, 1))
        self.adds = nn.Parameter(torch.zeros(nf, 1, 1))
        self.register_buffer('vars', torch.ones(1, nf, 1, 1))
        self.register_buffer('means', torch.zeros(1, nf, 1, 1))

    def update_stats(self, x):
        m = x.mean((0, 2, 3), keepdim=True)
        v = x.var((0, 2, 3), keepdim=True)
        self.means.lerp_(m, self.mom)
        self.vars.lerp_(v, self.mom)
        return m, v

    def forward(self, x):
        if self.training:
            with torch.no_grad(): m, v = self.update_stats(x)
        else: m, v = self.means, self.vars
        x = (x - m) / (v + self.eps).sqrt()
        return x * self.mults + self.adds


set_seed(42)
model = get_model(act_gr, norm=LayerNorm).apply(iw)
loss_ln, _ = fit(model)
set_seed(42)
model = get_model(act_gr, norm=BatchNorm).apply(iw)
loss_bn, _ = fit(model)
print(loss_ln, loss_bn)
assert loss_bn < 2.3 and loss_ln < 2.3
bn = model[0][1]
assert [k for k, _ in bn.named_buffers()] == ['vars', 'means']
assert set(model.state_dict()) >= {'0.1.vars', '0.1.means', '0.1.mults'}

# the running stats agree with nn.BatchNorm2d's (unbiased var, momentum 0.1)
x = torch.randn(16, 4, 5, 5) * 3 + 2
ours, theirs = BatchNorm(4), nn.BatchNorm2d(4)
for _ in range(3):
    ours(x)
    theirs(x)
assert torch.allclose(ours.means.flatten(), theirs.running_mean, atol=1e-5)
assert torch.allclose(ours.vars.flatten(), theirs.running_var, atol=1e-4)
ours.eval(); theirs.eval()
assert torch.allclose(ours(x), theirs(x), atol=1e-4)
ln = LayerNorm(4)
y = ln(x)
assert torch.allclose(y.mean((1, 2, 3)), torch.zeros(16), atol=1e-5)
