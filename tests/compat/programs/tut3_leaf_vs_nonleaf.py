"""PyTorch tutorial "Understanding requires_grad, retain_grad, Leaf, and Non-leaf Tensors"
(beginner_source/understanding_leaf_vs_nonleaf_tutorial.py): y_pred = F.relu(x @ W + b) with an
F.mse_loss; is_leaf and requires_grad of inputs, parameters and intermediates (printed with
f"{x.is_leaf=}"), backward filling W.grad / b.grad but not x.grad, y.grad or z.grad, then
z.retain_grad(), y_pred.retain_grad(), loss.retain_grad() and their .grad / .retains_grad after
a second forward; the summary table's cases: retain_grad() on a leaf is a no-op, on a tensor
without requires_grad an error; backward on a loss that tracks nothing fails."""
import warnings

import torch
import torch.nn.functional as F

# tensor setup
x = torch.ones(1, 3)                      # input with shape: (1, 3)
W = torch.ones(3, 2, requires_grad=True)  # weights with shape: (3, 2)
b = torch.ones(1, 2, requires_grad=True)  # bias with shape: (1, 2)
y = torch.ones(1, 2)                      # output with shape: (1, 2)

# forward pass
z = (x @ W) + b                           # pre-activation with shape: (1, 2)
y_pred = F.relu(z)                        # activation with shape: (1, 2)
loss = F.mse_loss(y_pred, y)              # scalar loss

# prints True because new tensors are leafs by convention
print(f"{x.is_leaf=}")

# prints False because tensor is the result of an operation with at
# least one input having requires_grad=True
print(f"{z.is_leaf=}")
assert x.is_leaf and W.is_leaf and b.is_leaf and y.is_leaf
assert not z.is_leaf and not y_pred.is_leaf and not loss.is_leaf

print(f"{x.requires_grad=}") # prints False because requires_grad=False by default
print(f"{W.requires_grad=}") # prints True because we set requires_grad=True in constructor
print(f"{z.requires_grad=}") # prints True because tensor is a non-leaf node
assert (x.requires_grad, W.requires_grad, z.requires_grad) == (False, True, True)
assert f"{x.is_leaf=}" == "x.is_leaf=True"

loss.backward()

print(f"{W.grad=}")
print(f"{b.grad=}")
# z = 4 everywhere, loss = mean((z - 1)^2): dloss/dz = 2 * 3 / 2 = 3
assert torch.equal(b.grad, torch.full((1, 2), 3.0))
assert torch.equal(W.grad, torch.full((3, 2), 3.0))

# prints all None because requires_grad=False
print(f"{x.grad=}")
print(f"{y.grad=}")
assert x.grad is None and y.grad is None

with warnings.catch_warnings():
    warnings.simplefilter("ignore")   # torch warns: .grad of a non-leaf tensor
    print(f"{z.grad=}")
    assert z.grad is None

# we have to re-run the forward pass
z = (x @ W) + b
y_pred = F.relu(z)
loss = F.mse_loss(y_pred, y)

# tell PyTorch to store the gradients after backward()
z.retain_grad()
y_pred.retain_grad()
loss.retain_grad()

# have to zero out gradients otherwise they would accumulate
W.grad = None
b.grad = None

# backpropagation
loss.backward()

# print gradients for all tensors that have requires_grad=True
print(f"{W.grad=}")
print(f"{b.grad=}")
print(f"{z.grad=}")
print(f"{y_pred.grad=}")
print(f"{loss.grad=}")
assert torch.equal(W.grad, torch.full((3, 2), 3.0))
assert torch.equal(z.grad, torch.full((1, 2), 3.0)) and torch.equal(y_pred.grad, z.grad)
assert loss.grad.shape == () and loss.grad.item() == 1.0
assert z.retains_grad and y_pred.retains_grad and loss.retains_grad
assert not W.retains_grad and not x.retains_grad   # False for any leaf, by convention

# the summary table
W.retain_grad()                                   # leaf with requires_grad: a no-op
assert not W.retains_grad
try:
    x.retain_grad()
except RuntimeError as e:
    print(e)
else:
    raise AssertionError("retain_grad on a tensor without requires_grad must fail")

x.requires_grad_()                                # a leaf: requires_grad can be switched
assert x.requires_grad and x.is_leaf
x.requires_grad_(False)
z.requires_grad_()                                # a non-leaf: requires_grad_() is a no-op
assert z.requires_grad

untracked = F.mse_loss(F.relu(x @ W.detach() + b.detach()), y)
try:
    untracked.backward()
except RuntimeError as e:
    print(e)
else:
    raise AssertionError("backward of a loss that tracks nothing must fail")
