"""Early stopping on a validation set: keep copy.deepcopy(model.state_dict()) of the best epoch,
stop after `patience` epochs without improvement, reload the best weights at the end."""
import copy
import torch
import torch.nn as nn

torch.manual_seed(0)
X = torch.randn(60, 3)
y = X @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.3 * torch.randn(60, 1)
X_train, y_train, X_val, y_val = X[:40], y[:40], X[40:], y[40:]
model = nn.Sequential(nn.Linear(3, 64), nn.ReLU(), nn.Linear(64, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
criterion = nn.MSELoss()
best_loss, best_state, best_epoch, patience, bad = float('inf'), None, -1, 5, 0
for epoch in range(200):
    model.train()
    optimizer.zero_grad()
    criterion(model(X_train), y_train).backward()
    optimizer.step()
    model.eval()
    with torch.no_grad():
        val_loss = criterion(model(X_val), y_val).item()
    if val_loss < best_loss:
        best_loss, best_epoch, bad = val_loss, epoch, 0
        best_state = copy.deepcopy(model.state_dict())
    else:
        bad += 1
        if bad >= patience:
            break
model.load_state_dict(best_state)
with torch.no_grad():
    assert abs(criterion(model(X_val), y_val).item() - best_loss) < 1e-6
assert best_epoch < epoch
assert best_state['0.weight'] is not model.state_dict()['0.weight']
