"""Stochastic Weight Averaging and EMA as the torch.optim docs ("Weight Averaging (SWA and EMA)")
and the SWA blog recipe write them: swa_model = AveragedModel(model), SWALR(optimizer,
swa_lr=0.05, anneal_epochs=...), swa_model.update_parameters(model) after swa_start,
torch.optim.swa_utils.update_bn(loader, swa_model) for a model with BatchNorm, an EMA model via
multi_avg_fn=get_ema_multi_avg_fn(0.999) with use_buffers=True, and a custom avg_fn; plus
optimizer.register_step_pre_hook / register_step_post_hook counting steps."""
import torch
import torch.nn as nn
from torch.optim.swa_utils import AveragedModel, SWALR, get_ema_multi_avg_fn, update_bn
from torch.optim.lr_scheduler import CosineAnnealingLR
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
X = torch.randn(128, 6)
y = (X[:, :1] * 2 - X[:, 1:2]).tanh() + 0.05 * torch.randn(128, 1)
loader = DataLoader(TensorDataset(X, y), batch_size=16, shuffle=True)

model = nn.Sequential(nn.Linear(6, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 1))
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
swa_model = AveragedModel(model)
scheduler = CosineAnnealingLR(optimizer, T_max=100)
swa_start = 5
swa_scheduler = SWALR(optimizer, swa_lr=0.05, anneal_epochs=3, anneal_strategy="cos")
ema_model = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.999), use_buffers=True)
steps = {"pre": 0, "post": 0}
optimizer.register_step_pre_hook(lambda opt, args, kwargs: steps.__setitem__("pre", steps["pre"] + 1))
handle = optimizer.register_step_post_hook(
    lambda opt, args, kwargs: steps.__setitem__("post", steps["post"] + 1))

lrs = []
for epoch in range(10):
    for input, target in loader:
        optimizer.zero_grad()
        loss_fn(model(input), target).backward()
        optimizer.step()
        ema_model.update_parameters(model)
    if epoch > swa_start:
        swa_model.update_parameters(model)
        swa_scheduler.step()
    else:
        scheduler.step()
    lrs.append(optimizer.param_groups[0]["lr"])
print([round(lr, 4) for lr in lrs])
assert steps == {"pre": 80, "post": 80}
handle.remove()
assert abs(lrs[-1] - 0.05) < 1e-12          # annealed to swa_lr, then held
assert int(swa_model.n_averaged) == 4 and int(ema_model.n_averaged) == 80

# Update bn statistics for the swa_model at the end
update_bn(loader, swa_model)
bn = swa_model.module[1]
assert bn.momentum == 0.1 and int(bn.num_batches_tracked) == 8
with torch.no_grad():
    h = swa_model.module[0](X)
assert torch.allclose(bn.running_mean, h.mean(0), atol=1e-5)
swa_model.eval()
with torch.no_grad():
    swa_loss = loss_fn(swa_model(X), y).item()
print("SWA loss", swa_loss)
assert swa_loss < loss_fn(torch.zeros_like(y), y).item()


# an AveragedModel is the average of the models it saw
def make(v):
    m = nn.Linear(2, 1)
    with torch.no_grad():
        m.weight.fill_(v)
        m.bias.fill_(v)
    return m


avg = AveragedModel(make(0.0))
for v in (1.0, 2.0, 6.0):
    avg.update_parameters(make(v))
assert torch.allclose(avg.module.weight, torch.full((1, 2), 3.0))
ema = AveragedModel(make(0.0), avg_fn=lambda a, m, n: 0.5 * a + 0.5 * m)
for v in (4.0, 8.0):
    ema.update_parameters(make(v))
assert torch.allclose(ema.module.bias, torch.tensor([6.0]))
assert sorted(dict(avg.named_buffers())) == ["n_averaged"]
