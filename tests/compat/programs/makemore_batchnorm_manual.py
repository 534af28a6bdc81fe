"""makemore part 3: kaiming-scaled init (5/3)/fan_in**0.5, batch norm written by hand with
mean(0, keepdim=True)/std(0, keepdim=True), running statistics updated under torch.no_grad()."""
import torch
import torch.nn.functional as F

g = torch.Generator().manual_seed(2147483647)
n_embd, n_hidden, vocab_size, block_size = 8, 64, 27, 3
X = torch.randint(0, vocab_size, (500, block_size), generator=g)
Y = (X[:, 0] + X[:, 1]) % vocab_size

C = torch.randn((vocab_size, n_embd), generator=g)
fan_in = n_embd * block_size
W1 = torch.randn((fan_in, n_hidden), generator=g) * (5 / 3) / (fan_in ** 0.5)
W2 = torch.randn((n_hidden, vocab_size), generator=g) * 0.01
b2 = torch.randn(vocab_size, generator=g) * 0
bngain = torch.ones((1, n_hidden))
bnbias = torch.zeros((1, n_hidden))
bnmean_running = torch.zeros((1, n_hidden))
bnstd_running = torch.ones((1, n_hidden))
parameters = [C, W1, W2, b2, bngain, bnbias]
for p in parameters:
    p.requires_grad = True

lossi = []
for i in range(300):
    ix = torch.randint(0, X.shape[0], (32,), generator=g)
    Xb, Yb = X[ix], Y[ix]
    emb = C[Xb]
    embcat = emb.view(emb.shape[0], -1)
    hpreact = embcat @ W1
    bnmeani = hpreact.mean(0, keepdim=True)
    bnstdi = hpreact.std(0, keepdim=True)
    hpreact = bngain * (hpreact - bnmeani) / bnstdi + bnbias
    with torch.no_grad():
        bnmean_running = 0.999 * bnmean_running + 0.001 * bnmeani
        bnstd_running = 0.999 * bnstd_running + 0.001 * bnstdi
    h = torch.tanh(hpreact)
    loss = F.cross_entropy(h @ W2 + b2, Yb)
    for p in parameters:
        p.grad = None
    loss.backward()
    for p in parameters:
        p.data += -0.1 * p.grad
    lossi.append(loss.log10().item())

assert not bnmean_running.requires_grad and bnmean_running.shape == (1, n_hidden)
assert sum(lossi[-20:]) / 20 < sum(lossi[:20]) / 20
saturated = (h.abs() > 0.99).float().mean().item()
print(f"saturated tanh fraction {saturated:.3f}")
assert saturated < 0.5
