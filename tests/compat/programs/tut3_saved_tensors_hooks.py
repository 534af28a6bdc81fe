"""PyTorch tutorial "Hooks for autograd saved tensors" (intermediate_source/
autograd_saved_tensors_hooks_tutorial.py), without its first cells that read the per-op debug
attributes y.grad_fn._saved_self / _saved_other / _saved_result (labkit's nodes do not name
their saved tensors that way): pack/unpack hooks
through torch.autograd.graph.saved_tensors_hooks (printing, scaling by 4, a list index, a tuple
with a closure), torch.autograd.graph.save_on_cpu in a Model and in a SaveToCpu wrapper module,
and saving to disk with a SelfDeletingTempFile whose __del__ removes the file (torch.save /
torch.load), applied only to tensors with >= SAVE_ON_DISK_THRESHOLD elements."""
import gc
import os
import tempfile
import uuid

import torch
import torch.nn as nn

torch.manual_seed(0)

packed, unpacked = [], []


def pack_hook(x):
    print("Packing", x)
    packed.append(x)
    return x


def unpack_hook(x):
    print("Unpacking", x)
    unpacked.append(x)
    return x


a = torch.ones(5, requires_grad=True)
b = torch.ones(5, requires_grad=True) * 2

with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = a * b

y.sum().backward()
# a * b saves both operands; backward unpacks both
assert len(packed) == 2 and len(unpacked) == 2
assert torch.equal(a.grad, torch.full((5,), 2.0))

x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(lambda x: x * 4, lambda x: x / 4):
    y = torch.pow(x, 2)
y.sum().backward()
assert(x.grad.equal(2 * x))

# the hooks change what backward sees: unpacking to 3 * x triples the gradient
x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: 3 * x):
    y = x * x
y.sum().backward()
assert torch.allclose(x.grad, 6 * x)

storage = []


def pack(x):
    storage.append(x)
    return len(storage) - 1


def unpack(x):
    return storage[x]


x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = x * x
y.sum().backward()

assert(x.grad.equal(2 * x))
assert len(storage) == 2


def pack(x):
    delta = torch.randn(*x.size())
    return x - delta, lambda x: x + delta


def unpack(packed):
    x, f = packed
    return f(x)


x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = x * x
y.sum().backward()

assert(torch.allclose(x.grad, 2 * x))


def pack_hook(x):
    return (x.device, x.cpu())


def unpack_hook(packed):
    device, tensor = packed
    return tensor.to(device)


x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = x * x
y.sum().backward()

assert torch.allclose(x.grad, (2 * x))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(5))

    def forward(self, x):
        with torch.autograd.graph.save_on_cpu(pin_memory=True):
            # some computation
            return self.w * x


x = torch.randn(5)
model = Model()
loss = model(x).sum()
loss.backward()
assert torch.allclose(model.w.grad, x)


class SaveToCpu(nn.Module):
    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, *args, **kwargs):
        with torch.autograd.graph.save_on_cpu(pin_memory=True):
            return self.module(*args, **kwargs)


model = nn.Sequential(
    nn.Linear(10, 100),
    SaveToCpu(nn.Linear(100, 100)),
    nn.Linear(100, 10),
)
reference = nn.Sequential(model[0], model[1].module, model[2])

x = torch.randn(10)
loss = model(x).sum()
loss.backward()
grads = [p.grad.clone() for p in model.parameters()]
model.zero_grad()
reference(x).sum().backward()
for g, p in zip(grads, reference.parameters()):
    assert torch.allclose(g, p.grad)

tmp_dir_obj = tempfile.TemporaryDirectory()
tmp_dir = tmp_dir_obj.name


class SelfDeletingTempFile():
    def __init__(self):
        self.name = os.path.join(tmp_dir, str(uuid.uuid4()))

    def __del__(self):
        os.remove(self.name)


# Only save on disk tensors that have size >= 1000
SAVE_ON_DISK_THRESHOLD = 1000


def pack_hook(x):
    if x.numel() < SAVE_ON_DISK_THRESHOLD:
        return x
    temp_file = SelfDeletingTempFile()
    torch.save(x, temp_file.name)
    return temp_file


def unpack_hook(tensor_or_sctf):
    if isinstance(tensor_or_sctf, torch.Tensor):
        return tensor_or_sctf
    return torch.load(tensor_or_sctf.name)


class SaveToDisk(nn.Module):
    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, *args, **kwargs):
        with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
            return self.module(*args, **kwargs)


inner = nn.Sequential(nn.Linear(40, 50), nn.Tanh(), nn.Linear(50, 3))
net = SaveToDisk(inner)
x = torch.randn(30, 40)
loss = net(x).pow(2).sum()
# the 30x40 input and the 30x50 activations went to disk: files exist until backward
assert len(os.listdir(tmp_dir)) >= 2
loss.backward()
grads = [p.grad.clone() for p in inner.parameters()]
del loss
gc.collect()
# backward released the saved data, and with it the files
assert os.listdir(tmp_dir) == []
inner.zero_grad()
inner(x).pow(2).sum().backward()
for g, p in zip(grads, inner.parameters()):
    assert torch.allclose(g, p.grad)
tmp_dir_obj.cleanup()
