"""Karpathy's "Let's build GPT" notebook (ng-video-lecture gpt_dev.ipynb), the cells between the
bigram model and the full model: the toy example of torch.tril(torch.ones(3, 3)) / sum(1, keepdim=
True) @ randint matrix, the four versions of xbow (a double loop with torch.mean(xprev, 0), wei @ x,
masked_fill(tril == 0, float('-inf')) + F.softmax, and a single self-attention head), torch.allclose
between them, k.var()/q.var()/wei.var() of scaled attention, the softmax sharpening example, and the
LayerNorm1d class written by hand with __call__ and parameters()."""
import torch
import torch.nn as nn
from torch.nn import functional as F

# consider the following toy example:
torch.manual_seed(42)
a = torch.tril(torch.ones(3, 3))
a = a / torch.sum(a, 1, keepdim=True)
b = torch.randint(0, 10, (3, 2)).float()
c = a @ b
print('a=')
print(a)
print('--')
print('b=')
print(b)
print('--')
print('c=')
print(c)
assert torch.allclose(c[2], b.mean(0))

torch.manual_seed(1337)
B, T, C = 4, 8, 2
x = torch.randn(B, T, C)
print(x.shape)

# version 1: we want x[b,t] = mean_{i<=t} x[b,i]
xbow = torch.zeros((B, T, C))
for b in range(B):
    for t in range(T):
        xprev = x[b, :t + 1]  # (t,C)
        xbow[b, t] = torch.mean(xprev, 0)

# version 2: using matrix multiply for a weighted aggregation
wei = torch.tril(torch.ones(T, T))
wei = wei / wei.sum(1, keepdim=True)
xbow2 = wei @ x  # (B, T, T) @ (B, T, C) ----> (B, T, C)
print(torch.allclose(xbow, xbow2))
assert torch.allclose(xbow, xbow2, atol=1e-6)

# version 3: use Softmax
tril = torch.tril(torch.ones(T, T))
wei = torch.zeros((T, T))
wei = wei.masked_fill(tril == 0, float('-inf'))
print(wei[:3])
wei = F.softmax(wei, dim=-1)
xbow3 = wei @ x
print(torch.allclose(xbow, xbow3))
assert torch.allclose(xbow, xbow3, atol=1e-6)
print(x[0])
print(xbow[0])

# version 4: self-attention!
torch.manual_seed(1337)
B, T, C = 4, 8, 32
x = torch.randn(B, T, C)
head_size = 16
key = nn.Linear(C, head_size, bias=False)
query = nn.Linear(C, head_size, bias=False)
value = nn.Linear(C, head_size, bias=False)
k = key(x)   # (B, T, 16)
q = query(x)  # (B, T, 16)
wei = q @ k.transpose(-2, -1)  # (B, T, 16) @ (B, 16, T) ---> (B, T, T)
tril = torch.tril(torch.ones(T, T))
wei = wei.masked_fill(tril == 0, float('-inf'))
wei = F.softmax(wei, dim=-1)
v = value(x)
out = wei @ v
print(out.shape)
print(wei[0])
assert torch.allclose(wei.sum(-1), torch.ones(B, T))
assert (wei[0].triu(1) == 0).all()

k = torch.randn(B, T, head_size)
q = torch.randn(B, T, head_size)
wei = q @ k.transpose(-2, -1) * head_size**-0.5
print(k.var(), q.var(), wei.var())
print(f"{k.var().item():.4f} {wei.var().item():.4f}")
assert 0.5 < wei.var().item() < 1.5

print(torch.softmax(torch.tensor([0.1, -0.2, 0.3, -0.2, 0.5]), dim=-1))
print(torch.softmax(torch.tensor([0.1, -0.2, 0.3, -0.2, 0.5]) * 8, dim=-1))  # gets too peaky


class LayerNorm1d:  # (used to be BatchNorm1d)

    def __init__(self, dim, eps=1e-5, momentum=0.1):
        self.eps = eps
        self.gamma = torch.ones(dim)
        self.beta = torch.zeros(dim)

    def __call__(self, x):
        # calculate the forward pass
        xmean = x.mean(1, keepdim=True)  # batch mean
        xvar = x.var(1, keepdim=True)  # batch variance
        xhat = (x - xmean) / torch.sqrt(xvar + self.eps)  # normalize to unit variance
        self.out = self.gamma * xhat + self.beta
        return self.out

    def parameters(self):
        return [self.gamma, self.beta]


torch.manual_seed(1337)
module = LayerNorm1d(100)
x = torch.randn(32, 100)  # batch size 32 of 100-dimensional vectors
x = module(x)
print(x.shape)
print(x[:, 0].mean(), x[:, 0].std())  # mean,std of one feature across all batch inputs
print(x[0, :].mean(), x[0, :].std())  # mean,std of a single input from the batch, of its features
assert abs(x[0, :].mean().item()) < 1e-5 and abs(x[0, :].std().item() - 1) < 1e-3
print(sum(p.numel() for p in module.parameters()))
ln = nn.LayerNorm(100, elementwise_affine=True)
torch.manual_seed(1337)
ref = ln(torch.randn(32, 100))
# torch's LayerNorm uses the biased variance; the hand-written one uses x.var (unbiased)
assert torch.allclose(ref * (99 / 100) ** 0.5, x, atol=1e-4)
