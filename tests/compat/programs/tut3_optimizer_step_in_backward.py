"""PyTorch tutorial "How to save memory by fusing the optimizer step into the backward pass"
(intermediate_source/optimizer_step_in_backward_tutorial.py), with a small MLP in place of
torchvision's vit_l_16 and no CUDA memory snapshots: the usual train(model, optimizer) with
loss.sum().backward(), optimizer.step(), optimizer.zero_grad(); then an optimizer_dict of one
torch.optim.Adam([p], foreach=False) per parameter, an optimizer_hook calling step() and
zero_grad() registered with p.register_post_accumulate_grad_hook, and train(model) without an
optimizer. Both ways reach the same weights, and the fused one leaves no gradients behind."""
import copy

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(12, 32), nn.GELU(), nn.LayerNorm(32), nn.Linear(32, 4))
fused_model = copy.deepcopy(model)
optimizer = torch.optim.Adam(model.parameters())

FEATURES = 12
images = [torch.rand(2, FEATURES) for _ in range(3)]


def train(model, optimizer, fake_image):
    # call our forward and backward
    loss = model.forward(fake_image)
    loss.sum().backward()

    # optimizer update
    optimizer.step()
    optimizer.zero_grad()


# train 3 steps
for step in range(3):
    train(model, optimizer, images[step])

model = fused_model
# Instead of having just *one* optimizer, we will have a ``dict`` of optimizers
# for every parameter so we could reference them in our hook.
optimizer_dict = {p: torch.optim.Adam([p], foreach=False) for p in model.parameters()}

calls = []


# Define our hook, which will call the optimizer ``step()`` and ``zero_grad()``
def optimizer_hook(parameter) -> None:
    calls.append(parameter)
    optimizer_dict[parameter].step()
    optimizer_dict[parameter].zero_grad()


# Register the hook onto every parameter
handles = []
for p in model.parameters():
    handles.append(p.register_post_accumulate_grad_hook(optimizer_hook))


def train(model, fake_image):
    # call our forward and backward
    loss = model.forward(fake_image)
    loss.sum().backward()

    # optimizer update --> no longer needed!
    # optimizer.step()
    # optimizer.zero_grad()


reference = optimizer.param_groups[0]["params"]
del optimizer

# train 3 steps. note that we no longer pass the optimizer into train()
for step in range(3):
    train(model, images[step])

params = list(model.parameters())
assert len(calls) == 3 * len(params)
assert all(p.grad is None for p in params)  # each gradient was dropped right after its step
for p, q in zip(params, reference):
    assert torch.allclose(p, q, atol=1e-6), (p, q)
# every per-parameter Adam took 3 steps
assert all(int(opt.state[p]["step"]) == 3 for p, opt in optimizer_dict.items())

# once the hooks are removed, backward leaves the gradients in .grad again
for h in handles:
    h.remove()
model(images[0]).sum().backward()
assert all(p.grad is not None for p in params)
assert len(calls) == 3 * len(params)
