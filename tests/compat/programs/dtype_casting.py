"""dtypes as programs meet them: torch.tensor infers int64/float32/bool, .float()/.long()/.double(),
.to(torch.float64), type promotion int + float, integer division and comparisons giving bool."""
import torch

i = torch.tensor([1, 2, 3])
f = torch.tensor([1.0, 2.0])
b = torch.tensor([True, False])
assert (i.dtype, f.dtype, b.dtype) == (torch.int64, torch.float32, torch.bool)
assert torch.get_default_dtype() == torch.float32
assert i.float().dtype == torch.float32 and f.long().dtype == torch.int64
assert f.double().dtype == torch.float64 and f.to(torch.float64).dtype == torch.float64
assert (i + 1.5).dtype == torch.float32 and (i * 2).dtype == torch.int64
assert (i / 2).dtype == torch.float32 and (i > 1).dtype == torch.bool
assert (i // 2).tolist() == [0, 1, 1]
assert torch.zeros(2, dtype=torch.long).dtype == torch.int64
assert torch.ones(2).to(i.dtype).dtype == torch.int64
x = torch.randn(3, dtype=torch.float64)
assert (x * f.new_ones(3)).dtype == torch.float64
assert i.sum().dtype == torch.int64 and b.sum().item() == 1
assert f.is_floating_point() and not i.is_floating_point()
assert torch.tensor(3.5).int().item() == 3
assert i.float().mean().item() == 2.0
