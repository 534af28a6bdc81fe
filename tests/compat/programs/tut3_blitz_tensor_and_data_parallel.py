"""PyTorch "Deep Learning with PyTorch: A 60 Minute Blitz", parts "What is PyTorch?"
(beginner_source/blitz/tensor_tutorial.py) and "Optional: Data Parallelism"
(blitz/data_parallel_tutorial.py), on the cpu: torch.empty / rand / zeros(dtype=torch.long),
x.new_ones(5, 3, dtype=torch.double), torch.randn_like(x, dtype=torch.float), the four ways to
add (operator, torch.add, out=result, y.add_(x)), views with -1, .item(), the NumPy bridge in
both directions sharing memory (a.add_(1) shows in a.numpy(); np.add(a, 1, out=a) shows in
torch.from_numpy(a)); then the RandomDataset + DataLoader and the Model printing its input and
output sizes, wrapped in nn.DataParallel only when torch.cuda.device_count() > 1, model.to(device)."""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
x = torch.empty(5, 3)
print(x.shape)
assert x.shape == (5, 3) and x.dtype == torch.float32

x = torch.rand(5, 3)
print(x)
assert bool(((x >= 0) & (x < 1)).all())

x = torch.zeros(5, 3, dtype=torch.long)
print(x)
assert x.dtype == torch.int64 and int(x.abs().sum()) == 0

x = torch.tensor([5.5, 3])
print(x)
assert x.tolist() == [5.5, 3.0] and x.dtype == torch.float32

x = x.new_ones(5, 3, dtype=torch.double)      # new_* methods take in sizes
print(x)
assert x.dtype == torch.float64 and x.shape == (5, 3)

x = torch.randn_like(x, dtype=torch.float)    # override dtype!
print(x)                                      # result has the same size
assert x.dtype == torch.float32

print(x.size())
assert isinstance(x.size(), tuple) and x.size()[0] == 5 and len(x.size()) == 2

y = torch.rand(5, 3)
print(x + y)
print(torch.add(x, y))
result = torch.empty(5, 3)
torch.add(x, y, out=result)
print(result)
assert torch.equal(result, x + y) and torch.equal(torch.add(x, y), x + y)

# adds x to y
before = y.clone()
y.add_(x)
print(y)
assert torch.equal(y, before + x)

print(x[:, 1])
assert x[:, 1].shape == (5,)

x = torch.randn(4, 4)
y = x.view(16)
z = x.view(-1, 8)  # the size -1 is inferred from other dimensions
print(x.size(), y.size(), z.size())
assert (y.size(), z.size()) == ((16,), (2, 8))
x[0, 0] = 100.0
assert y[0].item() == 100.0 and z[0, 0].item() == 100.0   # views share memory

x = torch.randn(1)
print(x)
print(x.item())
assert isinstance(x.item(), float)

a = torch.ones(5)
print(a)
b = a.numpy()
print(b)
a.add_(1)
print(a)
print(b)
assert b.tolist() == [2.0] * 5

a = np.ones(5)
b = torch.from_numpy(a)
np.add(a, 1, out=a)
print(a)
print(b)
assert b.tolist() == [2.0] * 5 and b.dtype == torch.float64

# Data Parallelism
input_size = 5
output_size = 2

batch_size = 30
data_size = 100

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")


class RandomDataset(Dataset):

    def __init__(self, size, length):
        self.len = length
        self.data = torch.randn(length, size)

    def __getitem__(self, index):
        return self.data[index]

    def __len__(self):
        return self.len


rand_loader = DataLoader(dataset=RandomDataset(input_size, data_size),
                         batch_size=batch_size, shuffle=True)

seen = []


class Model(nn.Module):
    # Our model

    def __init__(self, input_size, output_size):
        super(Model, self).__init__()
        self.fc = nn.Linear(input_size, output_size)

    def forward(self, input):
        output = self.fc(input)
        print("\tIn Model: input size", input.size(),
              "output size", output.size())
        seen.append(tuple(input.size()))
        return output


model = Model(input_size, output_size)
if torch.cuda.device_count() > 1:
    print("Let's use", torch.cuda.device_count(), "GPUs!")
    # dim = 0 [30, xxx] -> [10, ...], [10, ...], [10, ...] on 3 GPUs
    model = nn.DataParallel(model)

model.to(device)

outside = []
for data in rand_loader:
    input = data.to(device)
    output = model(input)
    print("Outside: input size", input.size(),
          "output_size", output.size())
    outside.append((tuple(input.size()), tuple(output.size())))

assert outside == [((30, 5), (30, 2))] * 3 + [((10, 5), (10, 2))]
assert seen == [(30, 5)] * 3 + [(10, 5)]
