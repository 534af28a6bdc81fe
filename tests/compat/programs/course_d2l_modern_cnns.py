"""Dive into Deep Learning (d2l-ai/d2l-en), chapter_convolutional-modern: nin.md, googlenet.md,
resnet.md (Residual, ResNet, ResNet18, ResNeXtBlock) and densenet.md, PyTorch tab, with the d2l
library pieces they use written out from d2l/torch.py (HyperParameters.save_hyperparameters
reading the caller's frame with inspect, add_to_class, Module / Classifier with loss, accuracy
and layer_summary, apply_init, init_cnn testing type(module) == nn.Conv2d, DataModule's
get_tensorloader, Trainer.fit_epoch calling loss.backward() and optim.step() inside
torch.no_grad()), ProgressBoard plotting replaced by a list. Synthetic 4-class images stand in
for FashionMNIST; the networks are trained at toy width. What it exercises: Lazy modules
(LazyConv2d, LazyBatchNorm2d, LazyLinear) becoming Conv2d / BatchNorm2d / Linear on the first
forward, nn.Sequential.add_module, grouped convolutions (groups=bot_channels//groups), `Y += X`
on a BatchNorm output, torch.cat of Inception branches and dense-block features, AvgPool2d,
MaxPool2d with padding, AdaptiveAvgPool2d((1, 1))."""
import contextlib
import inspect
import io
import re

import torch
from torch import nn
from torch.nn import functional as F


# ---- d2l/torch.py
def add_to_class(Class):
    """Register functions as methods in created class."""
    def wrapper(obj):
        setattr(Class, obj.__name__, obj)
    return wrapper


class HyperParameters:
    """The base class of hyperparameters."""
    def save_hyperparameters(self, ignore=[]):
        """Save function arguments into class attributes."""
        frame = inspect.currentframe().f_back
        _, _, _, local_vars = inspect.getargvalues(frame)
        self.hparams = {k: v for k, v in local_vars.items()
                        if k not in set(ignore+['self']) and not k.startswith('_')}
        for k, v in self.hparams.items():
            setattr(self, k, v)


class Module(nn.Module, HyperParameters):
    """The base class of models."""
    def __init__(self, plot_train_per_epoch=2, plot_valid_per_epoch=1):
        super().__init__()
        self.save_hyperparameters()
        self.board = []

    def loss(self, y_hat, y):
        raise NotImplementedError

    def forward(self, X):
        assert hasattr(self, 'net'), 'Neural network is defined'
        return self.net(X)

    def plot(self, key, value, train):
        self.board.append((('train_' if train else 'val_') + key, self.trainer.epoch,
                           float(value.detach().cpu())))

    def training_step(self, batch):
        l = self.loss(self(*batch[:-1]), batch[-1])
        self.plot('loss', l, train=True)
        return l

    def validation_step(self, batch):
        l = self.loss(self(*batch[:-1]), batch[-1])
        self.plot('loss', l, train=False)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=self.lr)

    def apply_init(self, inputs, init=None):
        self.forward(*inputs)
        if init is not None:
            self.net.apply(init)


class DataModule(HyperParameters):
    """The base class of data."""
    def __init__(self, root='../data', num_workers=4):
        self.save_hyperparameters()

    def train_dataloader(self):
        return self.get_dataloader(train=True)

    def val_dataloader(self):
        return self.get_dataloader(train=False)

    def get_tensorloader(self, tensors, train, indices=slice(0, None)):
        tensors = tuple(a[indices] for a in tensors)
        dataset = torch.utils.data.TensorDataset(*tensors)
        return torch.utils.data.DataLoader(dataset, self.batch_size,
                                           shuffle=train)


class Trainer(HyperParameters):
    """The base class for training models with data."""
    def __init__(self, max_epochs, num_gpus=0, gradient_clip_val=0):
        self.save_hyperparameters()
        self.gpus = [torch.device(f'cuda:{i}') for i in range(min(num_gpus, torch.cuda.device_count()))]

    def prepare_data(self, data):
        self.train_dataloader = data.train_dataloader()
        self.val_dataloader = data.val_dataloader()
        self.num_train_batches = len(self.train_dataloader)
        self.num_val_batches = (len(self.val_dataloader)
                                if self.val_dataloader is not None else 0)

    def prepare_model(self, model):
        model.trainer = self
        if self.gpus:
            model.to(self.gpus[0])
        self.model = model

    def fit(self, model, data):
        self.prepare_data(data)
        self.prepare_model(model)
        self.optim = model.configure_optimizers()
        self.epoch = 0
        self.train_batch_idx = 0
        self.val_batch_idx = 0
        for self.epoch in range(self.max_epochs):
            self.fit_epoch()

    def prepare_batch(self, batch):
        if self.gpus:
            batch = [a.to(self.gpus[0]) for a in batch]
        return batch

    def fit_epoch(self):
        self.model.train()
        for batch in self.train_dataloader:
            loss = self.model.training_step(self.prepare_batch(batch))
            self.optim.zero_grad()
            with torch.no_grad():
                loss.backward()
                self.optim.step()
            self.train_batch_idx += 1
        if self.val_dataloader is None:
            return
        self.model.eval()
        for batch in self.val_dataloader:
            with torch.no_grad():
                self.model.validation_step(self.prepare_batch(batch))
            self.val_batch_idx += 1


class Classifier(Module):
    """The base class of classification models."""
    def validation_step(self, batch):
        Y_hat = self(*batch[:-1])
        self.plot('loss', self.loss(Y_hat, batch[-1]), train=False)
        self.plot('acc', self.accuracy(Y_hat, batch[-1]), train=False)

    def accuracy(self, Y_hat, Y, averaged=True):
        """Compute the number of correct predictions."""
        Y_hat = Y_hat.reshape((-1, Y_hat.shape[-1]))
        preds = Y_hat.argmax(axis=1).type(Y.dtype)
        compare = (preds == Y.reshape(-1)).type(torch.float32)
        return compare.mean() if averaged else compare

    def loss(self, Y_hat, Y, averaged=True):
        Y_hat = Y_hat.reshape((-1, Y_hat.shape[-1]))
        Y = Y.reshape((-1,))
        return F.cross_entropy(
            Y_hat, Y, reduction='mean' if averaged else 'none')

    def layer_summary(self, X_shape):
        X = torch.randn(*X_shape)
        for layer in self.net:
            X = layer(X)
            print(layer.__class__.__name__, 'output shape:\t', X.shape)


def init_cnn(module):
    """Initialize weights for CNNs."""
    if type(module) == nn.Linear or type(module) == nn.Conv2d:
        nn.init.xavier_uniform_(module.weight)


class Images(DataModule):   # in place of d2l.FashionMNIST: a band at one of four heights
    def __init__(self, batch_size=32, resize=(16, 16), n=192):
        super().__init__()
        self.save_hyperparameters()
        g = torch.Generator().manual_seed(0)
        self.y = torch.randint(0, 4, (n,), generator=g)
        self.X = torch.randn(n, 1, *resize, generator=g) * 0.3
        h = resize[0] // 4
        for i, c in enumerate(self.y.tolist()):
            self.X[i, 0, c*h:(c+1)*h] += 1.

    def get_dataloader(self, train):
        i = slice(0, 128) if train else slice(128, None)
        return self.get_tensorloader((self.X, self.y), train, i)


def summary_shapes(model, X_shape):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        model.layer_summary(X_shape)
    print(out.getvalue())
    return [(line.split()[0], tuple(int(d) for d in re.findall(r'\d+', line.split('\t')[1])))
            for line in out.getvalue().splitlines()]


torch.manual_seed(0)

# ---- nin.md
def nin_block(out_channels, kernel_size, strides, padding):
    return nn.Sequential(
        nn.LazyConv2d(out_channels, kernel_size, strides, padding), nn.ReLU(),
        nn.LazyConv2d(out_channels, kernel_size=1), nn.ReLU(),
        nn.LazyConv2d(out_channels, kernel_size=1), nn.ReLU())


class NiN(Classifier):
    def __init__(self, lr=0.1, num_classes=10):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(
            nin_block(96, kernel_size=11, strides=4, padding=0),
            nn.MaxPool2d(3, stride=2),
            nin_block(256, kernel_size=5, strides=1, padding=2),
            nn.MaxPool2d(3, stride=2),
            nin_block(384, kernel_size=3, strides=1, padding=1),
            nn.MaxPool2d(3, stride=2),
            nn.Dropout(0.5),
            nin_block(num_classes, kernel_size=3, strides=1, padding=1),
            nn.AdaptiveAvgPool2d((1, 1)),
            nn.Flatten())
        self.net.apply(init_cnn)


nin = NiN()
assert nin.hparams == {'lr': 0.1, 'num_classes': 10} and nin.lr == 0.1
assert type(nin.net[0][0]) is nn.LazyConv2d
with torch.no_grad():
    shapes = summary_shapes(nin, (1, 1, 224, 224))
assert shapes == [('Sequential', (1, 96, 54, 54)), ('MaxPool2d', (1, 96, 26, 26)),
                  ('Sequential', (1, 256, 26, 26)), ('MaxPool2d', (1, 256, 12, 12)),
                  ('Sequential', (1, 384, 12, 12)), ('MaxPool2d', (1, 384, 5, 5)),
                  ('Dropout', (1, 384, 5, 5)), ('Sequential', (1, 10, 5, 5)),
                  ('AdaptiveAvgPool2d', (1, 10, 1, 1)), ('Flatten', (1, 10))], shapes
assert type(nin.net[0][0]) is nn.Conv2d and nin.net[0][0].weight.shape == (96, 1, 11, 11)


# ---- googlenet.md
class Inception(nn.Module):
    # c1--c4 are the number of output channels for each branch
    def __init__(self, c1, c2, c3, c4, **kwargs):
        super(Inception, self).__init__(**kwargs)
        # Branch 1
        self.b1_1 = nn.LazyConv2d(c1, kernel_size=1)
        # Branch 2
        self.b2_1 = nn.LazyConv2d(c2[0], kernel_size=1)
        self.b2_2 = nn.LazyConv2d(c2[1], kernel_size=3, padding=1)
        # Branch 3
        self.b3_1 = nn.LazyConv2d(c3[0], kernel_size=1)
        self.b3_2 = nn.LazyConv2d(c3[1], kernel_size=5, padding=2)
        # Branch 4
        self.b4_1 = nn.MaxPool2d(kernel_size=3, stride=1, padding=1)
        self.b4_2 = nn.LazyConv2d(c4, kernel_size=1)

    def forward(self, x):
        b1 = F.relu(self.b1_1(x))
        b2 = F.relu(self.b2_2(F.relu(self.b2_1(x))))
        b3 = F.relu(self.b3_2(F.relu(self.b3_1(x))))
        b4 = F.relu(self.b4_2(self.b4_1(x)))
        return torch.cat((b1, b2, b3, b4), dim=1)


class GoogleNet(Classifier):
    def b1(self):
        return nn.Sequential(
            nn.LazyConv2d(64, kernel_size=7, stride=2, padding=3),
            nn.ReLU(), nn.MaxPool2d(kernel_size=3, stride=2, padding=1))


@add_to_class(GoogleNet)
def b2(self):
    return nn.Sequential(
        nn.LazyConv2d(64, kernel_size=1), nn.ReLU(),
        nn.LazyConv2d(192, kernel_size=3, padding=1), nn.ReLU(),
        nn.MaxPool2d(kernel_size=3, stride=2, padding=1))


@add_to_class(GoogleNet)
def b3(self):
    return nn.Sequential(Inception(64, (96, 128), (16, 32), 32),
                         Inception(128, (128, 192), (32, 96), 64),
                         nn.MaxPool2d(kernel_size=3, stride=2, padding=1))


@add_to_class(GoogleNet)
def b4(self):
    return nn.Sequential(Inception(192, (96, 208), (16, 48), 64),
                         Inception(160, (112, 224), (24, 64), 64),
                         Inception(128, (128, 256), (24, 64), 64),
                         Inception(112, (144, 288), (32, 64), 64),
                         Inception(256, (160, 320), (32, 128), 128),
                         nn.MaxPool2d(kernel_size=3, stride=2, padding=1))


@add_to_class(GoogleNet)
def b5(self):
    return nn.Sequential(Inception(256, (160, 320), (32, 128), 128),
                         Inception(384, (192, 384), (48, 128), 128),
                         nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten())


@add_to_class(GoogleNet)
def __init__(self, lr=0.1, num_classes=10):
    super(GoogleNet, self).__init__()
    self.save_hyperparameters()
    self.net = nn.Sequential(self.b1(), self.b2(), self.b3(), self.b4(),
                             self.b5(), nn.LazyLinear(num_classes))
    self.net.apply(init_cnn)


with torch.no_grad():
    shapes = summary_shapes(GoogleNet(), (1, 1, 96, 96))
assert [s for _, s in shapes] == [(1, 64, 24, 24), (1, 192, 12, 12), (1, 480, 6, 6),
                                  (1, 832, 3, 3), (1, 1024), (1, 10)], shapes


# ---- resnet.md
class Residual(nn.Module):
    """The Residual block of ResNet models."""
    def __init__(self, num_channels, use_1x1conv=False, strides=1):
        super().__init__()
        self.conv1 = nn.LazyConv2d(num_channels, kernel_size=3, padding=1,
                                   stride=strides)
        self.conv2 = nn.LazyConv2d(num_channels, kernel_size=3, padding=1)
        if use_1x1conv:
            self.conv3 = nn.LazyConv2d(num_channels, kernel_size=1,
                                       stride=strides)
        else:
            self.conv3 = None
        self.bn1 = nn.LazyBatchNorm2d()
        self.bn2 = nn.LazyBatchNorm2d()

    def forward(self, X):
        Y = F.relu(self.bn1(self.conv1(X)))
        Y = self.bn2(self.conv2(Y))
        if self.conv3:
            X = self.conv3(X)
        Y += X
        return F.relu(Y)


blk = Residual(3)
X = torch.randn(4, 3, 6, 6)
assert blk(X).shape == (4, 3, 6, 6)
blk = Residual(6, use_1x1conv=True, strides=2)
assert blk(X).shape == (4, 6, 3, 3)
assert type(blk.bn1) is nn.BatchNorm2d and blk.bn1.num_features == 6
assert blk.bn1.num_batches_tracked.item() == 1


class ResNet(Classifier):
    def b1(self):
        return nn.Sequential(
            nn.LazyConv2d(64, kernel_size=7, stride=2, padding=3),
            nn.LazyBatchNorm2d(), nn.ReLU(),
            nn.MaxPool2d(kernel_size=3, stride=2, padding=1))


@add_to_class(ResNet)
def block(self, num_residuals, num_channels, first_block=False):
    blk = []
    for i in range(num_residuals):
        if i == 0 and not first_block:
            blk.append(Residual(num_channels, use_1x1conv=True, strides=2))
        else:
            blk.append(Residual(num_channels))
    return nn.Sequential(*blk)


@add_to_class(ResNet)
def __init__(self, arch, lr=0.1, num_classes=10):
    super(ResNet, self).__init__()
    self.save_hyperparameters()
    self.net = nn.Sequential(self.b1())
    for i, b in enumerate(arch):
        self.net.add_module(f'b{i+2}', self.block(*b, first_block=(i == 0)))
    self.net.add_module('last', nn.Sequential(
        nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(),
        nn.LazyLinear(num_classes)))
    self.net.apply(init_cnn)


class ResNet18(ResNet):
    def __init__(self, lr=0.1, num_classes=10):
        super().__init__(((2, 64), (2, 128), (2, 256), (2, 512)),
                         lr, num_classes)


r18 = ResNet18()
r18.eval()
with torch.no_grad():
    shapes = summary_shapes(r18, (1, 1, 96, 96))
assert [s for _, s in shapes] == [(1, 64, 24, 24), (1, 64, 24, 24), (1, 128, 12, 12),
                                  (1, 256, 6, 6), (1, 512, 3, 3), (1, 10)], shapes
assert [n for n, _ in r18.net.named_children()] == ['0', 'b2', 'b3', 'b4', 'b5', 'last']
assert sum(p.numel() for p in r18.parameters()) == 11178378

# a small ResNet trained with d2l's Trainer
torch.manual_seed(1)
model = ResNet(((1, 64), (1, 32)), lr=0.05, num_classes=4)   # b1 gives 64 channels
data = Images(batch_size=32, resize=(16, 16))
model.apply_init([next(iter(data.get_dataloader(True)))[0]], init_cnn)
assert type(model.net[0][0]) is nn.Conv2d and type(model.net.last[2]) is nn.Linear
trainer = Trainer(max_epochs=4)
trainer.fit(model, data)
losses = [v for k, e, v in model.board if k == 'train_loss']
accs = [v for k, e, v in model.board if k == 'val_acc']
print('resnet', losses[0], losses[-1], accs)
assert len(losses) == 16 and len(accs) == 8 and losses[-1] < losses[0] / 2, model.board
assert trainer.train_batch_idx == 4 * 4 and trainer.val_batch_idx == 4 * 2


class ResNeXtBlock(nn.Module):
    """The ResNeXt block."""
    def __init__(self, num_channels, groups, bot_mul, use_1x1conv=False,
                 strides=1):
        super().__init__()
        bot_channels = int(round(num_channels * bot_mul))
        self.conv1 = nn.LazyConv2d(bot_channels, kernel_size=1, stride=1)
        self.conv2 = nn.LazyConv2d(bot_channels, kernel_size=3,
                                   stride=strides, padding=1,
                                   groups=bot_channels//groups)
        self.conv3 = nn.LazyConv2d(num_channels, kernel_size=1, stride=1)
        self.bn1 = nn.LazyBatchNorm2d()
        self.bn2 = nn.LazyBatchNorm2d()
        self.bn3 = nn.LazyBatchNorm2d()
        if use_1x1conv:
            self.conv4 = nn.LazyConv2d(num_channels, kernel_size=1,
                                       stride=strides)
            self.bn4 = nn.LazyBatchNorm2d()
        else:
            self.conv4 = None

    def forward(self, X):
        Y = F.relu(self.bn1(self.conv1(X)))
        Y = F.relu(self.bn2(self.conv2(Y)))
        Y = self.bn3(self.conv3(Y))
        if self.conv4:
            X = self.bn4(self.conv4(X))
        return F.relu(Y + X)


blk = ResNeXtBlock(32, 16, 1)
X = torch.randn(4, 32, 24, 24)
Y = blk(X)
assert Y.shape == (4, 32, 24, 24) and blk.conv2.weight.shape == (32, 16, 3, 3)
Y.sum().backward()
assert blk.conv2.weight.grad.shape == (32, 16, 3, 3)
blk = ResNeXtBlock(16, 4, 0.5, use_1x1conv=True, strides=2)
assert blk(X).shape == (4, 16, 12, 12) and blk.conv2.groups == 2


# ---- densenet.md
def conv_block(num_channels):
    return nn.Sequential(
        nn.LazyBatchNorm2d(), nn.ReLU(),
        nn.LazyConv2d(num_channels, kernel_size=3, padding=1))


class DenseBlock(nn.Module):
    def __init__(self, num_convs, num_channels):
        super(DenseBlock, self).__init__()
        layer = []
        for i in range(num_convs):
            layer.append(conv_block(num_channels))
        self.net = nn.Sequential(*layer)

    def forward(self, X):
        for blk in self.net:
            Y = blk(X)
            # Concatenate input and output of each block along the channels
            X = torch.cat((X, Y), dim=1)
        return X


blk = DenseBlock(2, 10)
X = torch.randn(4, 3, 8, 8)
Y = blk(X)
assert Y.shape == (4, 23, 8, 8) and torch.equal(Y[:, :3], X)


def transition_block(num_channels):
    return nn.Sequential(
        nn.LazyBatchNorm2d(), nn.ReLU(),
        nn.LazyConv2d(num_channels, kernel_size=1),
        nn.AvgPool2d(kernel_size=2, stride=2))


blk = transition_block(10)
assert blk(Y).shape == (4, 10, 4, 4)


class DenseNet(Classifier):
    def b1(self):
        return nn.Sequential(
            nn.LazyConv2d(64, kernel_size=7, stride=2, padding=3),
            nn.LazyBatchNorm2d(), nn.ReLU(),
            nn.MaxPool2d(kernel_size=3, stride=2, padding=1))


@add_to_class(DenseNet)
def __init__(self, num_channels=64, growth_rate=32, arch=(4, 4, 4, 4),
             lr=0.1, num_classes=10):
    super(DenseNet, self).__init__()
    self.save_hyperparameters()
    self.net = nn.Sequential(self.b1())
    for i, num_convs in enumerate(arch):
        self.net.add_module(f'dense_blk{i+1}', DenseBlock(num_convs,
                                                          growth_rate))
        # The number of output channels in the previous dense block
        num_channels += num_convs * growth_rate
        # A transition layer that halves the number of channels is added
        # between the dense blocks
        if i != len(arch) - 1:
            num_channels //= 2
            self.net.add_module(f'tran_blk{i+1}', transition_block(
                num_channels))
    self.net.add_module('last', nn.Sequential(
        nn.LazyBatchNorm2d(), nn.ReLU(),
        nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(),
        nn.LazyLinear(num_classes)))
    self.net.apply(init_cnn)


dn = DenseNet()
dn.eval()
with torch.no_grad():
    shapes = summary_shapes(dn, (1, 1, 96, 96))
assert shapes == [('Sequential', (1, 64, 24, 24)), ('DenseBlock', (1, 192, 24, 24)),
                  ('Sequential', (1, 96, 12, 12)), ('DenseBlock', (1, 224, 12, 12)),
                  ('Sequential', (1, 112, 6, 6)), ('DenseBlock', (1, 240, 6, 6)),
                  ('Sequential', (1, 120, 3, 3)), ('DenseBlock', (1, 248, 3, 3)),
                  ('Sequential', (1, 10))], shapes
assert dn.hparams['arch'] == (4, 4, 4, 4) and dn.growth_rate == 32

torch.manual_seed(2)
model = DenseNet(num_channels=8, growth_rate=4, arch=(2, 2), lr=0.1, num_classes=4)
model.apply_init([next(iter(data.get_dataloader(True)))[0]], init_cnn)
trainer = Trainer(max_epochs=4)
trainer.fit(model, data)
losses = [v for k, e, v in model.board if k == 'train_loss']
print('densenet', losses[0], losses[-1])
assert losses[-1] < losses[0] * 0.8, model.board
