"""Tensors, first steps (as in the 60-minute blitz): creation, shapes, dtypes, indexing, numpy."""
import numpy as np
import torch

data = [[1, 2], [3, 4]]
x_data = torch.tensor(data)
assert x_data.dtype == torch.int64 and x_data.shape == torch.Size([2, 2])

np_array = np.array(data)
x_np = torch.from_numpy(np_array)
np.multiply(np_array, 2, out=np_array)          # from_numpy shares memory
assert x_np[1, 1].item() == 8

x_ones = torch.ones_like(x_data)
x_rand = torch.rand_like(x_data, dtype=torch.float)
assert x_ones.sum().item() == 4 and x_rand.dtype == torch.float32

shape = (2, 3,)
rand_tensor, ones_tensor, zeros_tensor = torch.rand(shape), torch.ones(shape), torch.zeros(shape)
assert rand_tensor.shape == ones_tensor.shape == zeros_tensor.shape == (2, 3)

tensor = torch.ones(4, 4)
tensor[:, 1] = 0
assert tensor[0].tolist() == [1, 0, 1, 1] and tensor[..., -1].sum() == 4
t1 = torch.cat([tensor, tensor, tensor], dim=1)
assert t1.shape == (4, 12)

y1 = tensor @ tensor.T
y2 = tensor.matmul(tensor.T)
z1 = tensor * tensor
z2 = tensor.mul(tensor)
assert torch.equal(y1, y2) and torch.equal(z1, z2)
agg = tensor.sum()
agg_item = agg.item()
assert isinstance(agg_item, float) and agg_item == 12.0

tensor.add_(5)
assert tensor[0, 0] == 6
n = tensor.numpy()
tensor.add_(1)
assert n[0, 0] == 7                              # .numpy() shares memory with the tensor
print("ok")
