"""Stanford CS336 (Spring 2025) assignment 2 (systems), the mixed-precision part: the handout's
accumulation snippet (float32 / float16 sums of 0.01), its ToyModel whose intermediate dtypes
the students report under autocast, and the benchmarking script's pattern of choosing
`torch.autocast(device_type=..., dtype=torch.bfloat16)` or `contextlib.nullcontext()`,
timing forward/backward with timeit.default_timer after warm-up steps (torch.cuda.synchronize()
only when CUDA is there). Run on the CPU with bfloat16 (and float16) autocast.

APIs: torch.tensor(0, dtype=torch.float16) accumulation with +=, x.type(torch.float32),
torch.autocast(device_type="cpu", dtype=...), the CPU autocast dtype rules (linear / matmul in
the low type, layer_norm / softmax following their input on the CPU, cross_entropy and
mse_loss in float32), float32 parameters and gradients, nullcontext, torch.cuda.is_available.
"""
import timeit
from contextlib import nullcontext

import torch
import torch.nn as nn
import torch.nn.functional as F

# --- accumulation: the four variants of the handout ---
s = torch.tensor(0, dtype=torch.float32)
for i in range(1000):
    s += torch.tensor(0.01, dtype=torch.float32)
acc32 = s.item()
s = torch.tensor(0, dtype=torch.float16)
for i in range(1000):
    s += torch.tensor(0.01, dtype=torch.float16)
acc16 = s
s = torch.tensor(0, dtype=torch.float32)
for i in range(1000):
    s += torch.tensor(0.01, dtype=torch.float16)
acc_mixed = s
s = torch.tensor(0, dtype=torch.float32)
for i in range(1000):
    x = torch.tensor(0.01, dtype=torch.float16)
    s += x.type(torch.float32)
acc_cast = s
print(acc32, acc16, acc_mixed, acc_cast)
assert abs(acc32 - 10.0) < 1e-3
assert acc16.dtype == torch.float16 and acc16.item() == 9.953125     # float16 rounding drift
assert acc_mixed.dtype == torch.float32 and abs(acc_mixed.item() - 10.0021) < 1e-3
assert acc_cast.dtype == torch.float32 and abs(acc_cast.item() - acc_mixed.item()) < 1e-6


class ToyModel(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.fc1 = nn.Linear(in_features, 10, bias=False)
        self.ln = nn.LayerNorm(10)
        self.fc2 = nn.Linear(10, out_features, bias=False)
        self.relu = nn.ReLU()
        self.seen = {}

    def forward(self, x):
        x = self.relu(self.fc1(x))
        self.seen["fc1"] = x.dtype
        x = self.ln(x)
        self.seen["ln"] = x.dtype
        x = self.fc2(x)
        self.seen["logits"] = x.dtype
        return x


torch.manual_seed(0)
for low in (torch.bfloat16, torch.float16):
    model = ToyModel(5, 3)
    x = torch.randn(8, 5)
    y = torch.randint(0, 3, (8,))
    with torch.autocast(device_type="cpu", dtype=low):
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        assert model.fc1.weight.dtype == torch.float32       # parameters stay float32
        assert model.seen == {"fc1": low, "ln": low, "logits": low}, model.seen
        assert loss.dtype == torch.float32
        assert F.mse_loss(logits, torch.zeros(8, 3)).dtype == torch.float32
        assert torch.softmax(logits, -1).dtype == low and (logits @ logits.T).dtype == low
        assert logits.float().sum().dtype == torch.float32
    loss.backward()
    assert model.fc1.weight.grad.dtype == torch.float32 and model.ln.weight.grad.dtype == torch.float32
    assert (model(x)).dtype == torch.float32              # outside the context: float32 again


# --- the benchmarking script's pattern ---
def benchmark(model, batch, targets, warmup_steps, measure_steps, mixed_precision, device="cpu"):
    ctx = torch.autocast(device_type=device, dtype=torch.bfloat16) if mixed_precision else nullcontext()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    times, losses = [], []
    for step in range(warmup_steps + measure_steps):
        start = timeit.default_timer()
        with ctx:
            logits = model(batch)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        if step >= warmup_steps:
            times.append(timeit.default_timer() - start)
        losses.append(loss.item())
    return times, losses


lm = nn.Sequential(nn.Embedding(16, 32), nn.Linear(32, 64), nn.GELU(), nn.LayerNorm(64), nn.Linear(64, 16))
batch = torch.randint(0, 16, (4, 12))
targets = (batch + 1) % 16
for mixed in (False, True):
    times, losses = benchmark(lm, batch, targets, warmup_steps=2, measure_steps=10, mixed_precision=mixed)
    assert len(times) == 10 and all(t >= 0 for t in times)
    assert losses[-1] < losses[0], losses
    assert all(p.dtype == torch.float32 for p in lm.parameters())
print("cs336 a2 mixed precision ok", losses[0], losses[-1])
