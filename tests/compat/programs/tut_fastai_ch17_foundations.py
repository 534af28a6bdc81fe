"""The fast.ai book, chapter 17 ("A Neural Net from the Foundations"), on random data: matmul
with three loops, then with elementwise (a[i] * b[:, j]).sum(), then broadcasting
(a[i].unsqueeze(-1) * b).sum(dim=0), then torch.einsum('ik,kj->ij'); broadcasting rules with
c[None, :] / c[:, None] and expand_as; init by hand (x @ w std with w * math.sqrt(2 / n_in));
lin/relu/mse with hand-written gradients (lin_grad with inp.g = out.g @ w.t(), w.g = inp.t() @
out.g); the same as Relu/Lin/Mse classes with __call__ and backward, a Model looping over them;
then LayerFunction with forward/bwd and torch.autograd.Function (MyRelu), nn.Module with
nn.Parameter, and a forward hook storing activation statistics; gradients checked by autograd."""
import math

import torch
from torch import tensor, nn

torch.manual_seed(0)
m1 = torch.randn(5, 28 * 28)
m2 = torch.randn(784, 10)


def matmul(a, b):
    ar, ac = a.shape  # n_rows * n_cols
    br, bc = b.shape
    assert ac == br
    c = torch.zeros(ar, bc)
    for i in range(ar):
        for j in range(bc):
            for k in range(ac):
                c[i, j] += a[i, k] * b[k, j]
    return c


small1, small2 = m1[:2, :20], m2[:20, :3]
t1 = matmul(small1, small2)
assert t1.shape == torch.Size([2, 3])
assert torch.allclose(t1, small1 @ small2, atol=1e-5)

# elementwise arithmetic
a = tensor([10., 6, -4])
b = tensor([2., 8, 7])
assert torch.equal(a + b, tensor([12., 14, 3]))
assert (a < b).float().mean() == tensor(2 / 3)
assert (a < b).all() == tensor(False)
m = tensor([[1., 2, 3], [4, 5, 6], [7, 8, 9]])
assert (m * m).sum().sqrt() == tensor(16.881943016134134)


def matmul(a, b):
    ar, ac = a.shape
    br, bc = b.shape
    assert ac == br
    c = torch.zeros(ar, bc)
    for i in range(ar):
        for j in range(bc):
            c[i, j] = (a[i] * b[:, j]).sum()
    return c


assert torch.allclose(matmul(m1, m2), m1 @ m2, atol=1e-4)

# broadcasting
a = tensor([10., 6, -4])
assert torch.equal(a > 0, tensor([True, True, False]))
m = tensor([[1., 2, 3], [4, 5, 6], [7, 8, 9]])
assert torch.equal((m - 5) / 2.5, tensor([[-1.6, -1.2, -0.8], [-0.4, 0.0, 0.4],
                                          [0.8, 1.2, 1.6]]))
c = tensor([10., 20, 30])
m = tensor([[1., 2, 3], [4, 5, 6], [7, 8, 9]])
assert m.shape == (3, 3) and c.shape == (3,)
assert torch.equal(m + c, tensor([[11., 22, 33], [14, 25, 36], [17, 28, 39]]))
assert torch.equal(c.expand_as(m), tensor([[10., 20, 30], [10, 20, 30], [10, 20, 30]]))
t = c.expand_as(m)
assert t.stride() == (0, 1)
assert torch.equal(c[:, None].expand_as(m), tensor([[10., 10, 10], [20, 20, 20], [30, 30, 30]]))
assert c.unsqueeze(0).shape == c[None, :].shape == (1, 3)
assert c.unsqueeze(1).shape == c[:, None].shape == (3, 1)
assert c[..., None].shape == (3, 1)


def matmul(a, b):
    ar, ac = a.shape
    br, bc = b.shape
    assert ac == br
    c = torch.zeros(ar, bc)
    for i in range(ar):
        c[i] = (a[i].unsqueeze(-1) * b).sum(dim=0)
    return c


assert torch.allclose(matmul(m1, m2), m1 @ m2, atol=1e-4)


def matmul(a, b):
    return torch.einsum('ik,kj->ij', a, b)


assert torch.allclose(matmul(m1, m2), m1 @ m2, atol=1e-4)

# the forward and backward passes: initialization
x = torch.randn(200, 100)
for i in range(50):
    x = x @ torch.randn(100, 100)
assert torch.isnan(x[0:5, 0:5]).any() or x.abs().max() > 1e10   # explodes
x = torch.randn(200, 100)
for i in range(50):
    x = x @ (torch.randn(100, 100) * 0.01)
assert x.abs().max() < 1e-10                                      # vanishes
x = torch.randn(200, 100)
for i in range(50):
    x = x @ (torch.randn(100, 100) * 0.1)
assert 0.1 < x.std() < 10, x.std()


def relu(x):
    return x.clamp_min(0.)


x = torch.randn(200, 100)
y = torch.randn(200)
w1 = torch.randn(100, 50) * math.sqrt(2 / 100)
b1 = torch.zeros(50)
w2 = torch.randn(50, 1) * math.sqrt(2 / 50)
b2 = torch.zeros(1)


def lin(x, w, b):
    return x @ w + b


l1 = relu(lin(x, w1, b1))
assert 0.3 < l1.mean() < 1.0 and 0.5 < l1.std() < 1.5


def model(x):
    l1 = lin(x, w1, b1)
    l2 = relu(l1)
    l3 = lin(l2, w2, b2)
    return l3


out = model(x)
assert out.shape == torch.Size([200, 1])


def mse(output, targ):
    return (output.squeeze(-1) - targ).pow(2).mean()


loss = mse(out, y)


# gradients and the backward pass
def mse_grad(inp, targ):
    # grad of loss with respect to output of previous layer
    inp.g = 2. * (inp.squeeze() - targ).unsqueeze(-1) / inp.shape[0]


def relu_grad(inp, out):
    # grad of relu with respect to input activations
    inp.g = (inp > 0).float() * out.g


def lin_grad(inp, out, w, b):
    # grad of matmul with respect to input
    inp.g = out.g @ w.t()
    w.g = inp.t() @ out.g
    b.g = out.g.sum(0)


def forward_and_backward(inp, targ):
    # forward pass:
    l1 = inp @ w1 + b1
    l2 = relu(l1)
    out = l2 @ w2 + b2
    # we don't actually need the loss in backward!
    loss = mse(out, targ)
    # backward pass:
    mse_grad(out, targ)
    lin_grad(l2, out, w2, b2)
    relu_grad(l1, l2)
    lin_grad(inp, l1, w1, b1)


forward_and_backward(x, y)
hand = [w1.g, b1.g, w2.g, b2.g, x.g]

# refactoring the model
class Relu():
    def __call__(self, inp):
        self.inp = inp
        self.out = inp.clamp_min(0.)
        return self.out

    def backward(self):
        self.inp.g = (self.inp > 0).float() * self.out.g


class Lin():
    def __init__(self, w, b):
        self.w, self.b = w, b

    def __call__(self, inp):
        self.inp = inp
        self.out = inp @ self.w + self.b
        return self.out

    def backward(self):
        self.inp.g = self.out.g @ self.w.t()
        self.w.g = self.inp.t() @ self.out.g
        self.b.g = self.out.g.sum(0)


class Mse():
    def __call__(self, inp, targ):
        self.inp = inp
        self.targ = targ
        self.out = (inp.squeeze() - targ).pow(2).mean()
        return self.out

    def backward(self):
        x = (self.inp.squeeze() - self.targ).unsqueeze(-1)
        self.inp.g = 2. * x / self.targ.shape[0]


class Model():
    def __init__(self, w1, b1, w2, b2):
        self.layers = [Lin(w1, b1), Relu(), Lin(w2, b2)]
        self.loss = Mse()

    def __call__(self, x, targ):
        for l in self.layers:
            x = l(x)
        return self.loss(x, targ)

    def backward(self):
        self.loss.backward()
        for l in reversed(self.layers):
            l.backward()


model = Model(w1, b1, w2, b2)
loss = model(x, y)
model.backward()
for g_hand, g_model in zip(hand, [w1.g, b1.g, w2.g, b2.g, x.g]):
    assert torch.allclose(g_hand, g_model)

# autograd agrees
xa = x.clone().requires_grad_()
params = [p.clone().requires_grad_() for p in (w1, b1, w2, b2)]
loss_a = mse(relu(xa @ params[0] + params[1]) @ params[2] + params[3], y)
loss_a.backward()
for p, g in zip(params + [xa], hand):
    assert torch.allclose(p.grad, g, atol=1e-6)


# going to PyTorch
class LayerFunction():
    def __call__(self, *args):
        self.args = args
        self.out = self.forward(*args)
        return self.out

    def forward(self):
        raise Exception('not implemented')

    def bwd(self):
        raise Exception('not implemented')

    def backward(self):
        self.bwd(self.out, *self.args)


class Relu(LayerFunction):
    def forward(self, inp):
        return inp.clamp_min(0.)

    def bwd(self, out, inp):
        inp.g = (inp > 0).float() * out.g


r = Relu()
o = r(x)
o.g = torch.ones_like(o)
r.backward()
assert torch.equal(x.g, (x > 0).float())


class MyRelu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.clamp_min(0.)
        ctx.save_for_backward(i)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        i, = ctx.saved_tensors
        return grad_output * (i > 0).float()


xr = x.clone().requires_grad_()
MyRelu.apply(xr).sum().backward()
assert torch.equal(xr.grad, (x > 0).float())


class LinearLayer(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_out, n_in) * math.sqrt(2 / n_in))
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        return x @ self.weight.t() + self.bias


lin = LinearLayer(10, 2)
p1, p2 = lin.parameters()
assert p1.shape == (2, 10) and p2.shape == (2,)


class Model(nn.Module):
    def __init__(self, n_in, nh, n_out):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, n_out))
        self.loss = mse

    def forward(self, x, targ):
        return self.loss(self.layers(x), targ)


model = Model(100, 50, 1)
stats = []


def append_stats(m, i, o):
    stats.append((o.mean().item(), o.std().item()))


hook = model.layers[1].register_forward_hook(append_stats)
loss = model(x, y)
loss.backward()
hook.remove()
model(x, y)
assert len(stats) == 1 and stats[0][0] > 0
assert all(p.grad is not None for p in model.parameters())
