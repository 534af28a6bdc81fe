"""Sebastian Raschka's "Converting a From-Scratch GPT Architecture to Llama 2" notebook: RMSNorm
by hand (x.pow(2).mean(dim=-1, keepdim=True), torch.rsqrt) checked against torch.nn.RMSNorm with
torch.testing.assert_close, SiLU by hand against nn.SiLU, the SwiGLU FeedForward (fc1, fc2, fc3
without bias), RoPE via precompute_rope_params (theta_base ** (torch.arange(0, d, 2)[:d//2].float()
/ d), positions[:, None] * inv_freq[None, :], torch.cat([angles, angles], dim=1)) and compute_rope
(torch.cat((-x2, x1), dim=-1)), cos/sin and the mask as buffers, a Llama2Model trained on a toy
sequence, a bfloat16 copy of the model via .to(torch.bfloat16), and torch.compile on the model."""
import torch
import torch.nn as nn


class RMSNorm(nn.Module):
    def __init__(self, emb_dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.emb_dim = emb_dim
        self.weight = nn.Parameter(torch.ones(emb_dim)).float()

    def forward(self, x):
        means = x.pow(2).mean(dim=-1, keepdim=True)
        x_normed = x * torch.rsqrt(means + self.eps)
        return (x_normed * self.weight).to(dtype=x.dtype)


torch.manual_seed(123)
example_batch = torch.randn(2, 3, 4)
rms_norm = RMSNorm(emb_dim=example_batch.shape[-1])
rmsnorm_pytorch = torch.nn.RMSNorm(example_batch.shape[-1], eps=1e-5)
assert torch.allclose(rms_norm(example_batch), rmsnorm_pytorch(example_batch))
torch.testing.assert_close(rms_norm(example_batch), rmsnorm_pytorch(example_batch))


class SiLU(nn.Module):
    def __init__(self):
        super(SiLU, self).__init__()

    def forward(self, x):
        return x * torch.sigmoid(x)


silu = SiLU()
torch.testing.assert_close(silu(example_batch), torch.nn.SiLU()(example_batch))
torch.testing.assert_close(silu(example_batch), torch.nn.functional.silu(example_batch))


class FeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.fc1 = nn.Linear(cfg["emb_dim"], cfg["hidden_dim"], dtype=cfg["dtype"], bias=False)
        self.fc2 = nn.Linear(cfg["emb_dim"], cfg["hidden_dim"], dtype=cfg["dtype"], bias=False)
        self.fc3 = nn.Linear(cfg["hidden_dim"], cfg["emb_dim"], dtype=cfg["dtype"], bias=False)
        self.silu = SiLU()

    def forward(self, x):
        x_fc1 = self.fc1(x)
        x_fc2 = self.fc2(x)
        x = self.silu(x_fc1) * x_fc2
        return self.fc3(x)


def precompute_rope_params(head_dim, theta_base=10_000, context_length=4096):
    assert head_dim % 2 == 0, "Embedding dimension must be even"
    inv_freq = 1.0 / (theta_base ** (torch.arange(0, head_dim, 2)[: (head_dim // 2)].float() / head_dim))
    positions = torch.arange(context_length)
    angles = positions[:, None] * inv_freq[None, :]
    angles = torch.cat([angles, angles], dim=1)
    cos = torch.cos(angles)
    sin = torch.sin(angles)
    return cos, sin


def compute_rope(x, cos, sin):
    batch_size, num_heads, seq_len, head_dim = x.shape
    assert head_dim % 2 == 0, "Head dimension must be even"
    x1 = x[..., : head_dim // 2]
    x2 = x[..., head_dim // 2:]
    cos = cos[:seq_len, :].unsqueeze(0).unsqueeze(0)
    sin = sin[:seq_len, :].unsqueeze(0).unsqueeze(0)
    rotated = torch.cat((-x2, x1), dim=-1)
    x_rotated = (x * cos) + (rotated * sin)
    return x_rotated.to(dtype=x.dtype)


batch_size, context_len, num_heads, head_dim = 2, 5, 4, 16
cos, sin = precompute_rope_params(head_dim=head_dim, context_length=context_len)
queries = torch.randn(batch_size, num_heads, context_len, head_dim)
keys = torch.randn(batch_size, num_heads, context_len, head_dim)
queries_rot = compute_rope(queries, cos, sin)
keys_rot = compute_rope(keys, cos, sin)
assert queries_rot.shape == queries.shape
torch.testing.assert_close(queries_rot.norm(dim=-1), queries.norm(dim=-1))
# relative positions: the score of (m, n) depends on m - n only
s1 = (compute_rope(queries[:, :, :1].expand(-1, -1, 5, -1), cos, sin)
      * compute_rope(keys[:, :, :1].expand(-1, -1, 5, -1), cos, sin)).sum(-1)
torch.testing.assert_close(s1, s1[..., :1].expand(-1, -1, 5), rtol=1e-4, atol=1e-4)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, num_heads, dtype=None):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by n_heads"
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=False, dtype=dtype)
        self.W_key = nn.Linear(d_in, d_out, bias=False, dtype=dtype)
        self.W_value = nn.Linear(d_in, d_out, bias=False, dtype=dtype)
        self.out_proj = nn.Linear(d_out, d_out, bias=False, dtype=dtype)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))
        cos, sin = precompute_rope_params(head_dim=self.head_dim, context_length=context_length)
        self.register_buffer("cos", cos)
        self.register_buffer("sin", sin)

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        queries = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        values = self.W_value(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        keys = compute_rope(keys, self.cos, self.sin)
        queries = compute_rope(queries, self.cos, self.sin)
        attn_scores = queries @ keys.transpose(2, 3)
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
        attn_scores.masked_fill_(mask_bool, -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.reshape(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)


class TransformerBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.att = MultiHeadAttention(d_in=cfg["emb_dim"], d_out=cfg["emb_dim"],
                                      context_length=cfg["context_length"],
                                      num_heads=cfg["n_heads"], dtype=cfg["dtype"])
        self.ff = FeedForward(cfg)
        self.norm1 = RMSNorm(cfg["emb_dim"])
        self.norm2 = RMSNorm(cfg["emb_dim"])

    def forward(self, x):
        shortcut = x
        x = self.norm1(x)
        x = self.att(x)
        x = x + shortcut
        shortcut = x
        x = self.norm2(x)
        x = self.ff(x)
        x = x + shortcut
        return x


class Llama2Model(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"], dtype=cfg["dtype"])
        self.trf_blocks = nn.Sequential(*[TransformerBlock(cfg) for _ in range(cfg["n_layers"])])
        self.final_norm = RMSNorm(cfg["emb_dim"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False, dtype=cfg["dtype"])

    def forward(self, in_idx):
        tok_embeds = self.tok_emb(in_idx)
        x = tok_embeds
        x = self.trf_blocks(x)
        x = self.final_norm(x)
        logits = self.out_head(x)
        return logits


LLAMA2_CONFIG = {
    "vocab_size": 20,
    "context_length": 16,
    "emb_dim": 32,
    "n_heads": 4,
    "n_layers": 2,
    "hidden_dim": 64,
    "dtype": torch.float32,
}
torch.manual_seed(0)
model = Llama2Model(LLAMA2_CONFIG)
total_params = sum(p.numel() for p in model.parameters())
print(f"Total number of parameters: {total_params:,}")


def model_memory_size(model, input_dtype=torch.float32):
    total_params = 0
    total_grads = 0
    for param in model.parameters():
        param_size = param.numel()
        total_params += param_size
        if param.requires_grad:
            total_grads += param_size
    total_buffers = sum(buf.numel() for buf in model.buffers())
    element_size = torch.tensor(0, dtype=input_dtype).element_size()
    total_memory_bytes = (total_params + total_grads + total_buffers) * element_size
    return total_memory_bytes / (1024**3)


assert model_memory_size(model, torch.float32) > 2 * model_memory_size(model, torch.bfloat16) * 0.99
data = torch.tensor([(3 * i) % 17 + 2 for i in range(400)])
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.1)
compiled = torch.compile(model, backend="eager")
losses = []
for step in range(80):
    ix = torch.randint(0, len(data) - 17, (8,))
    x = torch.stack([data[i:i + 16] for i in ix])
    y = torch.stack([data[i + 1:i + 17] for i in ix])
    logits = compiled(x)
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), y.flatten())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
print(f"loss {losses[0]:.3f} -> {losses[-1]:.3f}")
assert losses[-1] < 0.5 * losses[0]

model.eval()
with torch.no_grad():
    ref = model(x)
    bf16 = Llama2Model(LLAMA2_CONFIG)
    bf16.load_state_dict(model.state_dict())
    bf16.to(torch.bfloat16)
    out16 = bf16(x)
assert out16.dtype == torch.bfloat16 and bf16.out_head.weight.dtype == torch.bfloat16
assert bf16.trf_blocks[0].att.cos.dtype == torch.bfloat16
agree = (out16.float().argmax(-1) == ref.argmax(-1)).float().mean()
print(f"bfloat16 agrees with float32 on {agree.item():.0%} of next tokens")
assert agree > 0.8
