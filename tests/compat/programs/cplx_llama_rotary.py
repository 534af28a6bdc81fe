"""Rotary position embeddings as complex multiplication, the way Meta's LLaMA reference model
writes them: the frequencies as unit complex numbers from torch.polar, pairs of query/key
features read as complex numbers with view_as_complex, rotated by one multiply, and read back
with view_as_real + flatten; then a toy causal-attention block (RMSNorm, SwiGLU feed-forward)
trained a few steps. Checks: rotation keeps norms, scores depend only on relative position, the
complex form equals the real cos/sin ("rotate half"-free, interleaved) form in values and
gradients."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def rotary_frequencies(head_dim, max_len, theta=10000.0):
    inv = 1.0 / (theta ** (torch.arange(0, head_dim, 2)[: head_dim // 2].float() / head_dim))
    positions = torch.arange(max_len, device=inv.device)
    angles = torch.outer(positions, inv).float()                # (max_len, head_dim / 2)
    return torch.polar(torch.ones_like(angles), angles)         # complex64, |e^{i a}| = 1


def broadcastable(freqs, x):
    # freqs (seq, head_dim / 2) against x (batch, seq, heads, head_dim / 2)
    assert freqs.shape == (x.shape[1], x.shape[-1])
    shape = [d if i in (1, x.ndim - 1) else 1 for i, d in enumerate(x.shape)]
    return freqs.view(*shape)


def rotate(xq, xk, freqs):
    q = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    k = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    f = broadcastable(freqs, q)
    q_out = torch.view_as_real(q * f).flatten(3)
    k_out = torch.view_as_real(k * f).flatten(3)
    return q_out.type_as(xq), k_out.type_as(xk)


def rotate_real(x, freqs):
    """The same rotation without complex numbers: (a, b) -> (a cos - b sin, a sin + b cos)."""
    cos = broadcastable(freqs.real, x[..., ::2])
    sin = broadcastable(freqs.imag, x[..., ::2])
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(3)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        normed = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + self.eps)
        return normed.type_as(x) * self.weight


class Block(nn.Module):
    def __init__(self, dim, n_heads, hidden):
        super().__init__()
        self.n_heads, self.head_dim = n_heads, dim // n_heads
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, dim, bias=False)
        self.wv = nn.Linear(dim, dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)
        self.attn_norm, self.ffn_norm = RMSNorm(dim), RMSNorm(dim)

    def attention(self, x, freqs, mask):
        b, s, _ = x.shape
        q = self.wq(x).view(b, s, self.n_heads, self.head_dim)
        k = self.wk(x).view(b, s, self.n_heads, self.head_dim)
        v = self.wv(x).view(b, s, self.n_heads, self.head_dim)
        q, k = rotate(q, k, freqs)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.head_dim) + mask
        weights = F.softmax(scores.float(), dim=-1).type_as(q)
        return self.wo(torch.matmul(weights, v).transpose(1, 2).contiguous().view(b, s, -1))

    def forward(self, x, freqs, mask):
        h = x + self.attention(self.attn_norm(x), freqs, mask)
        return h + self.w2(F.silu(self.w1(self.ffn_norm(h))) * self.w3(self.ffn_norm(h)))


class TinyLM(nn.Module):
    def __init__(self, vocab=11, dim=16, n_heads=2, layers=2, max_len=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(Block(dim, n_heads, 32) for _ in range(layers))
        self.norm = RMSNorm(dim)
        self.out = nn.Linear(dim, vocab, bias=False)
        self.freqs = rotary_frequencies(dim // n_heads, max_len * 2)

    def forward(self, tokens):
        s = tokens.shape[1]
        h = self.embed(tokens)
        freqs = self.freqs[:s]
        mask = torch.triu(torch.full((1, 1, s, s), float("-inf")), diagonal=1).type_as(h)
        for blk in self.blocks:
            h = blk(h, freqs, mask)
        return self.out(self.norm(h))


torch.manual_seed(0)
freqs = rotary_frequencies(8, 32)
assert freqs.dtype == torch.complex64 and freqs.shape == (32, 4)
assert torch.allclose(freqs.abs(), torch.ones(32, 4))
assert torch.allclose(freqs.angle()[1], 1.0 / 10000.0 ** (torch.arange(0, 8, 2).float() / 8))

# rotation keeps the norm of every head vector, and matches the real cos/sin form
xq, xk = torch.randn(2, 6, 3, 8), torch.randn(2, 6, 3, 8)
rq, rk = rotate(xq, xk, freqs[:6])
assert rq.shape == xq.shape and rq.dtype == xq.dtype
assert torch.allclose(rq.norm(dim=-1), xq.norm(dim=-1), atol=1e-5)
assert torch.allclose(rq, rotate_real(xq, freqs[:6]), atol=1e-5)
assert torch.allclose(rk, rotate_real(xk, freqs[:6]), atol=1e-5)

# the score of query position m with key position n depends only on m - n
q1, k1 = torch.randn(1, 1, 1, 8), torch.randn(1, 1, 1, 8)
qs, ks = rotate(q1.expand(1, 12, 1, 8), k1.expand(1, 12, 1, 8), freqs[:12])
scores = (qs[0, :, 0] @ ks[0, :, 0].T)
for shift in range(1, 4):
    diag = torch.diagonal(scores, offset=shift)
    assert torch.allclose(diag, diag[0].expand_as(diag), atol=1e-4), shift

# gradients through view_as_complex / view_as_real equal the real form's
a = torch.randn(2, 5, 2, 8, requires_grad=True)
g = torch.randn(2, 5, 2, 8)
(grad_c,) = torch.autograd.grad(rotate(a, a, freqs[:5])[0], a, g)
(grad_r,) = torch.autograd.grad(rotate_real(a, freqs[:5]), a, g)
assert torch.allclose(grad_c, grad_r, atol=1e-5)
# the inverse rotation (conjugate frequencies) undoes it, gradient included
back, _ = rotate(rotate(a, a, freqs[:5])[0], a, freqs[:5].conj())
assert torch.allclose(back, a, atol=1e-5)

# a toy language model: predict the next token of counting sequences mod 11
model = TinyLM()
data = (torch.arange(12).unsqueeze(0) + torch.arange(8).unsqueeze(1)) % 11   # (8, 12)
inputs, targets = data[:, :-1], data[:, 1:]
opt = torch.optim.AdamW(model.parameters(), lr=3e-2)
losses = []
for step in range(40):
    logits = model(inputs)
    loss = F.cross_entropy(logits.reshape(-1, 11), targets.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
assert losses[-1] < 0.5 * losses[0], (losses[0], losses[-1])
with torch.no_grad():
    accuracy = (model(inputs).argmax(-1) == targets).float().mean().item()
assert accuracy > 0.9, accuracy
print(f"rotary LM: loss {losses[0]:.3f} -> {losses[-1]:.3f}, accuracy {accuracy:.2f}")
