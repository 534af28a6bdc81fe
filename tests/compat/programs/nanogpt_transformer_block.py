"""nanoGPT's Block: MultiHeadAttention from a ModuleList of causal heads (torch.cat of their
outputs, a projection), a FeedForward with GELU, LayerNorm before each, residual connections;
a tiny model trained a few steps on a repeating sequence."""
import torch
import torch.nn as nn
from torch.nn import functional as F

torch.manual_seed(1337)
n_embd, n_head, block_size, vocab_size = 16, 2, 8, 5


class Head(nn.Module):
    def __init__(self, head_size):
        super().__init__()
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)
        self.register_buffer('tril', torch.tril(torch.ones(block_size, block_size)))

    def forward(self, x):
        B, T, C = x.shape
        k, q = self.key(x), self.query(x)
        wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5
        wei = F.softmax(wei.masked_fill(self.tril[:T, :T] == 0, float('-inf')), dim=-1)
        return wei @ self.value(x)


class MultiHeadAttention(nn.Module):
    def __init__(self, num_heads, head_size):
        super().__init__()
        self.heads = nn.ModuleList([Head(head_size) for _ in range(num_heads)])
        self.proj = nn.Linear(head_size * num_heads, n_embd)

    def forward(self, x):
        return self.proj(torch.cat([h(x) for h in self.heads], dim=-1))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.sa = MultiHeadAttention(n_head, n_embd // n_head)
        self.ffwd = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(),
                                  nn.Linear(4 * n_embd, n_embd))
        self.ln1 = nn.LayerNorm(n_embd)
        self.ln2 = nn.LayerNorm(n_embd)

    def forward(self, x):
        x = x + self.sa(self.ln1(x))
        return x + self.ffwd(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, n_embd)
        self.pos = nn.Embedding(block_size, n_embd)
        self.blocks = nn.Sequential(Block(), Block())
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size)

    def forward(self, idx):
        B, T = idx.shape
        x = self.tok(idx) + self.pos(torch.arange(T))
        return self.lm_head(self.ln_f(self.blocks(x)))


data = torch.tensor([0, 1, 2, 3, 4] * 20)
model = TinyGPT()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
for step in range(60):
    ix = torch.randint(0, len(data) - block_size - 1, (8,))
    xb = torch.stack([data[i:i + block_size] for i in ix])
    yb = torch.stack([data[i + 1:i + block_size + 1] for i in ix])
    logits = model(xb)
    loss = F.cross_entropy(logits.view(-1, vocab_size), yb.view(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
assert loss.item() < 0.5, loss.item()
ln = nn.LayerNorm(n_embd)
out = ln(torch.randn(3, n_embd) * 5 + 2)
assert torch.allclose(out.mean(-1), torch.zeros(3), atol=1e-5)
