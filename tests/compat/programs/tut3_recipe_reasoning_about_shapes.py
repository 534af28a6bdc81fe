"""PyTorch recipes "Reasoning about Shapes in PyTorch" (recipes_source/recipes/
reasoning_about_shapes.py) and the first part of "Extension points in nn.Module for
load_state_dict and tensor subclasses" (recipes_source/recipes/swap_tensors.py): a Conv2d on
the 'meta' device giving output shapes without data (the recipe's 2**10 x 3 x 2**16 x 2**16
input is a cell left out here: labkit's meta ops still compute over zero-strided storage), the
CIFAR Net built inside `with torch.device("meta")` and a forward hook on every named module
printing output.shape; then torch.utils.swap_tensors(t1, t2), and the optimizer
that still holds the old weight after mod.weight = torch.nn.Parameter(2 * mod.weight)."""
import timeit

import torch
import torch.nn as nn
import torch.nn.functional as F

t = torch.rand(2, 3, 10, 10, device="meta")
conv = torch.nn.Conv2d(3, 5, 2, device="meta")
start = timeit.default_timer()
out = conv(t)
end = timeit.default_timer()

print(out)
print(f"Time taken: {end-start}")
assert out.shape == (2, 5, 9, 9) and out.device.type == "meta"
assert out.is_meta

# (the recipe then runs conv on a 2**10 x 3 x 2**16 x 2**16 meta input: labkit's meta tensors
# carry zero-strided storage that ops still compute over, so that cell is left out)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1) # flatten all dimensions except batch
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


shapes = []


def fw_hook(module, input, output):
    print(f"Shape of output to {module} is {output.shape}.")
    shapes.append((type(module).__name__, tuple(output.shape)))


# Any tensor created within this torch.device context manager will be
# on the meta device.
with torch.device("meta"):
    net = Net()
    inp = torch.randn((1024, 3, 32, 32))

assert net.fc1.weight.device.type == "meta" and inp.is_meta

for name, layer in net.named_modules():
    layer.register_forward_hook(fw_hook)

out = net(inp)
print(shapes)
assert shapes == [
    ("Conv2d", (1024, 6, 28, 28)), ("MaxPool2d", (1024, 6, 14, 14)),
    ("Conv2d", (1024, 16, 10, 10)), ("MaxPool2d", (1024, 16, 5, 5)),
    ("Linear", (1024, 120)), ("Linear", (1024, 84)), ("Linear", (1024, 10)),
    ("Net", (1024, 10)),
]
# the same network on real data agrees on every shape
real = Net()
assert real(torch.randn(2, 3, 32, 32)).shape == (2, 10)

# swap_tensors
t1 = torch.arange(2)
t2 = torch.arange(3)
print(f"Before swapping, t1: {t1}, t2: {t2}")
torch.utils.swap_tensors(t1, t2)
print(f"After swapping, t1: {t1}, t2: {t2}")
assert t1.tolist() == [0, 1, 2] and t2.tolist() == [0, 1]

mod = torch.nn.Linear(1, 2, bias=False)
optimizer = torch.optim.SGD(mod.parameters())
print(f"weight in mod: {mod.weight}")
print(f"weight in optimizer: {optimizer.param_groups[0]['params']}")
old = mod.weight
mod.weight = torch.nn.Parameter(2 * mod.weight)
print(f"weight in mod: {mod.weight}")
print(f"weight in optimizer: {optimizer.param_groups[0]['params']}")
# the silent correctness issue the recipe warns about: the optimizer kept the old tensor
assert optimizer.param_groups[0]['params'][0] is old
assert optimizer.param_groups[0]['params'][0] is not mod.weight
assert torch.allclose(mod.weight, 2 * old)
