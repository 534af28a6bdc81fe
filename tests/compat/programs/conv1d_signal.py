"""1-D convolutions on signals: nn.Conv1d(in, out, kernel_size, padding), MaxPool1d, a moving average
as a fixed conv1d kernel compared with a hand-written sliding mean, and a small 1-D classifier."""
import torch
import torch.nn as nn
import torch.nn.functional as F

signal = torch.arange(10.).view(1, 1, 10)
kernel = torch.ones(1, 1, 3) / 3
avg = F.conv1d(signal, kernel)
by_hand = torch.stack([signal[0, 0, i:i + 3].mean() for i in range(8)])
assert torch.allclose(avg.view(-1), by_hand)

torch.manual_seed(0)
t = torch.linspace(0, 1, 32)
x = torch.stack([torch.sin(2 * 3.14159 * f * t) for f in [1, 4] * 16]).unsqueeze(1)
y = torch.tensor([0, 1] * 16)
model = nn.Sequential(nn.Conv1d(1, 4, kernel_size=5, padding=2), nn.ReLU(), nn.MaxPool1d(2),
                      nn.Flatten(), nn.Linear(4 * 16, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for _ in range(30):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
assert (model(x).argmax(1) == y).all()
