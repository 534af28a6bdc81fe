"""Dive into Deep Learning (d2l.ai, PyTorch), chapter 2 "Preliminaries": 2.1 data manipulation
(torch.arange(12, dtype=torch.float32), x.numel(), X = x.reshape(3, 4) / reshape(-1, 4),
torch.zeros((2, 3, 4)), torch.randn(3, 4), torch.exp, torch.cat((X, Y), dim=0/1), X == Y,
X.sum(), broadcasting a + b of (3, 1) and (1, 2), X[-1], X[1:3], X[:2, :] = 12, saving memory
with id(Y) and Z[:] = X + Y and X += Y, conversion A = X.numpy(), torch.from_numpy,
a.item(), float(a), int(a)); 2.2 data preprocessing without pandas (a CSV with NA values parsed
by hand, fillna with the mean, get_dummies by hand, torch.tensor(inputs.to_numpy)-style);
2.3 linear algebra (A.T, A == A.T, X.sum(axis=[0, 1]), A.mean(axis=0), A.sum(axis=1,
keepdims=True), A.cumsum(axis=0), torch.dot, torch.mv, torch.mm, torch.norm, torch.abs().sum(),
the Frobenius norm torch.norm(torch.ones((4, 9)))); 2.5 automatic differentiation (x.grad,
x.grad.zero_(), y.backward(gradient=torch.ones(len(y))), detach(), control flow f(a))."""
import os
import tempfile

import numpy as np
import torch

# 2.1 data manipulation
x = torch.arange(12, dtype=torch.float32)
assert x.numel() == 12 and x.shape == torch.Size([12])
X = x.reshape(3, 4)
assert torch.equal(X, x.reshape(-1, 4)) and torch.equal(X, x.reshape(3, -1))
assert torch.zeros((2, 3, 4)).shape == (2, 3, 4) and torch.ones((2, 3, 4)).sum() == 24
assert torch.randn(3, 4).shape == (3, 4)
torch.tensor([[2, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])
assert X[-1].tolist() == [8., 9., 10., 11.] and X[1:3].shape == (2, 4)
X[1, 2] = 17
X[:2, :] = 12
assert X[:2].eq(12).all() and X[2, 0] == 8
x = torch.tensor([1.0, 2, 4, 8])
y = torch.tensor([2, 2, 2, 2])
assert (x ** y).dtype == torch.float32 and (x // y).tolist() == [0., 1., 2., 4.]
assert torch.allclose(torch.exp(x), torch.tensor([2.7183, 7.3891, 54.5982, 2980.9580]), atol=1e-3)
X = torch.arange(12, dtype=torch.float32).reshape((3, 4))
Y = torch.tensor([[2.0, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])
assert torch.cat((X, Y), dim=0).shape == (6, 4) and torch.cat((X, Y), dim=1).shape == (3, 8)
assert (X == Y).sum() == 2 and X.sum() == 66
a = torch.arange(3).reshape((3, 1))
b = torch.arange(2).reshape((1, 2))
assert (a + b).tolist() == [[0, 1], [1, 2], [2, 3]]
before = id(Y)
Y = Y + X
assert id(Y) != before
Z = torch.zeros_like(Y)
before = id(Z)
Z[:] = X + Y
assert id(Z) == before
before = id(X)
X += Y
assert id(X) == before
A = X.numpy()
B = torch.from_numpy(A)
assert type(A) is np.ndarray and isinstance(B, torch.Tensor)
a = torch.tensor([3.5])
assert a.item() == 3.5 and float(a) == 3.5 and int(a) == 3

# 2.2 data preprocessing (the CSV with missing values, parsed without pandas)
data_file = os.path.join(tempfile.mkdtemp(), 'house_tiny.csv')
with open(data_file, 'w') as f:
    f.write('''NumRooms,RoofType,Price
NA,NA,127500
2,NA,106000
4,Slate,178100
NA,NA,140000''')
with open(data_file) as f:
    header, *rows = [line.strip().split(',') for line in f]
num_rooms = [float(r[0]) if r[0] != 'NA' else float('nan') for r in rows]
roof = [r[1] for r in rows]
price = [float(r[2]) for r in rows]
rooms = torch.tensor(num_rooms)
rooms = torch.where(torch.isnan(rooms), rooms.nanmean(), rooms)           # fillna(mean)
dummies = torch.tensor([[1.0 if v == 'Slate' else 0.0, 1.0 if v == 'NA' else 0.0] for v in roof])
X = torch.cat([rooms.unsqueeze(1), dummies], dim=1)
y = torch.tensor(price)
assert X.tolist() == [[3.0, 0.0, 1.0], [2.0, 0.0, 1.0], [4.0, 1.0, 0.0], [3.0, 0.0, 1.0]]
assert X.dtype == torch.float32 and y.shape == (4,)

# 2.3 linear algebra
x = torch.tensor(3.0)
y = torch.tensor(2.0)
assert (x + y, x * y, x / y, x ** y) == (torch.tensor(5.), torch.tensor(6.), torch.tensor(1.5), torch.tensor(9.))
x = torch.arange(3)
assert len(x) == 3 and x.shape == (3,) and x[2] == 2
A = torch.arange(6).reshape(3, 2)
assert A.T.shape == (2, 3)
A = torch.tensor([[1, 2, 3], [2, 0, 4], [3, 4, 5]])
assert (A == A.T).all()
torch.arange(24).reshape(2, 3, 4)
A = torch.arange(6, dtype=torch.float32).reshape(2, 3)
B = A.clone()  # Assign a copy of A to B by allocating new memory
assert torch.equal(A + B, 2 * A)
assert torch.equal(A * B, A ** 2)
a = 2
X = torch.arange(24).reshape(2, 3, 4)
assert (a + X).shape == (2, 3, 4) and (a * X).shape == (2, 3, 4)
x = torch.arange(3, dtype=torch.float32)
assert x.sum() == 3.0
assert A.shape == (2, 3) and A.sum() == 15.0
assert A.sum(axis=0).shape == (3,) and A.sum(axis=1).shape == (2,)
assert A.sum(axis=[0, 1]) == A.sum()
assert A.mean() == A.sum() / A.numel()
assert torch.equal(A.mean(axis=0), A.sum(axis=0) / A.shape[0])
sum_A = A.sum(axis=1, keepdims=True)
assert sum_A.shape == (2, 1)
assert torch.allclose(A / sum_A, torch.tensor([[0.0, 1 / 3, 2 / 3], [0.25, 1 / 3, 5 / 12]]))
assert A.cumsum(axis=0).tolist() == [[0., 1., 2.], [3., 5., 7.]]
y = torch.ones(3, dtype=torch.float32)
assert torch.dot(x, y) == 3.0 and torch.sum(x * y) == 3.0
assert A.shape == (2, 3) and x.shape == (3,)
assert torch.equal(torch.mv(A, x), A @ x)
B = torch.ones(3, 4)
assert torch.equal(torch.mm(A, B), A @ B)
u = torch.tensor([3.0, -4.0])
assert torch.norm(u) == 5.0 and torch.abs(u).sum() == 7.0
assert torch.norm(torch.ones((4, 9))) == 6.0

# 2.5 automatic differentiation
x = torch.arange(4.0)
x.requires_grad_(True)
assert x.grad is None
y = 2 * torch.dot(x, x)
y.backward()
assert torch.equal(x.grad, 4 * x)
x.grad.zero_()  # Reset the gradient
y = x.sum()
y.backward()
assert torch.equal(x.grad, torch.ones(4))
x.grad.zero_()
y = x * x
y.backward(gradient=torch.ones(len(y)))  # Faster: y.sum().backward()
assert torch.equal(x.grad, 2 * x)
x.grad.zero_()
y = x * x
u = y.detach()
z = u * x
z.sum().backward()
assert torch.equal(x.grad, u)
x.grad.zero_()
y.sum().backward()
assert torch.equal(x.grad, 2 * x)


def f(a):
    b = a * 2
    while b.norm() < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c


torch.manual_seed(0)
a = torch.randn(size=(), requires_grad=True)
d = f(a)
d.backward()
assert torch.allclose(a.grad, d / a)   # the book prints a.grad == d / a
