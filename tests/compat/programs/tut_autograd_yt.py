"""PyTorch "Introduction to PyTorch" YouTube series, "The Fundamentals of Autograd"
(beginner_source/introyt/autogradyt_tutorial.py): a = torch.linspace(0., 2. * math.pi, steps=25,
requires_grad=True), b = torch.sin(a), grad_fn.next_functions walked by hand, out.backward()
and a.grad against 2 * cos(a); TinyModel training with model.layer2.weight.grad[0][0:10] and
optimizer.zero_grad(set_to_none=False); autograd on/off with requires_grad = False, no_grad()
as context and decorator, detach(); in-place ops on a leaf raising; torch.autograd.profiler;
torch.autograd.functional.jacobian of exp_adder and hvp."""
import math

import torch

a = torch.linspace(0., 2. * math.pi, steps=25, requires_grad=True)
b = torch.sin(a)
c = 2 * b
d = c + 1
out = d.sum()
print('d:')
print(d.grad_fn)
print(d.grad_fn.next_functions)
print(d.grad_fn.next_functions[0][0].next_functions)
print(d.grad_fn.next_functions[0][0].next_functions[0][0].next_functions)
print(d.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0].next_functions)
print('\nc:')
print(c.grad_fn)
print('\nb:')
print(b.grad_fn)
print('\na:')
print(a.grad_fn)
assert type(d.grad_fn).__name__ == "AddBackward0"
assert type(d.grad_fn.next_functions[0][0]).__name__ == "MulBackward0"
assert type(d.grad_fn.next_functions[0][0].next_functions[0][0]).__name__ == "SinBackward0"
leaf = d.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0]
assert type(leaf).__name__ == "AccumulateGrad" and leaf.variable is a
assert a.grad_fn is None
out.backward()
print(a.grad)
assert torch.allclose(a.grad, 2 * torch.cos(a.detach()), atol=1e-6)

# autograd in training
BATCH_SIZE = 16
DIM_IN = 1000
HIDDEN_SIZE = 100
DIM_OUT = 10


class TinyModel(torch.nn.Module):
    def __init__(self):
        super(TinyModel, self).__init__()
        self.layer1 = torch.nn.Linear(DIM_IN, HIDDEN_SIZE)
        self.relu = torch.nn.ReLU()
        self.layer2 = torch.nn.Linear(HIDDEN_SIZE, DIM_OUT)

    def forward(self, x):
        x = self.layer1(x)
        x = self.relu(x)
        x = self.layer2(x)
        return x


some_input = torch.randn(BATCH_SIZE, DIM_IN, requires_grad=False)
ideal_output = torch.randn(BATCH_SIZE, DIM_OUT, requires_grad=False)
model = TinyModel()
print(model.layer2.weight[0][0:10])  # just a small slice
print(model.layer2.weight.grad)
assert model.layer2.weight.grad is None
optimizer = torch.optim.SGD(model.parameters(), lr=0.001)
prediction = model(some_input)
loss = (ideal_output - prediction).pow(2).sum()
print(loss)
loss.backward()
print(model.layer2.weight[0][0:10])
print(model.layer2.weight.grad[0][0:10])
before = model.layer2.weight[0][0:10].clone()
optimizer.step()
print(model.layer2.weight[0][0:10])
assert not torch.equal(before, model.layer2.weight[0][0:10])
print(model.layer2.weight.grad[0][0:10])
for i in range(0, 5):
    prediction = model(some_input)
    loss = (ideal_output - prediction).pow(2).sum()
    loss.backward()
print(model.layer2.weight.grad[0][0:10])
optimizer.zero_grad(set_to_none=False)
print(model.layer2.weight.grad[0][0:10])
assert model.layer2.weight.grad.abs().sum() == 0

# turning autograd off and on
a = torch.ones(2, 3, requires_grad=True)
b1 = 2 * a
assert b1.requires_grad
a.requires_grad = False
b2 = 2 * a
assert not b2.requires_grad
a = torch.ones(2, 3, requires_grad=True) * 2
b = torch.ones(2, 3, requires_grad=True) * 3
c1 = a + b
with torch.no_grad():
    c2 = a + b
assert c1.requires_grad and not c2.requires_grad
c3 = a * b
assert c3.requires_grad


def add_tensors1(x, y):
    return x + y


@torch.no_grad()
def add_tensors2(x, y):
    return x + y


a = torch.ones(2, 3, requires_grad=True) * 2
b = torch.ones(2, 3, requires_grad=True) * 3
c1 = add_tensors1(a, b)
c2 = add_tensors2(a, b)
assert c1.requires_grad and not c2.requires_grad
x = torch.rand(5, requires_grad=True)
y = x.detach()
assert x.requires_grad and not y.requires_grad

# autograd and in-place operations
a = torch.linspace(0., 2. * math.pi, steps=25, requires_grad=True)
try:
    torch.sin_(a)
    raise AssertionError("in-place on a leaf that requires grad must fail")
except RuntimeError as e:
    print(e)
    assert "leaf Variable that requires grad" in str(e)

# autograd profiler
device = torch.device('cpu')
run_on_gpu = False
if torch.cuda.is_available():
    device = torch.device('cuda')
    run_on_gpu = True
x = torch.randn(2, 3, requires_grad=True)
y = torch.rand(2, 3, requires_grad=True)
z = torch.ones(2, 3, requires_grad=True)
with torch.autograd.profiler.profile(use_cuda=run_on_gpu) as prf:
    for _ in range(100):
        z = (z / x) * y
print(prf.key_averages().table(sort_by='self_cpu_time_total'))
names = {e.key for e in prf.key_averages()}
assert {"aten::div", "aten::mul"} <= names, names
assert [e.count for e in prf.key_averages() if e.key == "aten::mul"] == [100]

# the higher-level API
def exp_adder(x, y):
    return 2 * x.exp() + 3 * y


inputs = (torch.rand(1), torch.rand(1))  # arguments for the function
print(inputs)
jac = torch.autograd.functional.jacobian(exp_adder, inputs)
assert torch.allclose(jac[0], 2 * inputs[0].exp().view(1, 1)) and jac[1].item() == 3
inputs = (torch.rand(3), torch.rand(3))  # arguments for the function
print(inputs)
jac = torch.autograd.functional.jacobian(exp_adder, inputs)
assert torch.allclose(jac[0], torch.diag(2 * inputs[0].exp()))


def do_some_doubling(x):
    y = x * 2
    while y.data.norm() < 1000:
        y = y * 2
    return y


inputs = torch.randn(3)
my_gradients = torch.tensor([0.1, 1.0, 0.0001])
vjp = torch.autograd.functional.vjp(do_some_doubling, inputs, v=my_gradients)
print(vjp)
ratio = vjp[1] / my_gradients
assert torch.allclose(ratio, ratio[0].expand(3))


def pow_reducer(x):
    return x.pow(3).sum()


inputs = torch.rand(2, 2)
v = torch.ones(2, 2)
_, hvp = torch.autograd.functional.hvp(pow_reducer, inputs, v)
assert torch.allclose(hvp, 6 * inputs)
