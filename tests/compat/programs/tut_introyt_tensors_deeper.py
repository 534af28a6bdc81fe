"""PyTorch "Introduction to PyTorch" YouTube series, "Introduction to PyTorch Tensors"
(beginner_source/introyt/tensors_deeper_tutorial.py) with the Learn-the-Basics tensor tutorial
(tensorqs_tutorial.py): torch.empty/zeros/ones/rand after torch.manual_seed(1729), *_like
factories, torch.tensor from tuples and nested lists, dtype=torch.int16/float64 and .to(torch.int32),
arithmetic with powers_of_two = ones * 2 ** torch.tensor([[1, 2, 3, 4]]) style broadcasting,
torch.abs/ceil/floor/clamp, trig, bitwise ops on ints, torch.eq and torch.any/all,
torch.max/mean/std/prod/unique, torch.svd and torch.det via linalg, torch.linalg.cross, in-place
ops and out= (torch.matmul(a, b, out=c) keeps c's id), clone vs assignment, requires_grad with
clone and detach, unsqueeze/squeeze/unsqueeze_, reshape, and numpy bridges (np.add(n, 1, out=n)
shows through torch.from_numpy)."""
import math

import numpy as np
import torch

x = torch.empty(3, 4)
assert type(x) is torch.Tensor and x.shape == (3, 4)
zeros = torch.zeros(2, 3)
ones = torch.ones(2, 3)
torch.manual_seed(1729)
random = torch.rand(2, 3)
torch.manual_seed(1729)
random1 = torch.rand(2, 3)
random2 = torch.rand(2, 3)
torch.manual_seed(1729)
random3 = torch.rand(2, 3)
random4 = torch.rand(2, 3)
assert torch.equal(random1, random3) and torch.equal(random2, random4)
assert not torch.equal(random1, random2)

x = torch.empty(2, 2, 3)
empty_like_x = torch.empty_like(x)
zeros_like_x = torch.zeros_like(x)
ones_like_x = torch.ones_like(x)
rand_like_x = torch.rand_like(x)
assert empty_like_x.shape == zeros_like_x.shape == rand_like_x.shape == (2, 2, 3)
some_constants = torch.tensor([[3.1415926, 2.71828], [1.61803, 0.0072897]])
some_integers = torch.tensor((2, 3, 5, 7, 11, 13, 17, 19))
more_integers = torch.tensor(((2, 4, 6), [3, 6, 9]))
assert some_integers.dtype == torch.int64 and more_integers.shape == (2, 3)
a = torch.ones((2, 3), dtype=torch.int16)
b = torch.rand((2, 3), dtype=torch.float64) * 20.
c = b.to(torch.int32)
assert a.dtype == torch.int16 and c.dtype == torch.int32 and (c <= b).all()

# math and logic
ones = torch.zeros(2, 2) + 1
twos = torch.ones(2, 2) * 2
threes = (torch.ones(2, 2) * 7 - 1) / 2
fours = twos ** 2
sqrt2s = twos ** 0.5
assert torch.equal(threes, torch.full((2, 2), 3.0)) and torch.equal(fours, torch.full((2, 2), 4.0))
powers2 = twos ** torch.tensor([[1, 2], [3, 4]])
assert powers2.tolist() == [[2., 4.], [8., 16.]]
fives = ones + fours
dozens = threes * fours
try:
    torch.rand(2, 3) + torch.rand(3, 2)
    raise AssertionError("shapes (2, 3) and (3, 2) do not broadcast")
except RuntimeError as e:
    print(e)
rand = torch.rand(2, 4)
doubled = rand * (torch.ones(1, 4) * 2)
assert torch.equal(doubled, rand * 2)
a = torch.ones(4, 3, 2)
b = a * torch.rand(3, 2)   # 3rd & 2nd dims identical to a, dim 1 absent
c = a * torch.rand(3, 1)   # 3rd dim = 1, 2nd dim identical to a
d = a * torch.rand(1, 2)   # 3rd dim identical to a, 2nd dim = 1
assert b.shape == c.shape == d.shape == (4, 3, 2)

a = torch.rand(2, 4) * 2 - 1
assert torch.equal(torch.abs(a), a.abs())
assert torch.equal(torch.ceil(a), a.ceil()) and torch.equal(torch.floor(a), a.floor())
assert torch.clamp(a, -0.5, 0.5).abs().max() <= 0.5
angles = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
sines = torch.sin(angles)
inverses = torch.asin(sines)
assert torch.allclose(inverses, torch.tensor([0, math.pi / 4, math.pi / 2, math.pi / 4]), atol=1e-6)
b = torch.tensor([1, 5, 11])
c = torch.tensor([2, 7, 10])
assert torch.bitwise_xor(b, c).tolist() == [3, 2, 1]
d = torch.tensor([[1., 2.], [3., 4.]])
e = torch.ones(1, 2)  # many comparison ops support broadcasting!
assert torch.eq(d, e).tolist() == [[True, False], [False, False]]
assert torch.max(d) == 4 and torch.max(d).item() == 4.0
assert torch.mean(d) == 2.5 and torch.allclose(torch.std(d), torch.tensor(1.2910), atol=1e-4)
assert torch.prod(d) == 24 and torch.unique(torch.tensor([1, 2, 1, 2, 1, 2])).tolist() == [1, 2]
v1 = torch.tensor([1., 0., 0.])  # x unit vector
v2 = torch.tensor([0., 1., 0.])  # y unit vector
m1 = torch.rand(2, 2)  # random matrix
m2 = torch.tensor([[3., 0.], [0., 3.]])  # three times identity matrix
assert torch.equal(torch.linalg.cross(v2, v1), torch.tensor([0., 0., -1.]))
m3 = torch.linalg.matmul(m1, m2)
assert torch.allclose(m3, m1 * 3)
U, S, Vh = torch.linalg.svd(m3)
assert torch.allclose(U @ torch.diag(S) @ Vh, m3, atol=1e-5)
assert torch.allclose(torch.det(m2), torch.tensor(9.0))

# altering tensors in place, out=
a = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
print(torch.sin(a))   # this operation creates a new tensor in memory
assert a[1] == math.pi / 4   # a has not changed
b = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
print(torch.sin_(b))  # note the underscore
assert b[2] == 1.0
a = torch.ones(2, 2)
b = torch.rand(2, 2)
a.add_(b)
b.mul_(b)
a = torch.rand(2, 2)
b = torch.rand(2, 2)
c = torch.zeros(2, 2)
old_id = id(c)
d = torch.matmul(a, b, out=c)
assert id(c) == old_id and c is d and torch.allclose(c, a @ b)
torch.rand(2, 2, out=c)  # works for creation too!
assert id(c) == old_id

# copying tensors
a = torch.ones(2, 2)
b = a
a[0][1] = 561  # we change a...
assert b[0][1] == 561  # ...and b is also altered
a = torch.ones(2, 2)
b = a.clone()
assert b is not a and torch.eq(a, b).all()
a[0][1] = 561
assert b[0][1] == 1
a = torch.rand(2, 2, requires_grad=True)
b = a.clone()
c = a.detach().clone()
assert b.requires_grad and b.grad_fn is not None and not c.requires_grad

# manipulating shapes
a = torch.rand(3, 226, 226)
b = a.unsqueeze(0)
assert a.shape == (3, 226, 226) and b.shape == (1, 3, 226, 226)
c = torch.rand(1, 1, 1, 1, 1)
assert c.shape == (1, 1, 1, 1, 1)
a = torch.rand(1, 20)
b = a.squeeze(0)
c = torch.rand(2, 2)
d = c.squeeze(0)
assert b.shape == (20,) and d.shape == (2, 2)
a = torch.ones(4, 3, 2)
c = a * torch.rand(3, 1)
b = torch.rand(3)     # trying to multiply a * b will give a runtime error
c = b.unsqueeze(1)    # change to a 2-dimensional tensor, adding new dim at the end
assert (a * c).shape == (4, 3, 2)
batch_me = torch.rand(3, 226, 226)
batch_me.unsqueeze_(0)
assert batch_me.shape == (1, 3, 226, 226)
output3d = torch.rand(6, 20, 20)
input1d = output3d.reshape(6 * 20 * 20)
assert input1d.shape == (2400,)
assert torch.reshape(output3d, (6 * 20 * 20,)).shape == (2400,)

# numpy bridge
numpy_array = np.ones((2, 3))
pytorch_tensor = torch.from_numpy(numpy_array)
assert pytorch_tensor.dtype == torch.float64
pytorch_rand = torch.rand(2, 3)
numpy_rand = pytorch_rand.numpy()
numpy_array[1, 1] = 23
assert pytorch_tensor[1, 1] == 23
pytorch_rand[1, 1] = 17
assert numpy_rand[1, 1] == 17
n = np.ones(5)
t = torch.from_numpy(n)
np.add(n, 1, out=n)
assert t.tolist() == [2.0] * 5
t = torch.ones(5)
n = t.numpy()
t.add_(1)
assert n.tolist() == [2.0] * 5
# tensorqs: the matmul/mul out= forms and .T
tensor = torch.ones(4, 4)
tensor[:, 1] = 0
y1 = tensor @ tensor.T
y2 = tensor.matmul(tensor.T)
y3 = torch.rand_like(y1)
torch.matmul(tensor, tensor.T, out=y3)
z1 = tensor * tensor
z2 = tensor.mul(tensor)
z3 = torch.rand_like(tensor)
torch.mul(tensor, tensor, out=z3)
assert torch.equal(y1, y3) and torch.equal(z1, z3)
agg = tensor.sum()
agg_item = agg.item()
assert agg_item == 12.0 and type(agg_item) is float
t1 = torch.cat([tensor, tensor, tensor], dim=1)
assert t1.shape == (4, 12)
