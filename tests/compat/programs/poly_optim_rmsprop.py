"""The cubic fit with torch.optim.RMSprop and optimizer.zero_grad()/step()."""
import math
import torch

x = torch.linspace(-math.pi, math.pi, 500)
y = torch.sin(x)
xx = x.unsqueeze(-1).pow(torch.tensor([1, 2, 3]))
torch.manual_seed(3)
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
loss_fn = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
start = None
for t in range(300):
    loss = loss_fn(model(xx), y)
    start = loss.item() if start is None else start
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
assert loss.item() < start / 2, (start, loss.item())
