"""mrdbourke/pytorch-deep-learning, 00_pytorch_fundamentals.ipynb: the tour of tensors (scalar,
vector, MATRIX, TENSOR), random/zeros/ones/arange/like creation, dtypes, arithmetic, matmul and
its shape error, aggregation, argmax/argmin, type(), reshape/view/stack/squeeze/unsqueeze/permute,
indexing, numpy interop, reproducibility with manual_seed, device-agnostic code. The notebook
shows each cell's last value; here each is printed with repr, as Jupyter displays it."""
import random

import numpy as np
import torch

show = lambda *values: print(*(repr(v) for v in values))

scalar = torch.tensor(7)
show(scalar, scalar.ndim, scalar.item())
vector = torch.tensor([7, 7])
show(vector, vector.ndim, vector.shape)
MATRIX = torch.tensor([[7, 8],
                       [9, 10]])
show(MATRIX, MATRIX.ndim, MATRIX.shape, MATRIX[0], MATRIX[1])
TENSOR = torch.tensor([[[1, 2, 3],
                        [3, 6, 9],
                        [2, 4, 5]]])
show(TENSOR, TENSOR.ndim, TENSOR.shape, TENSOR[0])

torch.manual_seed(42)
random_tensor = torch.rand(size=(3, 4))
show((random_tensor, random_tensor.dtype))
random_image_size_tensor = torch.rand(size=(224, 224, 3))
show((random_image_size_tensor.shape, random_image_size_tensor.ndim))
zeros = torch.zeros(size=(3, 4))
show((zeros, zeros.dtype))
ones = torch.ones(size=(3, 4))
show((ones, ones.dtype))
zero_to_ten = torch.arange(start=0, end=10, step=1)
show(zero_to_ten)
ten_zeros = torch.zeros_like(input=zero_to_ten)
show(ten_zeros)

float_32_tensor = torch.tensor([3.0, 6.0, 9.0], dtype=None, device=None, requires_grad=False)
show((float_32_tensor.shape, float_32_tensor.dtype, float_32_tensor.device))
float_16_tensor = torch.tensor([3.0, 6.0, 9.0], dtype=torch.float16)
show(float_16_tensor.dtype, float_16_tensor)
show(float_16_tensor * float_32_tensor)
int_32_tensor = torch.tensor([3, 6, 9], dtype=torch.int32)
show(int_32_tensor, float_32_tensor * int_32_tensor)
show(torch.tensor([True, False]), torch.tensor([1.5], dtype=torch.float64))

some_tensor = torch.rand(3, 4)
print(some_tensor)
print(f"Shape of tensor: {some_tensor.shape}")
print(f"Datatype of tensor: {some_tensor.dtype}")
print(f"Device tensor is stored on: {some_tensor.device}")

tensor = torch.tensor([1, 2, 3])
show(tensor + 10, tensor * 10, tensor)
tensor = tensor - 10
show(tensor)
tensor = tensor + 10
show(tensor, torch.multiply(tensor, 10), torch.mul(tensor, 10), torch.add(tensor, 10))
print(tensor, "*", tensor)
print("Equals:", tensor * tensor)
show(tensor.shape, tensor * tensor, torch.matmul(tensor, tensor), tensor @ tensor)
value = 0
for i in range(len(tensor)):
    value += tensor[i] * tensor[i]
show(value)

tensor_A = torch.tensor([[1, 2],
                         [3, 4],
                         [5, 6]], dtype=torch.float32)
tensor_B = torch.tensor([[7, 10],
                         [8, 11],
                         [9, 12]], dtype=torch.float32)
try:
    torch.matmul(tensor_A, tensor_B)   # (this will error)
    raise AssertionError("matmul of 3x2 and 3x2 should fail")
except RuntimeError as e:
    print(type(e).__name__)
    assert "mat1 and mat2 shapes cannot be multiplied (3x2 and 3x2)" in str(e), str(e)
try:
    torch.mm(torch.rand(3, 2), torch.rand(3, 2))
except RuntimeError as e:
    assert "shapes cannot be multiplied" in str(e), str(e)
print(tensor_A)
print(tensor_B.T)
print(f"Original shapes: tensor_A = {tensor_A.shape}, tensor_B = {tensor_B.shape}\n")
print(f"New shapes: tensor_A = {tensor_A.shape} (same as above), tensor_B.T = {tensor_B.T.shape}\n")
print(f"Multiplying: {tensor_A.shape} * {tensor_B.T.shape} <- inner dimensions match\n")
output = torch.matmul(tensor_A, tensor_B.T)
print(output)
print(f"\nOutput shape: {output.shape}")
show(torch.mm(tensor_A, tensor_B.T), torch.transpose(tensor_B, 0, 1))

torch.manual_seed(42)
linear = torch.nn.Linear(in_features=2, out_features=6)
x = tensor_A
output = linear(x)
print(f"Input shape: {x.shape}\n")
print(f"Output:\n{output}\n\nOutput shape: {output.shape}")

x = torch.arange(0, 100, 10)
show(x)
print(f"Minimum: {x.min()}")
print(f"Maximum: {x.max()}")
try:
    x.mean()                            # this will error: long input
except RuntimeError as e:
    print(type(e).__name__)
    assert "mean(): could not infer output dtype" in str(e), str(e)
print(f"Mean: {x.type(torch.float32).mean()}")
print(f"Sum: {x.sum()}")
show((torch.max(x), torch.min(x), torch.mean(x.type(torch.float32)), torch.sum(x)))

tensor = torch.arange(10, 100, 10)
print(f"Tensor: {tensor}")
print(f"Index where max value occurs: {tensor.argmax()}")
print(f"Index where min value occurs: {tensor.argmin()}")
tensor = torch.arange(10., 100., 10.)
show(tensor.dtype)
tensor_float16 = tensor.type(torch.float16)
show(tensor_float16)
tensor_int8 = tensor.type(torch.int8)
show(tensor_int8)
show(tensor.type(torch.uint8), tensor.type(torch.bool), tensor.type(torch.float64))

x = torch.arange(1., 8.)
show((x, x.shape))
x_reshaped = x.reshape(1, 7)
show((x_reshaped, x_reshaped.shape))
z = x.view(1, 7)
show((z, z.shape))
z[:, 0] = 5
show((z, x))
x_stacked = torch.stack([x, x, x, x], dim=0)
show(x_stacked)
show(torch.stack([x, x], dim=1), torch.vstack([x, x]), torch.hstack([x, x]))
print(f"Previous tensor: {x_reshaped}")
print(f"Previous shape: {x_reshaped.shape}")
x_squeezed = x_reshaped.squeeze()
print(f"\nNew tensor: {x_squeezed}")
print(f"New shape: {x_squeezed.shape}")
x_unsqueezed = x_squeezed.unsqueeze(dim=0)
print(f"\nNew tensor: {x_unsqueezed}")
print(f"New shape: {x_unsqueezed.shape}")
x_original = torch.rand(size=(224, 224, 3))
x_permuted = x_original.permute(2, 0, 1)
print(f"Previous shape: {x_original.shape}")
print(f"New shape: {x_permuted.shape}")
x_original[0, 0, 0] = 728218
show((x_original[0, 0, 0], x_permuted[0, 0, 0]))

x = torch.arange(1, 10).reshape(1, 3, 3)
show((x, x.shape))
print(f"First square bracket:\n{x[0]}")
print(f"Second square bracket: {x[0][0]}")
print(f"Third square bracket: {x[0][0][0]}")
show(x[:, 0], x[:, :, 1], x[:, 1, 1], x[0, 0, :], x[0][2][2], x[:, :, 2])

array = np.arange(1.0, 8.0)
tensor = torch.from_numpy(array)
show((array, tensor))
show(torch.from_numpy(array).type(torch.float32))
array = array + 1
show((array, tensor))
tensor = torch.ones(7)
numpy_tensor = tensor.numpy()
show((tensor, numpy_tensor), numpy_tensor.dtype)
tensor = tensor + 1
show((tensor, numpy_tensor))

random_tensor_A = torch.rand(3, 4)
random_tensor_B = torch.rand(3, 4)
print(f"Tensor A:\n{random_tensor_A}\n")
print(f"Tensor B:\n{random_tensor_B}\n")
print("Does Tensor A equal Tensor B? (anywhere)")
show(random_tensor_A == random_tensor_B)
RANDOM_SEED = 42
torch.manual_seed(seed=RANDOM_SEED)
random_tensor_C = torch.rand(3, 4)
torch.random.manual_seed(seed=RANDOM_SEED)
random_tensor_D = torch.rand(3, 4)
print(f"Tensor C:\n{random_tensor_C}\n")
print(f"Tensor D:\n{random_tensor_D}\n")
print("Does Tensor C equal Tensor D? (anywhere)")
show(random_tensor_C == random_tensor_D)
random.seed(RANDOM_SEED)

show(torch.cuda.is_available())
device = "cuda" if torch.cuda.is_available() else "cpu"
show(device, torch.cuda.device_count(), torch.backends.mps.is_available())
if torch.cuda.is_available():
    device = "cuda"
elif torch.backends.mps.is_available():
    device = "mps"
else:
    device = "cpu"
tensor = torch.tensor([1, 2, 3])
print(tensor, tensor.device)
tensor_on_gpu = tensor.to(device)
show(tensor_on_gpu)
tensor_back_on_cpu = tensor_on_gpu.cpu().numpy()
show(tensor_back_on_cpu)
assert (random_tensor_C == random_tensor_D).all()
