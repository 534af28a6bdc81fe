"""Atcold/NYU-DLSP20, 01-tensor_tutorial.ipynb and 03-autograd_tutorial.ipynb: the legacy
torch.Tensor(2, 3, 4) constructor, random_, resize_, zero_, clone/fill_, torch.Tensor lists,
v @ w, arange/linspace/eye, m[:, [1]] fancy rows, t()/transpose, double()/byte(), numpy sharing
both ways, cat; then autograd: grad_fn and next_functions, z.mean().backward(), a while loop on
y.data.norm(), backward with a FloatTensor of gradients, and the error of backward under no_grad."""
import numpy as np
import torch

show = lambda *values: print(*(repr(v) for v in values))
torch.manual_seed(0)

t = torch.Tensor(2, 3, 4)
show(type(t), t.size())
print('t size:', ' \u00D7 '.join(map(str, t.size())))
print(f'point in a {t.numel()} dimensional space')
print(f'organised in {t.dim()} sub-dimensions')
t.random_(10)
show(t)
r = torch.Tensor(t)
r.resize_(3, 8)
show(r)
r.zero_()
show(t)
s = r.clone()
s.fill_(1)
show(s, r)
v = torch.Tensor([1, 2, 3, 4])
show(v)
print(f'dim: {v.dim()}, size: {v.size()[0]}')
w = torch.Tensor([1, 0, 2, 0])
show(w, v * w, v @ w)
x = torch.Tensor(5).random_(10)
show(x)
print(f'first: {x[0]}, last: {x[-1]}')
show(x[1:2 + 1])
v = torch.arange(1, 4 + 1)
show(v)
print(v.pow(2), v)
m = torch.Tensor([[2, 5, 3, 7],
                  [4, 2, 1, 9]])
show(m, m.dim())
print(m.size(0), m.size(1), m.size(), sep=' -- ')
show(m.numel(), m[0][2], m[0, 2], m[:, 1], m[:, [1]], m[[0], :], m[0, :])
v = torch.arange(1., 4 + 1)
show(v, m, m @ v, m[[0], :] @ v, m[[1], :] @ v)
show(m + torch.rand(2, 4), m - torch.rand(2, 4), m * torch.rand(2, 4), m / torch.rand(2, 4))
show(m.size(), m.t(), m.transpose(0, 1))
show(torch.arange(3., 8 + 1), torch.arange(5.7, -2.1, -3), torch.linspace(3, 8, 20).view(1, -1))
show(torch.zeros(3, 5), torch.ones(3, 2, 5), torch.eye(3))
hist, _ = np.histogram(torch.randn(1000).numpy(), 10)
show(hist.sum())
device = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
print("Device: ", device)
z = torch.ones(2, 3, 5)
z_1 = z.to(device)
print(f"Tensor on {device}:\n", z_1)
device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
z_2 = z.to(device)
print(f"Tensor on {device}:\n", z_2)
show(device, device.type, str(device))
m_double = m.double()
m_byte = m.byte()
show(m_double, m_byte, m.to(device))
m_np = m.numpy()
show(m_np)
m_np[0, 0] = -1
show(m_np, m)
n_np = np.arange(5)
n = torch.from_numpy(n_np)
print(n_np, n)
n.mul_(2)
show(n_np)
a = torch.Tensor([[1, 2, 3, 4]])
b = torch.Tensor([[5, 6, 7, 8]])
print(a.size(), b)
show(torch.cat((a, b), 0), torch.cat((a, b), 1))

x = torch.tensor([[1, 2], [3, 4]], requires_grad=True, dtype=torch.float32)
print(x)
y = x - 2
print(y)
print(type(y.grad_fn).__name__)
print(x.grad_fn)
nxt = y.grad_fn.next_functions[0][0]
print(type(nxt).__name__)
show(nxt.variable)
assert nxt.variable is x
z = y * y * 3
a = z.mean()
print(z)
print(a)
a.backward()
print(x.grad)
x = torch.randn(3, requires_grad=True)
y = x * 2
i = 0
while y.data.norm() < 1000:
    y = y * 2
    i += 1
print(y)
gradients = torch.FloatTensor([0.1, 1.0, 0.0001])
y.backward(gradients)
print(x.grad)
print(i)
n = 3
x = torch.arange(1., n + 1, requires_grad=True)
w = torch.ones(n, requires_grad=True)
z = w @ x
z.backward()
print(x.grad, w.grad, sep='\n')
x = torch.arange(1., n + 1)
w = torch.ones(n, requires_grad=True)
z = w @ x
z.backward()
print(x.grad, w.grad, sep='\n')
x = torch.arange(1., n + 1)
w = torch.ones(n, requires_grad=True)
with torch.no_grad():
    z = w @ x
try:
    z.backward()
    raise AssertionError("backward under no_grad should fail")
except RuntimeError as e:
    print('RuntimeError!!! >:[')
    assert "element 0 of tensors does not require grad and does not have a grad_fn" in str(e), e
