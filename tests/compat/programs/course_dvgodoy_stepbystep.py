"""Daniel Voigt Godoy's "Deep Learning with PyTorch Step-by-Step", the StepByStep class of
stepbystep/v4.py as the chapters 3-6 notebooks use it, on synthetic data: the train/val step
closures, set_seed (cudnn flags, torch / numpy / random seeds, train_loader.sampler.generator),
predict via torch.as_tensor(x).float(), correct() with torch.max(yhat, 1) and (torch.sigmoid(yhat)
> threshold).long() plus per-class counts into torch.tensor(result), loader_apply with
torch.stack(results, axis=0) and .sum(axis=0), statistics_per_channel with reshape / mean(axis=2)
/ std(axis=2) and torch.tensor([n] * c).float(), attach_hooks / remove_hooks collecting forward
outputs by layer name, capture_gradients / capture_parameters through p.register_hook and
tolist(), lr_range_test with LambdaLR over numpy-valued make_lr_fn, get_last_lr() and
deepcopy(state_dict()) restores, set_lr_scheduler with StepLR, ReduceLROnPlateau (step(val_loss)),
CyclicLR and OneCycleLR (per mini-batch), CosineAnnealingWarmRestarts stepped with a fractional
epoch, set_clip_grad_value / set_clip_grad_norm / set_clip_backprop (torch.clamp in a tensor
hook). Left out: matplotlib, tensorboard, torchvision's Normalize (make_normalizer returns the
mean and std); `self.clipping = None` is set in __init__, as the book's later versions do."""
import random
from copy import deepcopy

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.optim.lr_scheduler import LambdaLR, StepLR, ReduceLROnPlateau, CyclicLR, OneCycleLR, CosineAnnealingWarmRestarts
from torch.utils.data import DataLoader, TensorDataset, random_split


def make_lr_fn(start_lr, end_lr, num_iter, step_mode='exp'):
    if step_mode == 'linear':
        factor = (end_lr / start_lr - 1) / num_iter
        def lr_fn(iteration):
            return 1 + iteration * factor
    else:
        factor = (np.log(end_lr) - np.log(start_lr)) / num_iter
        def lr_fn(iteration):
            return np.exp(factor)**iteration
    return lr_fn

class StepByStep(object):
    def __init__(self, model, loss_fn, optimizer):
        self.model = model
        self.loss_fn = loss_fn
        self.optimizer = optimizer
        self.device = 'cuda' if torch.cuda.is_available() else 'cpu'
        self.model.to(self.device)

        self.train_loader = None
        self.val_loader = None
        self.writer = None
        self.scheduler = None
        self.is_batch_lr_scheduler = False
        self.clipping = None

        self.losses = []
        self.val_losses = []
        self.learning_rates = []
        self.total_epochs = 0

        self.visualization = {}
        self.handles = {}

        self.train_step = self._make_train_step()
        self.val_step = self._make_val_step()

    def to(self, device):
        self.device = device
        self.model.to(self.device)

    def set_loaders(self, train_loader, val_loader=None):
        self.train_loader = train_loader
        self.val_loader = val_loader

    def _make_train_step(self):
        def perform_train_step(x, y):
            # Sets model to TRAIN mode
            self.model.train()

            # Step 1 - Computes our model's predicted output - forward pass
            yhat = self.model(x)
            # Step 2 - Computes the loss
            loss = self.loss_fn(yhat, y)
            # Step 3 - Computes gradients
            loss.backward()

            if callable(self.clipping):
                self.clipping()

            # Step 4 - Updates parameters using gradients and the learning rate
            self.optimizer.step()
            self.optimizer.zero_grad()

            # Returns the loss
            return loss.item()

        return perform_train_step

    def _make_val_step(self):
        def perform_val_step(x, y):
            self.model.eval()
            yhat = self.model(x)
            loss = self.loss_fn(yhat, y)
            return loss.item()

        return perform_val_step

    def _mini_batch(self, validation=False):
        if validation:
            data_loader = self.val_loader
            step = self.val_step
        else:
            data_loader = self.train_loader
            step = self.train_step

        if data_loader is None:
            return None

        n_batches = len(data_loader)
        mini_batch_losses = []
        for i, (x_batch, y_batch) in enumerate(data_loader):
            x_batch = x_batch.to(self.device)
            y_batch = y_batch.to(self.device)

            mini_batch_loss = step(x_batch, y_batch)
            mini_batch_losses.append(mini_batch_loss)

            if not validation:
                self._mini_batch_schedulers(i / n_batches)

        loss = np.mean(mini_batch_losses)
        return loss

    def set_seed(self, seed=42):
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
        torch.manual_seed(seed)
        np.random.seed(seed)
        random.seed(seed)
        try:
            self.train_loader.sampler.generator.manual_seed(seed)
        except AttributeError:
            pass

    def train(self, n_epochs, seed=42):
        self.set_seed(seed)

        for epoch in range(n_epochs):
            self.total_epochs += 1

            loss = self._mini_batch(validation=False)
            self.losses.append(loss)

            with torch.no_grad():
                val_loss = self._mini_batch(validation=True)
                self.val_losses.append(val_loss)

            self._epoch_schedulers(val_loss)

    def predict(self, x):
        self.model.eval()
        x_tensor = torch.as_tensor(x).float()
        y_hat_tensor = self.model(x_tensor.to(self.device))
        self.model.train()
        return y_hat_tensor.detach().cpu().numpy()

    def count_parameters(self):
        return sum(p.numel() for p in self.model.parameters() if p.requires_grad)

    def attach_hooks(self, layers_to_hook, hook_fn=None):
        self.visualization = {}
        modules = list(self.model.named_modules())
        layer_names = {layer: name for name, layer in modules[1:]}

        if hook_fn is None:
            def hook_fn(layer, inputs, outputs):
                name = layer_names[layer]
                values = outputs.detach().cpu().numpy()
                if self.visualization[name] is None:
                    self.visualization[name] = values
                else:
                    self.visualization[name] = np.concatenate([self.visualization[name], values])

        for name, layer in modules:
            if name in layers_to_hook:
                self.visualization[name] = None
                self.handles[name] = layer.register_forward_hook(hook_fn)

    def remove_hooks(self):
        for handle in self.handles.values():
            handle.remove()
        self.handles = {}

    def correct(self, x, y, threshold=.5):
        self.model.eval()
        yhat = self.model(x.to(self.device))
        y = y.to(self.device)
        self.model.train()

        n_samples, n_dims = yhat.shape
        if n_dims > 1:
            _, predicted = torch.max(yhat, 1)
        else:
            n_dims += 1
            if isinstance(self.model, nn.Sequential) and \
               isinstance(self.model[-1], nn.Sigmoid):
                predicted = (yhat > threshold).long()
            else:
                predicted = (torch.sigmoid(yhat) > threshold).long()

        result = []
        for c in range(n_dims):
            n_class = (y == c).sum().item()
            n_correct = (predicted[y == c] == c).sum().item()
            result.append((n_correct, n_class))
        return torch.tensor(result)

    @staticmethod
    def loader_apply(loader, func, reduce='sum'):
        results = [func(x, y) for i, (x, y) in enumerate(loader)]
        results = torch.stack(results, axis=0)

        if reduce == 'sum':
            results = results.sum(axis=0)
        elif reduce == 'mean':
            results = results.float().mean(axis=0)

        return results

    @staticmethod
    def statistics_per_channel(images, labels):
        n_samples, n_channels, n_height, n_weight = images.size()
        flatten_per_channel = images.reshape(n_samples, n_channels, -1)
        means = flatten_per_channel.mean(axis=2)
        stds = flatten_per_channel.std(axis=2)
        sum_means = means.sum(axis=0)
        sum_stds = stds.sum(axis=0)
        n_samples = torch.tensor([n_samples]*n_channels).float()
        return torch.stack([n_samples, sum_means, sum_stds], axis=0)

    @staticmethod
    def make_normalizer(loader):
        total_samples, total_means, total_stds = StepByStep.loader_apply(loader, StepByStep.statistics_per_channel)
        norm_mean = total_means / total_samples
        norm_std = total_stds / total_samples
        return norm_mean, norm_std

    def lr_range_test(self, data_loader, end_lr, num_iter=100, step_mode='exp', alpha=0.05, ax=None):
        previous_states = {'model': deepcopy(self.model.state_dict()),
                           'optimizer': deepcopy(self.optimizer.state_dict())}
        start_lr = self.optimizer.state_dict()['param_groups'][0]['lr']

        lr_fn = make_lr_fn(start_lr, end_lr, num_iter)
        scheduler = LambdaLR(self.optimizer, lr_lambda=lr_fn)

        tracking = {'loss': [], 'lr': []}
        iteration = 0

        while (iteration < num_iter):
            for x_batch, y_batch in data_loader:
                x_batch = x_batch.to(self.device)
                y_batch = y_batch.to(self.device)
                yhat = self.model(x_batch)
                loss = self.loss_fn(yhat, y_batch)
                loss.backward()

                tracking['lr'].append(scheduler.get_last_lr()[0])
                if iteration == 0:
                    tracking['loss'].append(loss.item())
                else:
                    prev_loss = tracking['loss'][-1]
                    smoothed_loss = alpha * loss.item() + (1-alpha) * prev_loss
                    tracking['loss'].append(smoothed_loss)

                iteration += 1
                if iteration == num_iter:
                    break

                self.optimizer.step()
                scheduler.step()
                self.optimizer.zero_grad()

        self.optimizer.load_state_dict(previous_states['optimizer'])
        self.model.load_state_dict(previous_states['model'])
        return tracking

    def set_optimizer(self, optimizer):
        self.optimizer = optimizer

    def capture_gradients(self, layers_to_hook):
        if not isinstance(layers_to_hook, list):
            layers_to_hook = [layers_to_hook]

        modules = list(self.model.named_modules())
        self._gradients = {}

        def make_log_fn(name, parm_id):
            def log_fn(grad):
                self._gradients[name][parm_id].append(grad.tolist())
                return
            return log_fn

        for name, layer in self.model.named_modules():
            if name in layers_to_hook:
                self._gradients.update({name: {}})
                for parm_id, p in layer.named_parameters():
                    if p.requires_grad:
                        self._gradients[name].update({parm_id: []})
                        log_fn = make_log_fn(name, parm_id)
                        self.handles[f'{name}.{parm_id}.grad'] = p.register_hook(log_fn)
        return

    def capture_parameters(self, layers_to_hook):
        if not isinstance(layers_to_hook, list):
            layers_to_hook = [layers_to_hook]

        modules = list(self.model.named_modules())
        layer_names = {layer: name for name, layer in modules}

        self._parameters = {}

        for name, layer in modules:
            if name in layers_to_hook:
                self._parameters.update({name: {}})
                for parm_id, p in layer.named_parameters():
                    self._parameters[name].update({parm_id: []})

        def fw_hook_fn(layer, inputs, outputs):
            name = layer_names[layer]
            for parm_id, parameter in layer.named_parameters():
                self._parameters[name][parm_id].append(parameter.tolist())

        self.attach_hooks(layers_to_hook, fw_hook_fn)
        return

    def set_lr_scheduler(self, scheduler):
        if scheduler.optimizer == self.optimizer:
            self.scheduler = scheduler
            if (isinstance(scheduler, optim.lr_scheduler.CyclicLR) or
                isinstance(scheduler, optim.lr_scheduler.OneCycleLR) or
                isinstance(scheduler, optim.lr_scheduler.CosineAnnealingWarmRestarts)):
                self.is_batch_lr_scheduler = True
            else:
                self.is_batch_lr_scheduler = False

    def _epoch_schedulers(self, val_loss):
        if self.scheduler:
            if not self.is_batch_lr_scheduler:
                if isinstance(self.scheduler, optim.lr_scheduler.ReduceLROnPlateau):
                    self.scheduler.step(val_loss)
                else:
                    self.scheduler.step()

                current_lr = list(map(lambda d: d['lr'], self.scheduler.optimizer.state_dict()['param_groups']))
                self.learning_rates.append(current_lr)

    def _mini_batch_schedulers(self, frac_epoch):
        if self.scheduler:
            if self.is_batch_lr_scheduler:
                if isinstance(self.scheduler, optim.lr_scheduler.CosineAnnealingWarmRestarts):
                    self.scheduler.step(self.total_epochs + frac_epoch)
                else:
                    self.scheduler.step()

                current_lr = list(map(lambda d: d['lr'], self.scheduler.optimizer.state_dict()['param_groups']))
                self.learning_rates.append(current_lr)

    def set_clip_grad_value(self, clip_value):
        self.clipping = lambda: nn.utils.clip_grad_value_(self.model.parameters(), clip_value=clip_value)

    def set_clip_grad_norm(self, max_norm, norm_type=2):
        self.clipping = lambda: nn.utils.clip_grad_norm_(self.model.parameters(), max_norm=max_norm, norm_type=norm_type)

    def set_clip_backprop(self, clip_value):
        if self.clipping is None:
            self.clipping = []
        for p in self.model.parameters():
            if p.requires_grad:
                func = lambda grad: torch.clamp(grad, -clip_value, clip_value)
                handle = p.register_hook(func)
                self.clipping.append(handle)

    def remove_clip(self):
        if isinstance(self.clipping, list):
            for handle in self.clipping:
                handle.remove()
        self.clipping = None


# ---------------------------------------------------------------- chapter 2-3: regression, binary classification
np.random.seed(42)
x = np.random.rand(100, 1)
y = 1 + 2 * x + .1 * np.random.randn(100, 1)
x_tensor = torch.as_tensor(x).float()
y_tensor = torch.as_tensor(y).float()
dataset = TensorDataset(x_tensor, y_tensor)
torch.manual_seed(13)
train_data, val_data = random_split(dataset, [80, 20])
train_loader = DataLoader(dataset=train_data, batch_size=16, shuffle=True)
val_loader = DataLoader(dataset=val_data, batch_size=16)

torch.manual_seed(42)
model = nn.Sequential(nn.Linear(1, 1))
optimizer = optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.MSELoss(reduction='mean')

sbs = StepByStep(model, loss_fn, optimizer)
sbs.set_loaders(train_loader, val_loader)
sbs.train(n_epochs=20)
print(model.state_dict())
print(sbs.total_epochs, round(sbs.losses[-1], 5), round(sbs.val_losses[-1], 5))
new_data = np.array([.5, .3, .7]).reshape(-1, 1)
predictions = sbs.predict(new_data)
print(predictions)
assert predictions.dtype == np.float32 and abs(model[0].weight.item() - 2) < 0.3

X = np.random.randn(120, 2)
yb = (X[:, 0] + X[:, 1] > 0).astype(np.float32).reshape(-1, 1)
Xt, yt = torch.as_tensor(X).float(), torch.as_tensor(yb).float()
train_loader = DataLoader(TensorDataset(Xt[:96], yt[:96]), batch_size=16, shuffle=True,
                          generator=torch.Generator())
val_loader = DataLoader(TensorDataset(Xt[96:], yt[96:]), batch_size=16)
torch.manual_seed(42)
model = nn.Sequential()
model.add_module('linear', nn.Linear(2, 1))
optimizer = optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.BCEWithLogitsLoss()
sbs = StepByStep(model, loss_fn, optimizer)
sbs.set_loaders(train_loader, val_loader)
sbs.train(30)
print(sbs.count_parameters(), round(sbs.losses[-1], 5))
res = StepByStep.loader_apply(val_loader, sbs.correct)
print(res)
assert res.dtype == torch.int64 and res.shape == (2, 2) and res[:, 1].sum() == 24

# ---------------------------------------------------------------- chapter 4-5: images, hooks
torch.manual_seed(17)
imgs = torch.rand(64, 3, 5, 5)
labels = (imgs[:, 0].mean((1, 2)) > imgs[:, 2].mean((1, 2))).long()
img_loader = DataLoader(TensorDataset(imgs, labels), batch_size=16)
normalizer = StepByStep.make_normalizer(img_loader)
print([t.round(decimals=4) for t in normalizer])
assert torch.allclose(normalizer[0], imgs.mean((2, 3)).mean(0), atol=1e-5)

torch.manual_seed(13)
model_cnn = nn.Sequential()
model_cnn.add_module('conv1', nn.Conv2d(in_channels=3, out_channels=2, kernel_size=3))
model_cnn.add_module('relu1', nn.ReLU())
model_cnn.add_module('flatten', nn.Flatten())
model_cnn.add_module('fc1', nn.Linear(2 * 3 * 3, 8))
model_cnn.add_module('relu2', nn.ReLU())
model_cnn.add_module('fc2', nn.Linear(8, 2))
optimizer_cnn = optim.SGD(model_cnn.parameters(), lr=0.1)
sbs_cnn = StepByStep(model_cnn, nn.CrossEntropyLoss(reduction='mean'), optimizer_cnn)
sbs_cnn.set_loaders(DataLoader(TensorDataset(imgs[:48], labels[:48]), batch_size=16, shuffle=True),
                    DataLoader(TensorDataset(imgs[48:], labels[48:]), batch_size=16))
sbs_cnn.train(10)
sbs_cnn.attach_hooks(layers_to_hook=['conv1', 'relu1', 'fc1', 'fc2'])
logits = sbs_cnn.predict(imgs[48:].numpy())
predicted = np.argmax(logits, 1)
sbs_cnn.remove_hooks()
print({k: v.shape for k, v in sbs_cnn.visualization.items()}, predicted[:8])
assert sbs_cnn.visualization['conv1'].shape == (16, 2, 3, 3) and sbs_cnn.handles == {}
print(StepByStep.loader_apply(sbs_cnn.val_loader, sbs_cnn.correct))

# ---------------------------------------------------------------- chapter 6: lr range test, schedulers, clipping
torch.manual_seed(42)
model = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer = optim.Adam(model.parameters(), lr=0.01)
sbs = StepByStep(model, nn.BCEWithLogitsLoss(), optimizer)
before = deepcopy(model.state_dict())
tracking = sbs.lr_range_test(train_loader, end_lr=1, num_iter=30)
print([round(float(v), 6) for v in tracking['lr'][::10]], round(tracking['loss'][-1], 4))
assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
assert optimizer.state_dict()['param_groups'][0]['lr'] == 0.01

sbs.set_loaders(train_loader, val_loader)
for make in [lambda o: StepLR(o, step_size=4, gamma=0.5),
             lambda o: ReduceLROnPlateau(o, patience=0, factor=0.5),
             lambda o: CyclicLR(o, base_lr=1e-3, max_lr=1e-2, step_size_up=3, mode='triangular2'),
             lambda o: OneCycleLR(o, max_lr=0.05, total_steps=6 * len(train_loader)),
             lambda o: CosineAnnealingWarmRestarts(o, T_0=2, T_mult=2)]:
    sbs.learning_rates = []
    scheduler = make(optimizer)
    sbs.set_lr_scheduler(scheduler)
    sbs.train(6)
    print(type(scheduler).__name__, sbs.is_batch_lr_scheduler,
          [round(lr[0], 6) for lr in sbs.learning_rates[:8]])
    sbs.scheduler = None
    for g in optimizer.param_groups:
        g['lr'] = 0.01

sbs.set_clip_grad_value(1e-3)
sbs.train(2)
sbs.set_clip_grad_norm(max_norm=1e-3, norm_type=2)
sbs.train(2)
sbs.remove_clip()
sbs.set_clip_backprop(1e-3)
sbs.capture_gradients('0')
sbs.capture_parameters(['2'])
sbs.train(1)
sbs.remove_hooks()
sbs.remove_clip()
grads = np.array(sbs._gradients['0']['weight'])
print(grads.shape, np.abs(grads).max() <= 1e-3 + 1e-12)
assert grads.shape == (len(train_loader), 8, 2) and np.abs(grads).max() <= 1e-3 + 1e-9
print(len(sbs._parameters['2']['weight']), len(sbs.losses))
