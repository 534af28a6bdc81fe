"""makemore part 2 (Bengio MLP): embedding table C[X], emb.view(-1, 30), tanh layer, F.cross_entropy,
minibatches ix = torch.randint(0, X.shape[0], (32,), generator=g), p.data += -lr * p.grad."""
import random
import torch
import torch.nn.functional as F

words = ["emma", "olivia", "ava", "isabella", "sophia", "mia", "amelia", "harper", "evelyn",
         "abigail", "emily", "elizabeth", "mila", "ella", "avery", "sofia", "camila", "aria"]
chars = sorted(list(set(''.join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi['.'] = 0
V = len(stoi)
block_size = 3


def build_dataset(words):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + '.':
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]
    return torch.tensor(X), torch.tensor(Y)


random.seed(42)
random.shuffle(words)
Xtr, Ytr = build_dataset(words)
assert Xtr.shape[1] == block_size and Xtr.dtype == torch.int64

g = torch.Generator().manual_seed(2147483647)
C = torch.randn((V, 10), generator=g)
W1 = torch.randn((30, 64), generator=g) * 0.2
b1 = torch.randn(64, generator=g) * 0.01
W2 = torch.randn((64, V), generator=g) * 0.1
b2 = torch.randn(V, generator=g) * 0
parameters = [C, W1, b1, W2, b2]
print(sum(p.nelement() for p in parameters))
for p in parameters:
    p.requires_grad = True

lre = torch.linspace(-3, 0, 1000)
lrs = 10 ** lre
assert abs(lrs[-1].item() - 1.0) < 1e-6

for i in range(400):
    ix = torch.randint(0, Xtr.shape[0], (32,), generator=g)
    emb = C[Xtr[ix]]
    h = torch.tanh(emb.view(-1, 30) @ W1 + b1)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Ytr[ix])
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = 0.1 if i < 300 else 0.01
    for p in parameters:
        p.data += -lr * p.grad

with torch.no_grad():
    emb = C[Xtr]
    assert emb.shape == (Xtr.shape[0], block_size, 10)
    h = torch.tanh(emb.view(emb.shape[0], -1) @ W1 + b1)
    full = F.cross_entropy(h @ W2 + b2, Ytr)
print("train loss", full.item())
assert full.item() < 2.3
