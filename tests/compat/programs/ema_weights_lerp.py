"""An exponential moving average of model weights (diffusion and self-supervised training code):
ema_p.lerp_(p, 1 - decay) under torch.no_grad(), checked against the formula; torch.lerp too."""
import copy
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 2)
ema = copy.deepcopy(model)
for p in ema.parameters():
    p.requires_grad_(False)
decay = 0.9
opt = torch.optim.SGD(model.parameters(), lr=0.1)
expected = [p.detach().clone() for p in ema.parameters()]
for step in range(5):
    opt.zero_grad()
    model(torch.randn(8, 4)).pow(2).mean().backward()
    opt.step()
    with torch.no_grad():
        for ema_p, p in zip(ema.parameters(), model.parameters()):
            ema_p.lerp_(p, 1 - decay)
    expected = [decay * e + (1 - decay) * p.detach() for e, p in zip(expected, model.parameters())]
for e, p in zip(expected, ema.parameters()):
    assert torch.allclose(e, p, atol=1e-6)
a, b = torch.zeros(3), torch.tensor([10., 20., 30.])
assert torch.lerp(a, b, 0.25).tolist() == [2.5, 5.0, 7.5]
assert torch.lerp(a, b, torch.tensor([0., 0.5, 1.])).tolist() == [0., 10., 30.]
