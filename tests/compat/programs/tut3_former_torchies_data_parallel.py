"""PyTorch tutorial "PyTorch for Former Torch Users", part "Multi-GPU examples"
(beginner_source/former_torchies/parallelism_tutorial.py), on a machine without GPUs (its last
cell, a model split between the cpu and cuda:0, needs a GPU and is left out): DataParallelModel
wrapping block2 in nn.DataParallel (on the cpu it calls the module as is; its parameters appear
under 'block2.module.'), and the tutorial's data_parallel helper, which returns module(input) when
no device_ids are given."""
import torch
import torch.nn as nn


class DataParallelModel(nn.Module):

    def __init__(self):
        super().__init__()
        self.block1 = nn.Linear(10, 20)

        # wrap block2 in DataParallel
        self.block2 = nn.Linear(20, 20)
        self.block2 = nn.DataParallel(self.block2)

        self.block3 = nn.Linear(20, 20)

    def forward(self, x):
        x = self.block1(x)
        x = self.block2(x)
        x = self.block3(x)
        return x


def data_parallel(module, input, device_ids, output_device=None):
    if not device_ids:
        return module(input)

    if output_device is None:
        output_device = device_ids[0]

    replicas = nn.parallel.replicate(module, device_ids)
    inputs = nn.parallel.scatter(input, device_ids)
    replicas = replicas[:len(inputs)]
    outputs = nn.parallel.parallel_apply(replicas, inputs)
    return nn.parallel.gather(outputs, output_device)


torch.manual_seed(0)
model = DataParallelModel()
print(model)
keys = list(model.state_dict())
print(keys)
assert keys == ["block1.weight", "block1.bias", "block2.module.weight", "block2.module.bias",
                "block3.weight", "block3.bias"]
assert isinstance(model.block2.module, nn.Linear)
assert len(list(model.parameters())) == 6

x = torch.randn(8, 10)
out = model(x)
inner = model.block2.module
expected = model.block3(inner(model.block1(x)))
assert out.shape == (8, 20) and torch.allclose(out, expected)
out.sum().backward()
assert inner.weight.grad is not None and inner.weight.grad.shape == (20, 20)

assert torch.equal(data_parallel(inner, x[:, :0].new_ones(3, 20), []),
                   inner(torch.ones(3, 20)))
assert torch.equal(data_parallel(model, x, None), model(x))

# a DataParallel state_dict loads into the wrapped module after stripping 'module.'
plain = nn.Linear(20, 20)
sd = {k.replace("module.", ""): v for k, v in model.block2.state_dict().items()}
plain.load_state_dict(sd)
assert torch.equal(plain.weight, inner.weight)
