"""The same small regression trained with SGD (plain, momentum, nesterov), Adam, AdamW, RMSprop and
Adagrad; every optimizer lowers the loss, weight decay shrinks the weights."""
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)
X = torch.randn(128, 6)
Y = X @ torch.randn(6, 2) + 0.05 * torch.randn(128, 2)
makers = {
    'sgd': lambda p: optim.SGD(p, lr=0.05),
    'momentum': lambda p: optim.SGD(p, lr=0.05, momentum=0.9),
    'nesterov': lambda p: optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True),
    'adam': lambda p: optim.Adam(p, lr=0.05, betas=(0.9, 0.999), eps=1e-8),
    'adamw': lambda p: optim.AdamW(p, lr=0.05, weight_decay=0.01),
    'rmsprop': lambda p: optim.RMSprop(p, lr=0.02, alpha=0.99),
    'adagrad': lambda p: optim.Adagrad(p, lr=0.3),
}
final = {}
for name, make in makers.items():
    torch.manual_seed(1)
    model = nn.Linear(6, 2)
    optimizer = make(model.parameters())
    criterion = nn.MSELoss()
    first = criterion(model(X), Y).item()
    for step in range(60):
        optimizer.zero_grad()
        loss = criterion(model(X), Y)
        loss.backward()
        optimizer.step()
    final[name] = loss.item()
    assert final[name] < first / 3, (name, first, final[name])
print(final)

torch.manual_seed(2)
w_plain = nn.Parameter(torch.ones(5))
w_decay = nn.Parameter(torch.ones(5))
o1 = optim.SGD([w_plain], lr=0.1)
o2 = optim.SGD([w_decay], lr=0.1, weight_decay=0.5)
for _ in range(5):
    for w, o in ((w_plain, o1), (w_decay, o2)):
        o.zero_grad()
        (0 * w).sum().backward()
        o.step()
assert torch.equal(w_plain.data, torch.ones(5))
assert torch.allclose(w_decay.data, torch.full((5,), 0.95 ** 5))
