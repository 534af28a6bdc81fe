"""fastai/course22p2 nbs/01_matmul.ipynb (with a synthetic 'MNIST' of float32 numpy arrays in place of
mnist.pkl.gz): map(tensor, (x_train, y_train, x_valid, y_valid)), x_train.type() == 'torch.FloatTensor',
reshape((-1, 28, 28)), min()/max() of a long tensor, the Wichmann-Hill rand() by hand,
torch.randn(784, 10) under torch.manual_seed(1), the triple-loop matmul with t1[i,j] += m1[i,k] *
m2[k,j] on 0-d tensors, torch.set_printoptions(precision=2, linewidth=140, sci_mode=False), the
versions with a python dot over numpy rows (m1.numpy()), with (a[i,:] * b[:,j]).sum(), with
torch.dot, and with broadcasting (a[i,:,None] * b).sum(dim=0); (a < b).float().mean(), the
Frobenius norm via (m*m).sum().sqrt(), c.expand_as(m) with its stride() of 0 and
untyped_storage(), unsqueeze vs None indexing (c[None], c[..., None]), outer products by
broadcasting, torch.einsum('ik,kj->ikj') and 'ik,kj->ij', x_train@weights, and the 'kernel'
emulation matmul(grid, a, b, c) launched over a grid; fastcore's test_close."""
import math

import numpy as np
import torch
from torch import tensor


def test_close(a, b, eps=1e-5):
    a, b = np.asarray(a), np.asarray(b)
    assert np.allclose(a, b, rtol=0, atol=eps), f"close:\n{a}\n{b}"


rng = np.random.RandomState(0)
x_train = rng.rand(200, 784).astype(np.float32)
y_train = rng.randint(0, 10, 200)
x_valid = rng.rand(50, 784).astype(np.float32)
y_valid = rng.randint(0, 10, 50)
lst1 = list(x_train[0])
vals = lst1[200:210]


def chunks(x, sz):
    for i in range(0, len(x), sz): yield x[i:i + sz]


print(list(chunks(vals, 5)))

x_train, y_train, x_valid, y_valid = map(tensor, (x_train, y_train, x_valid, y_valid))
print(x_train.shape, x_train.type())
assert x_train.type() == 'torch.FloatTensor' and y_train.type() == 'torch.LongTensor'
imgs = x_train.reshape((-1, 28, 28))
print(imgs.shape, imgs[0, 20, 15])
assert imgs[0, 20, 15] == x_train[0, 20 * 28 + 15]
n, c = x_train.shape
print(y_train, y_train.shape)
print(min(y_train), max(y_train))
print(y_train.min(), y_train.max())
assert min(y_train) == y_train.min() and max(y_train).dtype == torch.int64

rnd_state = None


def seed(a):
    global rnd_state
    a, x = divmod(a, 30268)
    a, y = divmod(a, 30306)
    a, z = divmod(a, 30322)
    rnd_state = int(x) + 1, int(y) + 1, int(z) + 1


seed(457428938475)


def rand():
    global rnd_state
    x, y, z = rnd_state
    x = (171 * x) % 30269
    y = (172 * y) % 30307
    z = (170 * z) % 30323
    rnd_state = x, y, z
    return (x / 30269 + y / 30307 + z / 30323) % 1.0


print(rand(), rand(), rand())

torch.manual_seed(1)
weights = torch.randn(784, 10)
bias = torch.zeros(10)
m1 = x_valid[:5]
m2 = weights
print(m1.shape, m2.shape)
ar, ac = m1.shape
br, bc = m2.shape
t1 = torch.zeros(ar, bc)
for i in range(2):               # two rows by the triple loop (slow on purpose)
    for j in range(bc):
        for k in range(ac):
            t1[i, j] += m1[i, k] * m2[k, j]
t1[2:] = m1[2:] @ m2
torch.set_printoptions(precision=2, linewidth=140, sci_mode=False)
print(t1, t1.shape)
assert "e+" not in str(t1) and "e-" not in str(t1)
np.set_printoptions(precision=2, linewidth=140)
test_close(t1, m1 @ m2, eps=1e-3)


def dot(a, b):   # numba's @njit boxes its result as a python float
    res = 0.
    for i in range(len(a)): res += a[i] * b[i]
    return float(res)


def matmul(a, b):
    (ar, ac), (br, bc) = a.shape, b.shape
    c = torch.zeros(ar, bc)
    for i in range(ar):
        for j in range(bc): c[i, j] = dot(a[i, :], b[:, j])
    return c


m1a, m2a = m1.numpy(), m2.numpy()
test_close(t1, matmul(m1a, m2a), eps=1e-3)

a = tensor([10., 6, -4])
b = tensor([2., 8, 7])
print(a + b, (a < b).float().mean())
assert abs((a < b).float().mean().item() - 2 / 3) < 1e-6
m = tensor([[1., 2, 3], [4, 5, 6], [7, 8, 9]])
sf = (m * m).sum()
print(sf, sf.sqrt())
assert sf.item() == 285. and abs(sf.sqrt().item() - math.sqrt(285)) < 1e-5
print(m[2, :], m[:, 2], m[2])


def matmul(a, b):
    (ar, ac), (br, bc) = a.shape, b.shape
    c = torch.zeros(ar, bc)
    for i in range(ar):
        for j in range(bc): c[i, j] = (a[i, :] * b[:, j]).sum()
    return c


test_close(t1, matmul(m1, m2), eps=1e-3)


def matmul(a, b):
    (ar, ac), (br, bc) = a.shape, b.shape
    c = torch.zeros(ar, bc)
    for i in range(ar):
        for j in range(bc): c[i, j] = torch.dot(a[i, :], b[:, j])
    return c


test_close(t1, matmul(m1, m2), eps=1e-3)

print(a > 0, a + 1, 2 * m)
c = tensor([10., 20, 30])
print(m.shape, c.shape, m + c, c + m)
t = c.expand_as(m)
print(t, m + t)
print(t.untyped_storage())
print(t.stride(), t.shape)
assert t.stride() == (0, 1) and len(t.untyped_storage()) == 3 * 4
print(c.unsqueeze(0), c[None, :], c.shape, c.unsqueeze(0).shape)
print(c.unsqueeze(1), c[:, None], c.shape, c.unsqueeze(1).shape)
print(c[None].shape, c[..., None].shape)
assert c[None].shape == (1, 3) and c[..., None].shape == (3, 1)
print(c[:, None].expand_as(m))
print(m + c[:, None], m + c[None, :])
print(c[None, :] * c[:, None])
print(c[None] > c[:, None])
assert (c[None, :] * c[:, None])[2, 1].item() == 600.
assert (c[None] > c[:, None]).sum().item() == 3
digit = m1[0]
print(digit.shape, m2.shape, digit[:, None].shape, digit[:, None].expand_as(m2).shape)
assert (digit[:, None] * m2).shape == (784, 10)


def matmul(a, b):
    (ar, ac), (br, bc) = a.shape, b.shape
    c = torch.zeros(ar, bc)
    for i in range(ar):
        c[i] = (a[i, :, None] * b).sum(dim=0)
    return c


test_close(t1, matmul(m1, m2), eps=1e-3)
tr = matmul(x_train, weights)
print(tr, tr.shape)

mr = torch.einsum('ik,kj->ikj', m1, m2)
print(mr.shape, mr.sum(1))
test_close(mr.sum(1), t1, eps=1e-3)
print(torch.einsum('ik,kj->ij', m1, m2))


def matmul(a, b): return torch.einsum('ik,kj->ij', a, b)


test_close(tr, matmul(x_train, weights), eps=1e-3)
test_close(tr, x_train @ weights, eps=1e-3)
test_close(tr, torch.matmul(x_train, weights), eps=1e-3)


def matmul(grid, a, b, c):
    i, j = grid
    if i < c.shape[0] and j < c.shape[1]:
        tmp = 0.
        for k in range(a.shape[1]): tmp += a[i, k] * b[k, j]
        c[i, j] = tmp


res = torch.zeros(ar, bc)
matmul((0, 0), m1, m2, res)
print(res)


def launch_kernel(kernel, grid_x, grid_y, *args, **kwargs):
    for i in range(grid_x):
        for j in range(grid_y): kernel((i, j), *args, **kwargs)


res = torch.zeros(ar, bc)
launch_kernel(matmul, 2, bc, m1[:2, :100], m2[:100], res)
test_close(res[:2], m1[:2, :100] @ m2[:100], eps=1e-3)
TPB = 16
rr, rc = tr.shape
blockspergrid = (math.ceil(rr / TPB), math.ceil(rc / TPB))
print(blockspergrid)
assert blockspergrid == (13, 1)
