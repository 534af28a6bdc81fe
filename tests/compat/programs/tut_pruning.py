"""PyTorch tutorial "Pruning Tutorial" (intermediate_source/pruning_tutorial.py), with LeNet on
random inputs: prune.random_unstructured(module, name="weight", amount=0.3) (weight_orig among
named_parameters, weight_mask among named_buffers, module._forward_pre_hooks),
prune.l1_unstructured(module, name="bias", amount=3), iterative prune.ln_structured(..., n=2,
dim=0) giving a PruningContainer history, model.state_dict().keys(), prune.remove making it
permanent, pruning several parameters in a loop, prune.global_unstructured with
prune.L1Unstructured and amount=0.2, and a custom FooBarPruningMethod(prune.BasePruningMethod)."""
import torch
from torch import nn
import torch.nn.utils.prune as prune
import torch.nn.functional as F

device = torch.device("cpu")


class LeNet(nn.Module):
    def __init__(self):
        super(LeNet, self).__init__()
        # 1 input image channel, 6 output channels, 5x5 square conv kernel
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)  # 5x5 image dimension
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, int(x.nelement() / x.shape[0]))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


torch.manual_seed(0)
model = LeNet().to(device=device)
module = model.conv1
print(list(module.named_parameters()))
print(list(module.named_buffers()))

prune.random_unstructured(module, name="weight", amount=0.3)
print(list(module.named_parameters()))
assert [n for n, _ in module.named_parameters()] == ["bias", "weight_orig"]
print(list(module.named_buffers()))
assert [n for n, _ in module.named_buffers()] == ["weight_mask"]
print(module.weight)
assert not isinstance(module.weight, nn.Parameter)
assert int((module.weight_mask == 0).sum()) == round(0.3 * 150)
assert torch.equal(module.weight, module.weight_orig * module.weight_mask)
print(module._forward_pre_hooks)
assert len(module._forward_pre_hooks) == 1

prune.l1_unstructured(module, name="bias", amount=3)
print(list(module.named_parameters()))
print(list(module.named_buffers()))
print(module.bias)
smallest = module.bias_orig.abs().argsort()[:3]
assert torch.equal(module.bias_mask[smallest], torch.zeros(3))
assert int(module.bias_mask.sum()) == 3
print(module._forward_pre_hooks)

# iterative pruning
prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
print(module.weight)
for hook in module._forward_pre_hooks.values():
    if hook._tensor_name == "weight":  # select out the correct hook
        break
print(list(hook))  # pruning history in the container
assert isinstance(hook, prune.PruningContainer) and len(hook) == 2
assert [type(m).__name__ for m in hook] == ["RandomUnstructured", "LnStructured"]
channel_zero = (module.weight_mask.sum(dim=(1, 2, 3)) == 0)
assert int(channel_zero.sum()) == 3
print(model.state_dict().keys())
assert "conv1.weight_orig" in model.state_dict() and "conv1.bias_mask" in model.state_dict()

# the hook recomputes the weight before each forward
x = torch.randn(2, 1, 32, 32)
out = model(x)
assert out.shape == (2, 10)
out.sum().backward()
assert torch.equal(module.weight_orig.grad * (1 - module.weight_mask),
                   torch.zeros_like(module.weight_orig))

# remove the re-parametrization
prune.remove(module, "weight")
print(list(module.named_parameters()))
print(list(module.named_buffers()))
assert isinstance(module.weight, nn.Parameter)
assert [n for n, _ in module.named_buffers()] == ["bias_mask"]
assert int((module.weight == 0).sum()) >= 75

# pruning multiple parameters in a model
new_model = LeNet()
for name, module in new_model.named_modules():
    # prune 20% of connections in all 2D-conv layers
    if isinstance(module, torch.nn.Conv2d):
        prune.l1_unstructured(module, name="weight", amount=0.2)
    # prune 40% of connections in all linear layers
    elif isinstance(module, torch.nn.Linear):
        prune.l1_unstructured(module, name="weight", amount=0.4)
print(dict(new_model.named_buffers()).keys())  # to verify that all masks exist
assert len(dict(new_model.named_buffers())) == 5
assert prune.is_pruned(new_model)

# global pruning
model = LeNet()
parameters_to_prune = (
    (model.conv1, "weight"),
    (model.conv2, "weight"),
    (model.fc1, "weight"),
    (model.fc2, "weight"),
    (model.fc3, "weight"),
)
prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured, amount=0.2)
total_zero, total = 0, 0
for name, m in [("conv1", model.conv1), ("conv2", model.conv2), ("fc1", model.fc1),
                ("fc2", model.fc2), ("fc3", model.fc3)]:
    zeros = float(torch.sum(m.weight == 0))
    print("Sparsity in {}.weight: {:.2f}%".format(name, 100. * zeros / float(m.weight.nelement())))
    total_zero += zeros
    total += m.weight.nelement()
print("Global sparsity: {:.2f}%".format(100. * total_zero / total))
assert abs(total_zero / total - 0.2) < 1e-3
kept = torch.cat([m.weight_orig.abs().flatten()[m.weight_mask.flatten() == 1]
                  for m, _ in parameters_to_prune])
pruned = torch.cat([m.weight_orig.abs().flatten()[m.weight_mask.flatten() == 0]
                    for m, _ in parameters_to_prune])
assert pruned.max() <= kept.min()


# extending torch.nn.utils.prune with custom pruning functions
class FooBarPruningMethod(prune.BasePruningMethod):
    """Prune every other entry in a tensor"""
    PRUNING_TYPE = 'unstructured'

    def compute_mask(self, t, default_mask):
        mask = default_mask.clone()
        mask.view(-1)[::2] = 0
        return mask


def foobar_unstructured(module, name):
    FooBarPruningMethod.apply(module, name)
    return module


model = LeNet()
foobar_unstructured(model.fc3, name='bias')
print(model.fc3.bias_mask)
assert torch.equal(model.fc3.bias_mask, torch.tensor([0., 1.] * 5))

try:
    prune.l1_unstructured(model.fc2, name="bias", amount=100)
    raise AssertionError("too many parameters to prune")
except ValueError as e:
    print(e)
