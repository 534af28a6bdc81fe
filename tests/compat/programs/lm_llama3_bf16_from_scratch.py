"""Sebastian Raschka's "Llama 3.2 From Scratch" (LLMs-from-scratch ch05/07_gpt_to_llama,
standalone-llama32.ipynb) at toy size, in bfloat16 as the notebook runs it: a LLAMA32_CONFIG dict
with "dtype": torch.bfloat16 passed to nn.Embedding / nn.Linear (dtype=...), FeedForward
(SwiGLU: nn.functional.silu(x_fc1) * x_fc2), compute_rope_params with the Llama 3.1 frequency
smoothing (low/high frequency wavelengths, torch.where on wavelen), apply_rope (torch.cat((-x2,
x1), dim=-1), cos/sin[:seq_len, :].unsqueeze(0).unsqueeze(0)), GroupedQueryAttention with
keys.repeat_interleave(group_size, dim=1), masked_fill(mask[:num_tokens, :num_tokens], -torch.inf)
on a boolean torch.triu(torch.ones(...), diagonal=1).bool() mask, nn.RMSNorm(emb_dim, eps=1e-5,
dtype=...), buffers registered with persistent=False, weight tying, out_head(x.to(cfg["dtype"])),
model_memory_size via param.numel() and torch.tensor(0, dtype=input_dtype).element_size(), a
few AdamW steps on bfloat16 parameters, and greedy / top-k generation with an eos stop."""
import torch
import torch.nn as nn

LLAMA32_CONFIG = {
    "vocab_size": 64,
    "context_length": 32,
    "emb_dim": 48,
    "n_heads": 4,
    "n_layers": 2,
    "hidden_dim": 96,
    "n_kv_groups": 2,
    "rope_base": 500_000.0,
    "dtype": torch.bfloat16,
    "rope_freq": {
        "factor": 32.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_context_length": 16,
    }
}


class FeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.fc1 = nn.Linear(cfg["emb_dim"], cfg["hidden_dim"], dtype=cfg["dtype"], bias=False)
        self.fc2 = nn.Linear(cfg["emb_dim"], cfg["hidden_dim"], dtype=cfg["dtype"], bias=False)
        self.fc3 = nn.Linear(cfg["hidden_dim"], cfg["emb_dim"], dtype=cfg["dtype"], bias=False)

    def forward(self, x):
        x_fc1 = self.fc1(x)
        x_fc2 = self.fc2(x)
        x = nn.functional.silu(x_fc1) * x_fc2
        return self.fc3(x)


def compute_rope_params(head_dim, theta_base=10_000, context_length=4096, freq_config=None, dtype=torch.float32):
    assert head_dim % 2 == 0, "Embedding dimension must be even"
    inv_freq = 1.0 / (theta_base ** (torch.arange(0, head_dim, 2, dtype=dtype)[: (head_dim // 2)].float() / head_dim))
    if freq_config is not None:
        low_freq_wavelen = freq_config["original_context_length"] / freq_config["low_freq_factor"]
        high_freq_wavelen = freq_config["original_context_length"] / freq_config["high_freq_factor"]
        wavelen = 2 * torch.pi / inv_freq
        inv_freq_llama = torch.where(wavelen > low_freq_wavelen, inv_freq / freq_config["factor"], inv_freq)
        smooth_factor = (freq_config["original_context_length"] / wavelen - freq_config["low_freq_factor"]) / (
            freq_config["high_freq_factor"] - freq_config["low_freq_factor"])
        smoothed_inv_freq = (1 - smooth_factor) * (inv_freq / freq_config["factor"]) + smooth_factor * inv_freq
        is_medium_freq = (wavelen <= low_freq_wavelen) & (wavelen >= high_freq_wavelen)
        inv_freq_llama = torch.where(is_medium_freq, smoothed_inv_freq, inv_freq_llama)
        inv_freq = inv_freq_llama
    positions = torch.arange(context_length, dtype=dtype)
    angles = positions.unsqueeze(1) * inv_freq.unsqueeze(0)
    angles = torch.cat([angles, angles], dim=1)
    cos = torch.cos(angles)
    sin = torch.sin(angles)
    return cos, sin


def apply_rope(x, cos, sin):
    batch_size, num_heads, seq_len, head_dim = x.shape
    assert head_dim % 2 == 0, "Head dimension must be even"
    x1 = x[..., : head_dim // 2]
    x2 = x[..., head_dim // 2:]
    cos = cos[:seq_len, :].unsqueeze(0).unsqueeze(0)
    sin = sin[:seq_len, :].unsqueeze(0).unsqueeze(0)
    rotated = torch.cat((-x2, x1), dim=-1)
    x_rotated = (x * cos) + (rotated * sin)
    return x_rotated.to(dtype=x.dtype)


class GroupedQueryAttention(nn.Module):
    def __init__(self, d_in, d_out, num_heads, num_kv_groups, dtype=None):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        assert num_heads % num_kv_groups == 0, "num_heads must be divisible by num_kv_groups"
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_key = nn.Linear(d_in, num_kv_groups * self.head_dim, bias=False, dtype=dtype)
        self.W_value = nn.Linear(d_in, num_kv_groups * self.head_dim, bias=False, dtype=dtype)
        self.num_kv_groups = num_kv_groups
        self.group_size = num_heads // num_kv_groups
        self.W_query = nn.Linear(d_in, d_out, bias=False, dtype=dtype)
        self.out_proj = nn.Linear(d_out, d_out, bias=False, dtype=dtype)

    def forward(self, x, mask, cos, sin):
        b, num_tokens, d_in = x.shape
        queries = self.W_query(x)
        keys = self.W_key(x)
        values = self.W_value(x)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)
        keys = keys.view(b, num_tokens, self.num_kv_groups, self.head_dim)
        values = values.view(b, num_tokens, self.num_kv_groups, self.head_dim)
        keys = keys.transpose(1, 2)
        values = values.transpose(1, 2)
        queries = queries.transpose(1, 2)
        keys = apply_rope(keys, cos, sin)
        queries = apply_rope(queries, cos, sin)
        keys = keys.repeat_interleave(self.group_size, dim=1)
        values = values.repeat_interleave(self.group_size, dim=1)
        attn_scores = queries @ keys.transpose(2, 3)
        attn_scores = attn_scores.masked_fill(mask[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        assert keys.shape[-1] == self.head_dim
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.reshape(b, num_tokens, self.d_out)
        context_vec = self.out_proj(context_vec)
        return context_vec


class TransformerBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.att = GroupedQueryAttention(d_in=cfg["emb_dim"], d_out=cfg["emb_dim"], num_heads=cfg["n_heads"],
                                         num_kv_groups=cfg["n_kv_groups"], dtype=cfg["dtype"])
        self.ff = FeedForward(cfg)
        self.norm1 = nn.RMSNorm(cfg["emb_dim"], eps=1e-5, dtype=cfg["dtype"])
        self.norm2 = nn.RMSNorm(cfg["emb_dim"], eps=1e-5, dtype=cfg["dtype"])

    def forward(self, x, mask, cos, sin):
        shortcut = x
        x = self.norm1(x)
        x = self.att(x, mask, cos, sin)
        x = x + shortcut
        shortcut = x
        x = self.norm2(x)
        x = self.ff(x)
        x = x + shortcut
        return x


class Llama3Model(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"], dtype=cfg["dtype"])
        self.trf_blocks = nn.ModuleList([TransformerBlock(cfg) for _ in range(cfg["n_layers"])])
        self.final_norm = nn.RMSNorm(cfg["emb_dim"], eps=1e-5, dtype=cfg["dtype"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False, dtype=cfg["dtype"])
        cos, sin = compute_rope_params(head_dim=cfg["emb_dim"] // cfg["n_heads"], theta_base=cfg["rope_base"],
                                       context_length=cfg["context_length"], freq_config=cfg["rope_freq"])
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)
        self.cfg = cfg

    def forward(self, in_idx):
        tok_embeds = self.tok_emb(in_idx)
        x = tok_embeds
        num_tokens = x.shape[1]
        mask = torch.triu(torch.ones(num_tokens, num_tokens, device=x.device, dtype=torch.bool), diagonal=1)
        for block in self.trf_blocks:
            x = block(x, mask, self.cos, self.sin)
        x = self.final_norm(x)
        logits = self.out_head(x.to(self.cfg["dtype"]))
        return logits


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
    total_memory_gb = total_memory_bytes / (1024 ** 3)
    return total_memory_gb


def generate(model, idx, max_new_tokens, context_size, temperature=0.0, top_k=None, eos_id=None):
    for _ in range(max_new_tokens):
        idx_cond = idx[:, -context_size:]
        with torch.no_grad():
            logits = model(idx_cond)
        logits = logits[:, -1, :]
        if top_k is not None:
            top_logits, _ = torch.topk(logits, top_k)
            min_val = top_logits[:, -1]
            logits = torch.where(logits < min_val, torch.tensor(float('-inf')).to(logits.device), logits)
        if temperature > 0.0:
            logits = logits / temperature
            probs = torch.softmax(logits, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1)
        else:
            idx_next = torch.argmax(logits, dim=-1, keepdim=True)
        if idx_next == eos_id:
            break
        idx = torch.cat((idx, idx_next), dim=1)
    return idx


torch.manual_seed(123)
cos, sin = compute_rope_params(head_dim=12, theta_base=500_000.0, context_length=32,
                               freq_config=LLAMA32_CONFIG["rope_freq"])
print(cos.dtype, cos.shape, [round(v, 4) for v in cos[5, :6].tolist()])
plain_cos, _ = compute_rope_params(head_dim=12, theta_base=500_000.0, context_length=32)
assert not torch.equal(cos, plain_cos) and torch.allclose(cos[0], plain_cos[0])

model = Llama3Model(LLAMA32_CONFIG)
model.out_head.weight = model.tok_emb.weight
total_params = sum(p.numel() for p in model.parameters())
print(f"Total number of parameters: {total_params:,}")
total_params_normalized = total_params - model.tok_emb.weight.numel()
print(f"Total number of unique parameters: {total_params_normalized:,}")
print(f"float32 (PyTorch default): {model_memory_size(model, input_dtype=torch.float32):.6f} GB")
print(f"bfloat16: {model_memory_size(model, input_dtype=torch.bfloat16):.6f} GB")
assert model.trf_blocks[0].att.W_query.weight.dtype == torch.bfloat16
assert model.trf_blocks[0].norm1.weight.dtype == torch.bfloat16 and model.cos.dtype == torch.float32
assert "cos" not in model.state_dict()

seq = torch.tensor([(3 * i + 1) % 64 for i in range(200)])
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=0.1)
losses = []
for step in range(25):
    ix = torch.randint(0, 200 - 17, (8,))
    x = torch.stack([seq[i:i + 16] for i in ix])
    y = torch.stack([seq[i + 1:i + 17] for i in ix])
    logits = model(x)
    assert logits.dtype == torch.bfloat16
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), y.flatten())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
    if step % 8 == 0:
        print(step, loss.dtype, f"{loss.item():.2f}")
print(f"loss {losses[0]:.2f} -> {losses[-1]:.2f}")
assert losses[-1] < 0.5 * losses[0]
assert optimizer.state[model.out_head.weight]["exp_avg"].dtype == torch.bfloat16

model.eval()
out = generate(model, torch.tensor([[1, 4, 7]]), 6, LLAMA32_CONFIG["context_length"])
print(out.tolist())
steps = (out[0, 3:] - out[0, 2:-1]) % 64
assert out.shape == (1, 9) and (steps == 3).sum() >= 3, steps
stopped = generate(model, torch.tensor([[1, 4, 7]]), 6, LLAMA32_CONFIG["context_length"], eos_id=out[0, 4].item())
assert stopped.tolist() == [out[0, :4].tolist()]
torch.manual_seed(0)
sampled = generate(model, torch.tensor([[1, 4, 7]]), 6, LLAMA32_CONFIG["context_length"], temperature=1.0, top_k=2)
assert sampled.shape[1] == 9
