"""PyTorch recipe "Automatic Mixed Precision" (recipes_source/recipes/amp_recipe.py) on the CPU:
make_model with a stack of Linear/ReLU layers, torch.autocast(device_type="cpu",
dtype=torch.bfloat16) around forward and loss (outputs in bfloat16, the loss in float32 for
mse_loss), backward outside autocast, torch.amp.GradScaler(enabled=False) passing through
scale/step/update, and the checkpoint dict with "scaler": scaler.state_dict()."""
import torch

torch.manual_seed(0)
batch_size, in_size, out_size, num_layers = 64, 32, 32, 3
epochs = 3
device = "cpu"


def make_model(in_size, out_size, num_layers):
    layers = []
    for _ in range(num_layers - 1):
        layers.append(torch.nn.Linear(in_size, in_size))
        layers.append(torch.nn.ReLU())
    layers.append(torch.nn.Linear(in_size, out_size))
    return torch.nn.Sequential(*tuple(layers)).to(device=device)


data = [torch.randn(batch_size, in_size, device=device) for _ in range(4)]
targets = [torch.randn(batch_size, out_size, device=device) for _ in range(4)]
loss_fn = torch.nn.MSELoss().to(device)

net = make_model(in_size, out_size, num_layers)
opt = torch.optim.SGD(net.parameters(), lr=0.001)
use_amp = True
scaler = torch.amp.GradScaler("cpu", enabled=False)

first = None
for epoch in range(epochs):
    for input, target in zip(data, targets):
        with torch.autocast(device_type=device, dtype=torch.bfloat16, enabled=use_amp):
            output = net(input)
            assert output.dtype is torch.bfloat16
            loss = loss_fn(output, target)
            assert loss.dtype is torch.float32, loss.dtype
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.zero_grad(set_to_none=True)
        first = loss.item() if first is None else first
assert loss.item() < first, (first, loss.item())
assert all(p.dtype is torch.float32 for p in net.parameters())

# outside autocast everything is float32 again
assert net(data[0]).dtype is torch.float32
with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
    a, b = torch.randn(4, 4), torch.randn(4, 4)
    assert torch.mm(a, b).dtype is torch.bfloat16
    with torch.autocast(device_type="cpu", enabled=False):
        assert torch.mm(a, b).dtype is torch.float32
    assert (a + b).dtype is torch.float32     # elementwise ops are not autocast

checkpoint = {"model": net.state_dict(), "optimizer": opt.state_dict(),
              "scaler": scaler.state_dict()}
net.load_state_dict(checkpoint["model"])
opt.load_state_dict(checkpoint["optimizer"])
scaler.load_state_dict(checkpoint["scaler"])
