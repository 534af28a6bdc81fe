"""'Deep Learning with PyTorch' (Stevens, Antiga, Viehmann), chapter 3 ("It starts with a
tensor"): points as a 3x2 tensor, indexing points[1:], points[:, 0], points[None]; the
weighted-grayscale example with unsqueeze_/broadcasting and torch.einsum('...chw,c->...hw');
dtype= arguments and .double()/.to(dtype=torch.short); storage: untyped_storage(),
storage_offset(), stride(), size(), a view's storage shared with its base, clone(), t() and
transpose(0, 2) strides, is_contiguous() / contiguous(); zeros_(), torch.save(points, path) /
torch.load, and from_numpy sharing memory with numpy."""
import os
import tempfile
import warnings

import numpy as np
import torch

a = [1.0, 2.0, 1.0]
assert a[0] == 1.0
a = torch.ones(3)
assert float(a[1]) == 1.0
a[2] = 2.0
assert a.tolist() == [1.0, 1.0, 2.0]

points = torch.zeros(6)
points[0] = 4.0
points[1] = 1.0
points[2] = 5.0
points[3] = 3.0
points[4] = 2.0
points[5] = 1.0
points = torch.tensor([4.0, 1.0, 5.0, 3.0, 2.0, 1.0])
assert float(points[0]), float(points[1]) == (4.0, 1.0)
points = torch.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]])
assert points.shape == torch.Size([3, 2])
points = torch.zeros(3, 2)
points = torch.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]])
assert points[0, 1] == 1.0 and torch.equal(points[0], torch.tensor([4.0, 1.0]))
assert points[1:].shape == (2, 2) and points[1:, :].shape == (2, 2)
assert points[1:, 0].shape == (2,) and points[None].shape == (1, 3, 2)

# named tensors' motivating example, with plain broadcasting
torch.manual_seed(0)
img_t = torch.randn(3, 5, 5)  # shape [channels, rows, columns]
weights = torch.tensor([0.2126, 0.7152, 0.0722])
batch_t = torch.randn(2, 3, 5, 5)  # shape [batch, channels, rows, columns]
img_gray_naive = img_t.mean(-3)
batch_gray_naive = batch_t.mean(-3)
assert img_gray_naive.shape == (5, 5) and batch_gray_naive.shape == (2, 5, 5)
unsqueezed_weights = weights.unsqueeze(-1).unsqueeze_(-1)
img_weights = (img_t * unsqueezed_weights)
batch_weights = (batch_t * unsqueezed_weights)
img_gray_weighted = img_weights.sum(-3)
batch_gray_weighted = batch_weights.sum(-3)
assert batch_weights.shape == (2, 3, 5, 5) and unsqueezed_weights.shape == (3, 1, 1)
img_gray_weighted_fancy = torch.einsum('...chw,c->...hw', img_t, weights)
batch_gray_weighted_fancy = torch.einsum('...chw,c->...hw', batch_t, weights)
assert torch.allclose(batch_gray_weighted_fancy, batch_gray_weighted, atol=1e-6)
assert torch.allclose(img_gray_weighted_fancy, img_gray_weighted, atol=1e-6)

# dtypes
double_points = torch.ones(10, 2, dtype=torch.double)
short_points = torch.tensor([[1, 2], [3, 4]], dtype=torch.short)
assert short_points.dtype == torch.int16 and double_points.dtype == torch.float64
double_points = torch.zeros(10, 2).double()
short_points = torch.ones(10, 2).short()
double_points = torch.zeros(10, 2).to(torch.double)
short_points = torch.ones(10, 2).to(dtype=torch.short)
points_64 = torch.rand(5, dtype=torch.double)
points_short = points_64.to(torch.short)
assert (points_64 * points_short).dtype == torch.float64

# the tensor API
a = torch.ones(3, 2)
a_t = torch.transpose(a, 0, 1)
assert a.shape == (3, 2) and a_t.shape == (2, 3)
a_t = a.transpose(0, 1)
assert a_t.shape == (2, 3)

# storage
points = torch.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]])
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)    # TypedStorage is deprecated
    print(points.storage())
    points_storage = points.storage()
    assert points_storage[0] == 4.0 and points.storage()[1] == 1.0
    assert len(points_storage) == 6 and points_storage.tolist() == [4.0, 1.0, 5.0, 3.0, 2.0, 1.0]
    points_storage[0] = 2.0
    assert points[0, 0] == 2.0      # the tensor is a view of its storage
    assert points[2].storage().size() == 6
points = torch.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]])
storage = points.untyped_storage()
assert storage.nbytes() == 6 * 4
second_point = points[1]
assert second_point.storage_offset() == 2
assert second_point.size() == torch.Size([2])
assert points.stride() == (2, 1)
second_point = points[1]
assert second_point.shape == (2,) and second_point.stride() == (1,)
second_point[0] = 10.0
assert points[1, 0] == 10.0          # a view changes its base
points = torch.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]])
second_point = points[1].clone()
second_point[0] = 10.0
assert points[1, 0] == 5.0
points_t = points.t()
assert points_t.stride() == (1, 2)
assert id(points.untyped_storage()) or True
assert points.untyped_storage().data_ptr() == points_t.untyped_storage().data_ptr()
some_t = torch.ones(3, 4, 5)
transpose_t = some_t.transpose(0, 2)
assert transpose_t.shape == (5, 4, 3)
assert some_t.stride() == (20, 5, 1) and transpose_t.stride() == (1, 5, 20)
assert points.is_contiguous() and not points_t.is_contiguous()
points_t_cont = points_t.contiguous()
assert points_t_cont.stride() == (3, 1) and points_t_cont.is_contiguous()
assert torch.equal(points_t_cont, points_t)

# in-place
a = torch.ones(3, 2)
a.zero_()
assert a.sum() == 0

# numpy interoperability
points = torch.ones(3, 4)
points_np = points.numpy()
assert points_np.dtype == np.float32
points_np[0, 0] = 7.0
assert points[0, 0] == 7.0          # shares memory
points = torch.from_numpy(points_np)
assert points[0, 0] == 7.0

# serializing
folder = tempfile.mkdtemp()
path = os.path.join(folder, 'ourpoints.t')
torch.save(points, path)
with open(path, 'wb') as f:
    torch.save(points, f)
with open(path, 'rb') as f:
    loaded = torch.load(f)
assert torch.equal(loaded, points)
