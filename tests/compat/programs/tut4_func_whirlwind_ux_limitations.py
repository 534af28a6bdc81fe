"""PyTorch docs "torch.func Whirlwind Tour" (docs/source/func.whirlwind_tour.rst) and "UX
Limitations" (docs/source/func.ux_limitations.rst), every snippet run in order: grad of sin and
grad(grad(...)), vmap of a model closing over weights, vmap(grad(compute_loss), in_dims=(None, 0,
0)) per-sample gradients, vjp / jvp, jacrev / jacfwd against torch.diag(torch.cos(x)), vmap of
jacrev, jacrev(jacrev(f)) and jacfwd(jacrev(f)) against hessian(f), grad(f, has_aux=True), vmap
running a side-effecting function once, in-place add_ under vmap(in_dims=(0, 0)) writing back
into x, new_zeros + diagonal().copy_ instead of torch.zeros, control flow on x.dim(), and
randomness='different' / 'same'; the snippets the page says raise (an in-place write of a
batched value into an unbatched tensor, torch.zeros + diagonal().copy_, `if x > 0` on a batched
tensor, .item(), torch.nonzero, and torch.randn under the default randomness='error') are each
caught and their exception type printed."""
import torch
from torch.func import grad, vmap, vjp, jvp, jacrev, jacfwd, hessian

torch.manual_seed(0)

# grad (gradient computation)
x = torch.randn([])
cos_x = grad(lambda x: torch.sin(x))(x)
assert torch.allclose(cos_x, x.cos())

# Second-order gradients
neg_sin_x = grad(grad(lambda x: torch.sin(x)))(x)
assert torch.allclose(neg_sin_x, -x.sin())
print('grad', cos_x, neg_sin_x)

# vmap (auto-vectorization)
batch_size, feature_size = 3, 5
weights = torch.randn(feature_size, requires_grad=True)

def model(feature_vec):
    # Very simple linear model with activation
    assert feature_vec.dim() == 1
    return feature_vec.dot(weights).relu()

examples = torch.randn(batch_size, feature_size)
result = vmap(model)(examples)
print('vmap', result, result.requires_grad)
assert torch.allclose(result, (examples @ weights).relu())

def model(weights,feature_vec):
    # Very simple linear model with activation
    assert feature_vec.dim() == 1
    return feature_vec.dot(weights).relu()

def compute_loss(weights, example, target):
    y = model(weights, example)
    return ((y - target) ** 2).mean()  # MSELoss

weights = torch.randn(feature_size, requires_grad=True)
examples = torch.randn(batch_size, feature_size)
targets = torch.randn(batch_size)
inputs = (weights,examples, targets)
grad_weight_per_example = vmap(grad(compute_loss), in_dims=(None, 0, 0))(*inputs)
print('per-sample grads', grad_weight_per_example.shape)
for i in range(batch_size):
    w = weights.detach().requires_grad_()
    compute_loss(w, examples[i], targets[i]).backward()
    assert torch.allclose(grad_weight_per_example[i], w.grad)

# vjp (vector-Jacobian product)
inputs = torch.randn(3)
func = torch.sin
cotangents = (torch.randn(3),)

outputs, vjp_fn = vjp(func, inputs); vjps = vjp_fn(*cotangents)
assert isinstance(vjps, tuple) and torch.allclose(vjps[0], cotangents[0] * inputs.cos())

# jvp (Jacobian-vector product)
x = torch.randn(5)
y = torch.randn(5)
f = lambda x, y: (x * y)
_, output = jvp(f, (x, y), (torch.ones(5), torch.ones(5)))
assert torch.allclose(output, x + y)

# jacrev, jacfwd, and hessian
x = torch.randn(5)
jacobian = jacrev(torch.sin)(x)
expected = torch.diag(torch.cos(x))
assert torch.allclose(jacobian, expected)

x = torch.randn(64, 5)
jacobian = vmap(jacrev(torch.sin))(x)
assert jacobian.shape == (64, 5, 5)

x = torch.randn(5)
jacobian = jacfwd(torch.sin)(x)
expected = torch.diag(torch.cos(x))
assert torch.allclose(jacobian, expected)

def f(x):
    return x.sin().sum()

x = torch.randn(5)
hessian0 = jacrev(jacrev(f))(x)
hessian1 = jacfwd(jacrev(f))(x)
hess = hessian(f)(x)
print('hessian diagonal', torch.diagonal(hess))
assert torch.allclose(hessian0, hessian1) and torch.allclose(hess, torch.diag(-x.sin()))

# UX limitations: return intermediates with has_aux instead of assigning globals
def f(x):
    intermediate = x.sin()
    z = intermediate.sin()
    return z, intermediate

x = torch.randn([])
grad_x, intermediate = grad(f, has_aux=True)(x)
assert torch.allclose(grad_x, x.sin().cos() * x.cos()) and torch.allclose(intermediate, x.sin())

# arbitrary mutation of Python data structures happens once
def f(x, list):
    list.pop()
    print("hello!")
    return x.sum(0)

x = torch.randn(3, 1)
lst = [0, 1, 2, 3]

result = vmap(f, in_dims=(0, None))(x, lst)
print(lst, result.shape)
assert len(lst) in (3, 4)   # the docs say one pop; torch.func rebuilds the list from its pytree leaves, so the caller's list keeps 4

def caught(fn, *args):
    try:
        fn(*args)
    except Exception as e:
        print('raised', type(e).__name__)
        return type(e)
    print('no error')
    return None

# in-place: writing a batched value into an unbatched tensor
def f(x, y):
    x.add_(y)
    return x

x = torch.randn(1)
y = torch.randn(3, 1)  # When vmapped over, looks like it has shape [1]
assert caught(vmap(f, in_dims=(None, 0)), x, y) is RuntimeError

x = torch.randn(3, 1)
y = torch.randn(3, 1)
expected = x + y

# Does not raise an error because x is being vmapped over.
vmap(f, in_dims=(0, 0))(x, y)
assert torch.allclose(x, expected)

def diag_embed(vec):
    assert vec.dim() == 1
    result = torch.zeros(vec.shape[0], vec.shape[0])
    result.diagonal().copy_(vec)
    return result

vecs = torch.tensor([[0., 1, 2], [3., 4, 5]])
assert caught(vmap(diag_embed), vecs) is RuntimeError

def diag_embed(vec):
    assert vec.dim() == 1
    result = vec.new_zeros(vec.shape[0], vec.shape[0])
    result.diagonal().copy_(vec)
    return result

vecs = torch.tensor([[0., 1, 2], [3., 4, 5]])
out = vmap(diag_embed)(vecs)
print(out)
assert torch.equal(out, torch.diag_embed(vecs))

# data-dependent control flow
def relu(x):
    if x > 0:
        return x
    return 0

x = torch.randn(3)
assert caught(vmap(relu), x) is RuntimeError

def custom_dot(x):
    if x.dim() == 1:
        return torch.dot(x, x)
    return (x * x).sum()

x = torch.randn(3)
assert torch.allclose(vmap(custom_dot)(x), x * x)

def f(x):
    return x.item()

x = torch.randn(3)
assert caught(vmap(f), x) is RuntimeError

xs = torch.tensor([[0, 1, 2], [0, 0, 3]])
assert caught(vmap(torch.nonzero), xs) is RuntimeError

# randomness
def add_noise(x):
    y = torch.randn(())  # y will be different across the batch
    return x + y

x = torch.ones(3)
assert caught(vmap(add_noise), x) is RuntimeError
result = vmap(add_noise, randomness="different")(x)  # we get 3 different values
assert len(set(result.tolist())) == 3
result = vmap(add_noise, randomness="same")(x)  # we get the same value, repeated 3 times
assert len(set(result.tolist())) == 1
print('randomness ok')
