"""Learning-rate schedules as the optim docs show them: StepLR, MultiStepLR, ExponentialLR,
CosineAnnealingLR, LambdaLR; scheduler.step() after optimizer.step(), get_last_lr()."""
import math
import torch
from torch.optim import lr_scheduler


def lrs(make, epochs=6):
    model = torch.nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = make(optimizer)
    out = []
    for epoch in range(epochs):
        optimizer.zero_grad()
        model(torch.ones(1, 2)).sum().backward()
        optimizer.step()
        out.append(optimizer.param_groups[0]['lr'])
        scheduler.step()
    assert scheduler.get_last_lr()[0] == optimizer.param_groups[0]['lr']
    return out


def close(a, b):
    return all(math.isclose(x, y, rel_tol=1e-9) for x, y in zip(a, b))


assert close(lrs(lambda o: lr_scheduler.StepLR(o, step_size=2, gamma=0.1)),
             [0.1, 0.1, 0.01, 0.01, 0.001, 0.001])
assert close(lrs(lambda o: lr_scheduler.MultiStepLR(o, milestones=[1, 4], gamma=0.5)),
             [0.1, 0.05, 0.05, 0.05, 0.025, 0.025])
assert close(lrs(lambda o: lr_scheduler.ExponentialLR(o, gamma=0.9)),
             [0.1 * 0.9 ** k for k in range(6)])
assert close(lrs(lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=5)),
             [0.05 * (1 + math.cos(math.pi * k / 5)) for k in range(6)])
assert close(lrs(lambda o: lr_scheduler.LambdaLR(o, lr_lambda=lambda epoch: 0.95 ** epoch)),
             [0.1 * 0.95 ** k for k in range(6)])
