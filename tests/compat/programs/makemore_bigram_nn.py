"""makemore part 1, the neural bigram: F.one_hot(xs, num_classes).float() @ W, softmax by hand,
loss = -probs[torch.arange(num), ys].log().mean() + 0.01*(W**2).mean(), W.data += -lr * W.grad."""
import torch
import torch.nn.functional as F

words = ["emma", "olivia", "ava", "isabella", "sophia", "mia", "amelia", "harper", "ella", "abigail"]
chars = sorted(list(set(''.join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi['.'] = 0
V = len(stoi)
xs, ys = [], []
for w in words:
    chs = ['.'] + list(w) + ['.']
    for ch1, ch2 in zip(chs, chs[1:]):
        xs.append(stoi[ch1])
        ys.append(stoi[ch2])
xs = torch.tensor(xs)
ys = torch.tensor(ys)
num = xs.nelement()

g = torch.Generator().manual_seed(2147483647)
W = torch.randn((V, V), generator=g, requires_grad=True)
losses = []
for k in range(60):
    xenc = F.one_hot(xs, num_classes=V).float()
    logits = xenc @ W
    counts = logits.exp()
    probs = counts / counts.sum(1, keepdims=True)
    loss = -probs[torch.arange(num), ys].log().mean() + 0.01 * (W ** 2).mean()
    losses.append(loss.item())
    W.grad = None
    loss.backward()
    W.data += -10 * W.grad
print(losses[0], losses[-1])
assert xenc.shape == (num, V) and xenc.dtype == torch.float32
assert losses[-1] < losses[0] - 0.5
