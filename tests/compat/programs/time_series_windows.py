"""Time-series forecasting with sliding windows: x.unfold(0, window, 1) to make (input, next value)
pairs from a noisy sine, a train/test split in time order, an MLP, and a rolled-out forecast."""
import math
import torch
import torch.nn as nn

torch.manual_seed(0)
t = torch.arange(0, 400, dtype=torch.float32)
series = torch.sin(2 * math.pi * t / 50) + 0.05 * torch.randn(400)
window = 20
windows = series.unfold(0, window + 1, 1)
assert windows.shape == (400 - window, window + 1)
assert torch.equal(windows[5], series[5:5 + window + 1])
X, y = windows[:, :-1], windows[:, -1:]
split = int(0.8 * len(X))
X_train, y_train, X_test, y_test = X[:split], y[:split], X[split:], y[split:]
model = nn.Sequential(nn.Linear(window, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(200):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(X_train), y_train)
    loss.backward()
    opt.step()
model.eval()
with torch.no_grad():
    test_mse = nn.functional.mse_loss(model(X_test), y_test).item()
    history = X_test[0].clone()
    preds = []
    for _ in range(10):
        nxt = model(history.unsqueeze(0)).squeeze()
        preds.append(nxt.item())
        history = torch.cat([history[1:], nxt.view(1)])
print("test mse", test_mse)
assert test_mse < 0.02
assert max(abs(p - v) for p, v in zip(preds, series[split + window:split + window + 10])) < 0.3
