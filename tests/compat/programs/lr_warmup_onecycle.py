"""Warm-up schedules: LinearLR, SequentialLR(LinearLR then CosineAnnealingLR), OneCycleLR stepped
per batch; the learning rate rises, then falls."""
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR, LinearLR, OneCycleLR, SequentialLR

model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=1.0)
warmup = LinearLR(opt, start_factor=0.25, total_iters=3)
cosine = CosineAnnealingLR(opt, T_max=5)
sched = SequentialLR(opt, schedulers=[warmup, cosine], milestones=[3])
seen = []
for step in range(8):
    opt.step()
    seen.append(opt.param_groups[0]['lr'])
    sched.step()
assert seen[0] == 0.25 and seen[1] < seen[2] < seen[3] and seen[3] > seen[-1]

opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
sched = OneCycleLR(opt, max_lr=1.0, steps_per_epoch=10, epochs=2)
lrs = []
for epoch in range(2):
    for batch in range(10):
        opt.step()
        lrs.append(sched.get_last_lr()[0])
        sched.step()
peak = lrs.index(max(lrs))
assert 0 < peak < 19 and lrs[0] < 0.1 and lrs[-1] < lrs[0]
assert abs(max(lrs) - 1.0) < 0.05
