"""CS231n's spiral data set: points made with torch.linspace, sin/cos and noise, labels via
torch.full; a 2-layer net with F.relu, L2 regularisation added by hand (0.5 * reg * (W*W).sum())."""
import math
import torch
import torch.nn.functional as F

torch.manual_seed(0)
N, D, K = 60, 2, 3
X = torch.zeros(N * K, D)
y = torch.zeros(N * K, dtype=torch.long)
for j in range(K):
    r = torch.linspace(0.0, 1, N)
    t = torch.linspace(j * 4, (j + 1) * 4, N) + torch.randn(N) * 0.2
    X[j * N:(j + 1) * N] = torch.stack([r * torch.sin(t), r * torch.cos(t)], dim=1)
    y[j * N:(j + 1) * N] = torch.full((N,), j, dtype=torch.long)

h = 64
W = (0.5 * torch.randn(D, h)).requires_grad_()
b = torch.zeros(1, h, requires_grad=True)
W2 = (0.1 * torch.randn(h, K)).requires_grad_()
b2 = torch.zeros(1, K, requires_grad=True)
reg, step_size = 1e-3, 1.0
for i in range(500):
    hidden = F.relu(X @ W + b)
    scores = hidden @ W2 + b2
    data_loss = F.cross_entropy(scores, y)
    reg_loss = 0.5 * reg * (W * W).sum() + 0.5 * reg * (W2 * W2).sum()
    loss = data_loss + reg_loss
    for p in (W, b, W2, b2):
        p.grad = None
    loss.backward()
    with torch.no_grad():
        for p in (W, b, W2, b2):
            p -= step_size * p.grad
predicted_class = scores.argmax(dim=1)
acc = (predicted_class == y).float().mean().item()
print(f'training accuracy: {acc:.2f}')
assert acc > 0.85 and not math.isnan(loss.item())
