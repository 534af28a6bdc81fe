"""Binary logistic regression: nn.Linear(2, 1), BCEWithLogitsLoss, (torch.sigmoid(logits) > 0.5)
as predictions, accuracy with .float().mean()."""
import torch
import torch.nn as nn

torch.manual_seed(0)
n = 200
X = torch.randn(n, 2)
y = (X[:, 0] + 2 * X[:, 1] > 0).float().unsqueeze(1)
model = nn.Linear(2, 1)
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
for epoch in range(100):
    logits = model(X)
    loss = criterion(logits, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
with torch.no_grad():
    preds = (torch.sigmoid(model(X)) > 0.5).float()
    acc = (preds == y).float().mean().item()
print(f"accuracy {acc:.3f}, w = {model.weight.data}, b = {model.bias.item():.3f}")
assert acc > 0.95 and preds.shape == (n, 1)
w = model.weight.detach().squeeze()
assert w[1] > w[0] > 0
