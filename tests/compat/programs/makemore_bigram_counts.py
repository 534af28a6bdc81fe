"""makemore part 1, counting: an int32 count table N[ix1, ix2] += 1, P = (N+1).float(),
P /= P.sum(1, keepdims=True), sampling with torch.multinomial(generator=g), the mean negative
log-likelihood."""
import torch

words = ["emma", "olivia", "ava", "isabella", "sophia", "mia", "amelia", "harper", "ella", "abigail"]
chars = sorted(list(set(''.join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi['.'] = 0
itos = {i: s for s, i in stoi.items()}
V = len(stoi)

N = torch.zeros((V, V), dtype=torch.int32)
for w in words:
    chs = ['.'] + list(w) + ['.']
    for ch1, ch2 in zip(chs, chs[1:]):
        N[stoi[ch1], stoi[ch2]] += 1
assert N.sum().item() == sum(len(w) + 1 for w in words) and N.dtype == torch.int32

P = (N + 1).float()
P /= P.sum(1, keepdims=True)
assert torch.allclose(P.sum(1), torch.ones(V))

g = torch.Generator().manual_seed(2147483647)
names = []
for i in range(5):
    out = []
    ix = 0
    while True:
        p = P[ix]
        ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
        out.append(itos[ix])
        if ix == 0 or len(out) > 30:
            break
    names.append(''.join(out))
print(names)

log_likelihood = 0.0
n = 0
for w in words:
    chs = ['.'] + list(w) + ['.']
    for ch1, ch2 in zip(chs, chs[1:]):
        logprob = torch.log(P[stoi[ch1], stoi[ch2]])
        log_likelihood += logprob
        n += 1
nll = -log_likelihood
print(f'{nll/n=}')
assert 0 < (nll / n).item() < torch.log(torch.tensor(float(V))).item()
