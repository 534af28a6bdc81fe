"""fastai/course22p2 nbs/14_augment.ipynb (miniai/augment.py, on the miniai learner, activations,
init, sgd and resnet modules, written out as in course_fastai22p2_resnet) at toy size on synthetic
16x16 images; torchvision's RandomCrop(padding=) / RandomHorizontalFlip and TF.hflip written as
small tensor modules: GlobalAvgPool (x.mean((-2,-1))), the summary() with _flops over parameters
and a `*_,h,w = outp.shape` unpack, BatchTransformCB(partial(tfm_batch, tfm_x=tfms), on_val=False),
CapturePreds (map(torch.cat, ...)) and capture_preds with test-time augmentation
(torch.stack([ap1,ap2]).mean(0).argmax(1)), random erasing (init.normal_ on a slice view of the
batch, x.clamp_(mn, mx) with 0-d tensor bounds), random copy (overlapping slice assignment
x[:,:,a:b,c:d] = x[:,:,e:f,g:h]), nn.Sequential of augmentation modules, the hand-written Dropout
with distributions.binomial.Binomial(tensor(1.0), probs=1-p).sample(x.size()), nn.Dropout2d, and
TTD_CB switching only the dropout layers back to train() with model.apply."""
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
from torch import distributions, tensor
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


# ---- 14_augment
class BatchTransformCB(Callback):
    def __init__(self, tfm, on_train=True, on_val=True):
        self.tfm, self.on_train, self.on_val = tfm, on_train, on_val

    def before_batch(self, learn):
        if (self.on_train and learn.training) or (self.on_val and not learn.training):
            learn.batch = self.tfm(learn.batch)


class RandomCrop(nn.Module):   # torchvision.transforms.RandomCrop(size, padding) on a batch
    def __init__(self, size, padding=0):
        super().__init__()
        self.size, self.padding = size, padding

    def forward(self, x):
        x = F.pad(x, (self.padding,) * 4)
        i = random.randint(0, x.shape[-2] - self.size)
        j = random.randint(0, x.shape[-1] - self.size)
        return x[..., i:i + self.size, j:j + self.size]


class RandomHorizontalFlip(nn.Module):   # torchvision.transforms.RandomHorizontalFlip
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, x): return x.flip(-1) if torch.rand(1) < self.p else x


class transforms:
    RandomCrop, RandomHorizontalFlip = RandomCrop, RandomHorizontalFlip


class TF:
    @staticmethod
    def hflip(x): return x.flip(-1)


class GlobalAvgPool(nn.Module):
    def forward(self, x): return x.mean((-2, -1))


def get_model(act=nn.ReLU, nfs=(8, 16, 32), norm=nn.BatchNorm2d):
    layers = [ResBlock(1, 8, ks=5, stride=1, act=act, norm=norm)]
    layers += [ResBlock(nfs[i], nfs[i+1], act=act, norm=norm, stride=2) for i in range(len(nfs)-1)]
    layers += [nn.Flatten(), nn.Linear(nfs[-1] * 16, 10, bias=False), nn.BatchNorm1d(10)]
    return nn.Sequential(*layers)


def get_model3(act=nn.ReLU, nfs=(8, 16, 32), norm=nn.BatchNorm2d):
    layers = [ResBlock(1, 8, ks=5, stride=1, act=act, norm=norm)]
    layers += [ResBlock(nfs[i], nfs[i+1], act=act, norm=norm, stride=2) for i in range(len(nfs)-1)]
    layers += [GlobalAvgPool(), nn.Linear(32, 10, bias=False), nn.BatchNorm1d(10)]
    return nn.Sequential(*layers)


def _flops(x, h, w):
    if x.dim() < 3: return x.numel()
    if x.dim() == 4: return x.numel()*h*w


def summary(self):
    res = '|Module|Input|Output|Num params|MFLOPS|\n|--|--|--|--|--|\n'
    totp, totf = 0, 0
    def _f(hook, mod, inp, outp):
        nonlocal res, totp, totf
        nparms = sum(o.numel() for o in mod.parameters())
        totp += nparms
        *_, h, w = outp.shape
        flops = sum(_flops(o, h, w) for o in mod.parameters())/1e6
        totf += flops
        res += f'|{type(mod).__name__}|{tuple(inp[0].shape)}|{tuple(outp.shape)}|{nparms}|{flops:.1f}|\n'
    with Hooks(self.model, _f) as hooks: self.fit(1, lr=1, cbs=SingleBatchCB())
    print(f"Tot params: {totp}; MFLOPS: {totf:.1f}")
    print(res)
    return totp, totf, res


Learner.summary = summary


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


def tfm_batch(b, tfm_x=noop, tfm_y=noop): return tfm_x(b[0]), tfm_y(b[1])


def _rand_erase1(x, pct, xm, xs, mn, mx):
    szx = int(pct*x.shape[-2])
    szy = int(pct*x.shape[-1])
    stx = int(random.random()*(1-pct)*x.shape[-2])
    sty = int(random.random()*(1-pct)*x.shape[-1])
    init.normal_(x[:, :, stx:stx+szx, sty:sty+szy], mean=xm, std=xs)
    x.clamp_(mn, mx)


def rand_erase(x, pct=0.2, max_num=4):
    xm, xs, mn, mx = x.mean(), x.std(), x.min(), x.max()
    num = random.randint(0, max_num)
    for i in range(num): _rand_erase1(x, pct, xm, xs, mn, mx)
    return x


class RandErase(nn.Module):
    def __init__(self, pct=0.2, max_num=4):
        super().__init__()
        self.pct, self.max_num = pct, max_num

    def forward(self, x): return rand_erase(x, self.pct, self.max_num)


def _rand_copy1(x, pct):
    szx = int(pct*x.shape[-2])
    szy = int(pct*x.shape[-1])
    stx1 = int(random.random()*(1-pct)*x.shape[-2])
    sty1 = int(random.random()*(1-pct)*x.shape[-1])
    stx2 = int(random.random()*(1-pct)*x.shape[-2])
    sty2 = int(random.random()*(1-pct)*x.shape[-1])
    x[:, :, stx1:stx1+szx, sty1:sty1+szy] = x[:, :, stx2:stx2+szx, sty2:sty2+szy]


def rand_copy(x, pct=0.2, max_num=4):
    num = random.randint(0, max_num)
    for i in range(num): _rand_copy1(x, pct)
    return x


class RandCopy(nn.Module):
    def __init__(self, pct=0.2, max_num=4):
        super().__init__()
        self.pct, self.max_num = pct, max_num

    def forward(self, x): return rand_copy(x, self.pct, self.max_num)


class Dropout(nn.Module):
    def __init__(self, p=0.1):
        super().__init__()
        self.p = p

    def forward(self, x):
        if not self.training: return x
        dist = distributions.binomial.Binomial(tensor(1.0).to(x.device), probs=1-self.p)
        return x * dist.sample(x.size()) * 1/(1-self.p)


def get_dropmodel(act=nn.ReLU, nfs=(8, 16, 32), norm=nn.BatchNorm2d, drop=0.0):
    layers = [ResBlock(1, 8, ks=5, stride=1, act=act, norm=norm), nn.Dropout2d(drop)]
    layers += [ResBlock(nfs[i], nfs[i+1], act=act, norm=norm, stride=2) for i in range(len(nfs)-1)]
    layers += [nn.Flatten(), Dropout(drop), nn.Linear(nfs[-1] * 16, 10, bias=False), nn.BatchNorm1d(10)]
    return nn.Sequential(*layers)


class TTD_CB(Callback):
    def before_epoch(self, learn):
        learn.model.apply(lambda m: m.train() if isinstance(m, (nn.Dropout, nn.Dropout2d)) else None)


# synthetic "fashion": 4 classes of 16x16 images with a bright horizontal band at four heights
# (unchanged by a horizontal flip or a one-pixel crop), normalised
set_seed(42)
g = torch.Generator().manual_seed(0)
def make(n):
    y = torch.randint(0, 4, (n,), generator=g)
    x = torch.randn(n, 1, 16, 16, generator=g) * 0.3
    for i, c in enumerate(y.tolist()):
        x[i, 0, c*4:c*4+4, :] += 1.0
    xmean, xstd = x.mean(), x.std()
    return (x - xmean) / xstd, y
bs = 64
dls = DataLoaders(DataLoader(TensorDataset(*make(256)), batch_size=bs, shuffle=True),
                  DataLoader(TensorDataset(*make(128)), batch_size=128))
act_gr = partial(GeneralRelu, leak=0.1, sub=0.4)
iw = partial(init_weights, leaky=0.1)

# summary with FLOPs: the GlobalAvgPool head has far fewer parameters than the Flatten head
lr = 1e-2
totp, totf, res = TrainLearner(get_model3(), dls, F.cross_entropy, lr=lr, cbs=[DeviceCB()]).summary()
assert totp == sum(p.numel() for p in get_model3().parameters())
assert '|GlobalAvgPool|(64, 32, 4, 4)|(64, 32)|0|0.0|' in res, res
assert totp < TrainLearner(get_model(), dls, F.cross_entropy, lr=lr, cbs=[DeviceCB()]).summary()[0]
assert [tuple(o.shape) for o in get_model3()[0].parameters()][:2] == [(8, 1, 5, 5), (8,)]

# augmentation as a batch transform: training batches only
tfms = nn.Sequential(transforms.RandomCrop(16, padding=1),
                     transforms.RandomHorizontalFlip(),
                     RandErase())
augcb = BatchTransformCB(partial(tfm_batch, tfm_x=tfms), on_val=False)
model = get_model()
learn = TrainLearner(model, dls, F.cross_entropy, lr=lr, cbs=[DeviceCB(), SingleBatchCB(), augcb])
learn.fit(1)
xb, yb = learn.batch
assert xb.shape == (bs, 1, 16, 16) and yb.shape == (bs,)

# training with RandCopy augmentation, OneCycle AdamW
set_seed(1)
epochs = 3
tmax = epochs * len(dls.train)
tfms = nn.Sequential(transforms.RandomCrop(16, padding=1),
                     transforms.RandomHorizontalFlip(),
                     RandCopy())
augcb = BatchTransformCB(partial(tfm_batch, tfm_x=tfms), on_val=False)
sched = partial(lr_scheduler.OneCycleLR, max_lr=lr, total_steps=tmax)
metrics = MetricsCB(accuracy=MulticlassAccuracy())
cbs = [DeviceCB(), metrics]
xtra = [BatchSchedCB(sched), augcb]
model = get_model(act_gr, norm=nn.BatchNorm2d).apply(iw)
learn = TrainLearner(model, dls, F.cross_entropy, lr=lr, cbs=cbs+xtra, opt_func=optim.AdamW)
learn.fit(epochs)
assert float(metrics.logs[-1]['accuracy']) > 0.6, metrics.logs

# test-time augmentation: average the predictions on the images and their mirror images
ap1, at = learn.capture_preds()
ttacb = BatchTransformCB(partial(tfm_batch, tfm_x=TF.hflip), on_val=True)
ap2, at2, inps = learn.capture_preds(cbs=[ttacb], inps=True)
assert ap1.shape == ap2.shape == (128, 10) and at.shape == (128,) and torch.equal(at, at2)
assert torch.equal(inps, dls.valid.dataset.tensors[0].flip(-1))
ap = torch.stack([ap1, ap2]).mean(0).argmax(1)
acc = round((ap == at).float().mean().item(), 3)
print(acc)
assert acc > 0.5

# random erasing in place on a batch: the erased patch stays within the batch's range
random.seed(3)
torch.manual_seed(3)
xb, _ = next(iter(dls.train))
xbt = xb[:16]
pct = 0.2
szx = int(pct*xbt.shape[-2])
szy = int(pct*xbt.shape[-1])
stx = int(random.random()*(1-pct)*xbt.shape[-2])
sty = int(random.random()*(1-pct)*xbt.shape[-1])
before = xbt.clone()
mn, mx = xbt.min(), xbt.max()
_rand_erase1(xbt, 0.2, xbt.mean(), xbt.std(), mn, mx)
assert xbt.min() >= mn and xbt.max() <= mx
assert (xbt != before).any(), 'the patch was written through the slice view'
assert (xbt != before).float().mean() <= (szx * szy) / 256 + 1e-6
xb[:16] = rand_erase(xbt, 0.2, 4)

# random copy: an overlapping slice assignment is copied row by row, so the patch smears
# (rows already written are read again): torch's overlap check gives up on non-dense views
x = torch.arange(2 * 1 * 10 * 10, dtype=torch.float32).reshape(2, 1, 10, 10)
src = x[:, :, 1:4, 2:5].clone()
x[:, :, 2:5, 3:6] = x[:, :, 1:4, 2:5]
assert torch.equal(x[0, 0, 2:5, 3:6], torch.tensor([[12., 13., 14.], [22., 12., 13.], [32., 22., 12.]]))
assert torch.equal(x[:, :, 2, 3:6], src[:, :, 0])
xbt = xb[:16].clone()
rand_copy(xbt, 0.2, 4)

# the hand-written Dropout: a Binomial with total_count 1 keeps about 1-p, scaled by 1/(1-p)
p = 0.1
dist = distributions.binomial.Binomial(probs=1-p)
s = dist.sample((10,))
assert s.shape == (10,) and bool(((s == 0) | (s == 1)).all())
torch.manual_seed(0)
d = Dropout(0.25)
out = d(torch.ones(4000))
assert torch.allclose(out.unique(), torch.tensor([0.0, 4/3])) and abs((out > 0).float().mean().item() - 0.75) < 0.05
d.eval()
assert torch.equal(d(torch.ones(3)), torch.ones(3))

set_seed(42)
epochs = 2
tmax = epochs * len(dls.train)
sched = partial(lr_scheduler.OneCycleLR, max_lr=lr, total_steps=tmax)
metrics = MetricsCB(accuracy=MulticlassAccuracy())
model = get_dropmodel(act_gr, norm=nn.BatchNorm2d, drop=0.1).apply(iw)
learn = TrainLearner(model, dls, F.cross_entropy, lr=lr, cbs=[DeviceCB(), metrics, BatchSchedCB(sched)],
                     opt_func=optim.AdamW)
learn.fit(epochs)
assert float(metrics.logs[-1]['accuracy']) > 0.5, metrics.logs

# test-time dropout: only the dropout layers go back to training mode
ttd = TTD_CB()
learn.model.eval()
ttd.before_epoch(learn)
modes = {type(m).__name__: m.training for m in learn.model.modules()}
assert modes['Dropout2d'] and not modes['BatchNorm2d'] and not modes['Sequential']
p1, _ = learn.capture_preds(cbs=[ttd])
p2, _ = learn.capture_preds(cbs=[ttd])
assert not torch.equal(p1, p2)      # nn.Dropout2d still drops at test time
