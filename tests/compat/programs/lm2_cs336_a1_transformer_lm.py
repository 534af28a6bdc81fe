"""Stanford CS336 (Spring 2025) assignment 1, "Transformer LM from scratch": the modules the
handout asks for, written as students' cs336_basics/model.py solutions write them (e.g.
vyvy3n/cs336-hw1), with einops.einsum spelled as torch.einsum, at toy size.

APIs: nn.Parameter(torch.empty(d_out, d_in, device=device, dtype=dtype)) filled by
nn.init.trunc_normal_(w, mean=0.0, std=std, a=-3 * std, b=3 * std), torch.einsum("...i,oi->...o"),
Embedding forward as self.weight[token_ids], RMSNorm upcasting with x.to(torch.float32) and back
to in_dtype, SwiGLU with a hand-written silu (x * torch.sigmoid(x)) and d_ff rounded to a multiple
of 64, RoPE from register_buffer(..., persistent=False) cos/sin tables indexed by token_positions
with x[..., 0::2] / x[..., 1::2] and torch.stack(..., dim=-1).flatten(-2), a numerically stable
softmax (x - x.max(dim=dim, keepdim=True).values), scaled dot-product attention with a boolean
mask and masked_fill(~mask, float("-inf")), a causal mask from
torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1), token_positions from torch.arange,
"..." einsum over batch-like dims, pre-norm blocks, and a parameter count with p.numel().
"""
import math

import torch
import torch.nn as nn


class Linear(nn.Module):
    def __init__(self, in_features, out_features, device=None, dtype=None):
        super().__init__()
        std = math.sqrt(2.0 / (in_features + out_features))
        self.weight = nn.Parameter(torch.empty(out_features, in_features, device=device, dtype=dtype))
        nn.init.trunc_normal_(self.weight, mean=0.0, std=std, a=-3 * std, b=3 * std)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.einsum("...i,oi->...o", x, self.weight)


class Embedding(nn.Module):
    def __init__(self, num_embeddings, embedding_dim, device=None, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(num_embeddings, embedding_dim, device=device, dtype=dtype))
        nn.init.trunc_normal_(self.weight, mean=0.0, std=1.0, a=-3.0, b=3.0)

    def forward(self, token_ids: torch.Tensor) -> torch.Tensor:
        return self.weight[token_ids]


class RMSNorm(nn.Module):
    def __init__(self, d_model: int, eps: float = 1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model, device=device, dtype=dtype))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        in_dtype = x.dtype
        x = x.to(torch.float32)
        rms = torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        result = x / rms * self.weight
        return result.to(in_dtype)


def silu(x):
    return x * torch.sigmoid(x)


class SwiGLU(nn.Module):
    def __init__(self, d_model: int, d_ff: int = None, device=None, dtype=None):
        super().__init__()
        if d_ff is None:
            d_ff = int(8 / 3 * d_model)
            d_ff = 64 * ((d_ff + 63) // 64)
        self.w1 = Linear(d_model, d_ff, device=device, dtype=dtype)
        self.w2 = Linear(d_ff, d_model, device=device, dtype=dtype)
        self.w3 = Linear(d_model, d_ff, device=device, dtype=dtype)

    def forward(self, x):
        return self.w2(silu(self.w1(x)) * self.w3(x))


class RotaryPositionalEmbedding(nn.Module):
    def __init__(self, theta: float, d_k: int, max_seq_len: int, device=None):
        super().__init__()
        inv_freq = 1.0 / (theta ** (torch.arange(0, d_k, 2, device=device).float() / d_k))
        positions = torch.arange(max_seq_len, device=device).float()
        angles = torch.einsum("i,j->ij", positions, inv_freq)       # (max_seq_len, d_k/2)
        self.register_buffer("cos", torch.cos(angles), persistent=False)
        self.register_buffer("sin", torch.sin(angles), persistent=False)

    def forward(self, x: torch.Tensor, token_positions: torch.Tensor) -> torch.Tensor:
        cos = self.cos[token_positions]
        sin = self.sin[token_positions]
        x_even = x[..., 0::2]
        x_odd = x[..., 1::2]
        out_even = x_even * cos - x_odd * sin
        out_odd = x_even * sin + x_odd * cos
        return torch.stack([out_even, out_odd], dim=-1).flatten(-2)


def softmax(x: torch.Tensor, dim: int) -> torch.Tensor:
    x = x - x.max(dim=dim, keepdim=True).values
    exp_x = torch.exp(x)
    return exp_x / exp_x.sum(dim=dim, keepdim=True)


def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = torch.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    attn = softmax(scores, dim=-1)
    return torch.einsum("...qk,...kd->...qd", attn, V)


class MultiHeadSelfAttention(nn.Module):
    def __init__(self, d_model: int, num_heads: int, max_seq_len: int = None, theta: float = None,
                 device=None, dtype=None):
        super().__init__()
        self.num_heads = num_heads
        self.d_k = d_model // num_heads
        self.q_proj = Linear(d_model, d_model, device=device, dtype=dtype)
        self.k_proj = Linear(d_model, d_model, device=device, dtype=dtype)
        self.v_proj = Linear(d_model, d_model, device=device, dtype=dtype)
        self.output_proj = Linear(d_model, d_model, device=device, dtype=dtype)
        self.rope = (RotaryPositionalEmbedding(theta, self.d_k, max_seq_len, device=device)
                     if theta is not None else None)

    def forward(self, x, token_positions=None):
        *batch, seq_len, d_model = x.shape
        q = self.q_proj(x).view(*batch, seq_len, self.num_heads, self.d_k).transpose(-3, -2)
        k = self.k_proj(x).view(*batch, seq_len, self.num_heads, self.d_k).transpose(-3, -2)
        v = self.v_proj(x).view(*batch, seq_len, self.num_heads, self.d_k).transpose(-3, -2)
        if self.rope is not None:
            if token_positions is None:
                token_positions = torch.arange(seq_len, device=x.device)
            q = self.rope(q, token_positions)
            k = self.rope(k, token_positions)
        causal = ~torch.triu(torch.ones(seq_len, seq_len, dtype=torch.bool, device=x.device), diagonal=1)
        out = scaled_dot_product_attention(q, k, v, mask=causal)
        out = out.transpose(-3, -2).contiguous().view(*batch, seq_len, d_model)
        return self.output_proj(out)


class TransformerBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, max_seq_len, theta, device=None, dtype=None):
        super().__init__()
        self.ln1 = RMSNorm(d_model, device=device, dtype=dtype)
        self.attn = MultiHeadSelfAttention(d_model, num_heads, max_seq_len, theta, device=device, dtype=dtype)
        self.ln2 = RMSNorm(d_model, device=device, dtype=dtype)
        self.ffn = SwiGLU(d_model, d_ff, device=device, dtype=dtype)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        x = x + self.ffn(self.ln2(x))
        return x


class TransformerLM(nn.Module):
    def __init__(self, vocab_size, context_length, d_model, num_layers, num_heads, d_ff,
                 rope_theta, device=None, dtype=None):
        super().__init__()
        self.context_length = context_length
        self.token_embeddings = Embedding(vocab_size, d_model, device=device, dtype=dtype)
        self.layers = nn.ModuleList([
            TransformerBlock(d_model, num_heads, d_ff, context_length, rope_theta, device=device, dtype=dtype)
            for _ in range(num_layers)
        ])
        self.ln_final = RMSNorm(d_model, device=device, dtype=dtype)
        self.lm_head = Linear(d_model, vocab_size, device=device, dtype=dtype)

    def forward(self, in_indices):
        x = self.token_embeddings(in_indices)
        for layer in self.layers:
            x = layer(x)
        x = self.ln_final(x)
        return self.lm_head(x)


torch.manual_seed(0)
# --- unit checks, as the assignment's tests/test_model.py does against reference outputs ---
lin = Linear(8, 4)
std = math.sqrt(2.0 / 12)
assert lin.weight.shape == (4, 8) and lin.weight.abs().max().item() <= 3 * std + 1e-6
x = torch.randn(2, 3, 8)
assert torch.allclose(lin(x), x @ lin.weight.T, atol=1e-6)
emb = Embedding(10, 4)
ids = torch.tensor([[1, 2], [9, 0]])
assert torch.equal(emb(ids)[1, 0], emb.weight[9])

norm = RMSNorm(8)
xh = torch.randn(4, 8).to(torch.bfloat16)
assert norm(xh).dtype == torch.bfloat16
assert torch.allclose(RMSNorm(8)(x), torch.nn.functional.rms_norm(x, (8,), eps=1e-5), atol=1e-6)
assert SwiGLU(16).w1.weight.shape == (64, 16)     # 8/3 * 16 = 42 -> 64

rope = RotaryPositionalEmbedding(10000.0, 4, 12)
assert "cos" not in rope.state_dict() and rope.cos.shape == (12, 2)
q = torch.randn(3, 4)
pos = torch.tensor([0, 5, 7])
rq = rope(q, pos)
assert torch.allclose(rq[0], q[0]) and torch.allclose(rq.norm(dim=-1), q.norm(dim=-1), atol=1e-6)
# relative: <R_m q, R_n k> depends on m - n only
k = torch.randn(1, 4)
a = (rope(q[:1], torch.tensor([3])) * rope(k, torch.tensor([1]))).sum()
b = (rope(q[:1], torch.tensor([9])) * rope(k, torch.tensor([7]))).sum()
assert torch.allclose(a, b, atol=1e-5)

s = torch.randn(2, 5) * 50
assert torch.allclose(softmax(s, dim=-1), torch.softmax(s, dim=-1), atol=1e-6)
assert torch.allclose(softmax(s + 1000, dim=-1), torch.softmax(s, dim=-1), atol=1e-6)
Q, K, V = torch.randn(2, 4, 3, 8), torch.randn(2, 4, 5, 8), torch.randn(2, 4, 5, 8)
mask = torch.rand(3, 5) > 0.3
mask[:, 0] = True
ref = torch.nn.functional.scaled_dot_product_attention(Q, K, V, attn_mask=mask)
assert torch.allclose(scaled_dot_product_attention(Q, K, V, mask), ref, atol=1e-5)

# --- the LM: causal (a change at position t moves no logit before t), trains on a toy corpus ---
vocab_size, context_length = 12, 16
model = TransformerLM(vocab_size, context_length, d_model=32, num_layers=2, num_heads=4,
                      d_ff=64, rope_theta=10000.0)
n_params = sum(p.numel() for p in model.parameters())
assert n_params == 12 * 32 * 2 + 2 * (2 * 32 + 4 * 32 * 32 + 3 * 32 * 64) + 32, n_params
idx = torch.randint(0, vocab_size, (2, 10))
out1 = model(idx)
idx2 = idx.clone()
idx2[:, 6] = (idx2[:, 6] + 1) % vocab_size
out2 = model(idx2)
assert out1.shape == (2, 10, vocab_size)
assert torch.allclose(out1[:, :6], out2[:, :6], atol=1e-5) and not torch.allclose(out1[:, 6:], out2[:, 6:])

data = torch.tensor([i % 6 for i in range(200)])
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
for step in range(40):
    starts = torch.randint(0, len(data) - context_length - 1, (8,))
    xb = torch.stack([data[s0:s0 + context_length] for s0 in starts])
    yb = torch.stack([data[s0 + 1:s0 + context_length + 1] for s0 in starts])
    logits = model(xb)
    loss = torch.nn.functional.cross_entropy(logits.view(-1, vocab_size), yb.view(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
assert loss.item() < 0.5, loss.item()
print("cs336 transformer lm ok", n_params, loss.item())
