"""Device-agnostic code as current tutorials write it: device = "cuda" if available (via
torch.cuda.is_available() and torch.accelerator), model.to(device), tensors created on device."""
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
device2 = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
print(f"Using {device} device")
assert device.type == device2
model = nn.Linear(4, 2).to(device)
x = torch.randn(5, 4, device=device)
y = torch.zeros(5, dtype=torch.long).to(device)
loss = nn.functional.cross_entropy(model(x), y)
loss.backward()
assert next(model.parameters()).device.type == device.type
assert x.device == model.weight.device
assert loss.cpu().item() > 0
assert model.weight.grad.cpu().numpy().shape == (2, 4)
