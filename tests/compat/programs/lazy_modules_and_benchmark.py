"""A textbook-style model built from lazy modules (sizes inferred from a dry run), timed with
torch.utils.benchmark, plus the small functions such programs use along the way."""
import torch
import torch.nn as nn
import torch.utils.benchmark as benchmark
from torch.nn.modules.linear import Linear

torch.manual_seed(0)
net = nn.Sequential(nn.LazyConv2d(6, kernel_size=5, padding=2), nn.LazyBatchNorm2d(), nn.ReLU(),
                    nn.Flatten(), nn.LazyLinear(10))
print(net[0], net[1], net[4], sep="\n")
assert all(p.__class__.__name__ == "UninitializedParameter" for p in net[0].parameters())
X = torch.zeros(2, 1, 8, 8)
net(X)                                         # the dry run
print(net[0], net[1], net[4], sep="\n")
assert isinstance(net[4], Linear) and net[4].in_features == 6 * 8 * 8
print({k: tuple(v.shape) for k, v in net.state_dict().items()})

clone = nn.Sequential(nn.LazyConv2d(6, kernel_size=5, padding=2), nn.LazyBatchNorm2d(),
                      nn.ReLU(), nn.Flatten(), nn.LazyLinear(10))
clone.load_state_dict(net.state_dict())        # lazy modules take the checkpoint's shapes
net.eval(), clone.eval()
x = torch.randn(3, 1, 8, 8)
assert torch.allclose(net(x), clone(x))

a, b = torch.tensor([[1.0, 5.0], [3.0, 2.0]]), torch.tensor([[2.0, 1.0], [0.0, 4.0]])
print(torch.max(a, b), torch.min(a, b), torch.log10(a + 9), sep="\n")
print(torch.repeat_interleave(torch.tensor([1, 2, 3])), a.diagonal(), a.argmax(axis=1))
hist, edges = torch.histogram(a, bins=4)
print(hist, edges, torch.all(a > 0), torch.any(a > 4), a.sum(1, keepdims=True))

t = benchmark.Timer("net(x)", globals={"net": net, "x": x}, label="lazy net",
                    sub_label="forward", description="batch 3")
m = t.blocked_autorange(min_run_time=0.05)
assert m.median > 0 and m.number_per_run >= 1
text = str(benchmark.Compare([m, t.timeit(10)]))
assert text.startswith("[") and "lazy net" in text and "forward" in text and "batch 3" in text
print("timed", len(m.times) > 0)
