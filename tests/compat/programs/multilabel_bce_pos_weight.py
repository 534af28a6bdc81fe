"""Multi-label classification: BCEWithLogitsLoss(pos_weight=...) on float 0/1 targets, predictions
by thresholding torch.sigmoid, and the loss checked against the formula."""
import torch
import torch.nn as nn

torch.manual_seed(0)
X = torch.randn(120, 8)
W_true = torch.randn(8, 3)
Y = (X @ W_true > 0.5).float()
pos_weight = (Y.shape[0] - Y.sum(0)) / Y.sum(0)
criterion = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
logits = torch.randn(4, 3)
t = Y[:4]
by_hand = -(pos_weight * t * torch.log(torch.sigmoid(logits))
            + (1 - t) * torch.log(1 - torch.sigmoid(logits))).mean()
assert torch.allclose(criterion(logits, t), by_hand, atol=1e-5)

model = nn.Linear(8, 3)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
for _ in range(100):
    opt.zero_grad()
    loss = criterion(model(X), Y)
    loss.backward()
    opt.step()
pred = (torch.sigmoid(model(X)) > 0.5).float()
exact_match = (pred == Y).all(dim=1).float().mean().item()
assert exact_match > 0.7, exact_match
