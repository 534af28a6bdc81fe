"""Sebastian Raschka's Qwen3 from scratch (LLMs-from-scratch ch05/11_qwen3: standalone-qwen3-moe
.ipynb, pkg/llms_from_scratch/qwen3.py and kv_cache/qwen3.py) at toy size: the MoE feed-forward
(gate = nn.Linear, torch.topk over expert scores, softmax over the top-k, every expert computed
and the gating probabilities scattered in with gating_probs.scatter_(dim=-1, index=, src=)),
checked against the notebook's commented-out sparse dispatch (x[mask], y[mask] += prob[mask] *
out); experts built on torch.device("meta") inside `with device:` and materialised by
load_weights_into_qwen from a Hugging Face-style dict (assign: shape check, then
torch.nn.Parameter(right.clone().detach()), module.to("cpu")); GroupedQueryAttention with
head_dim independent of emb_dim, QK-RMSNorm (x.to(torch.float32), torch.rsqrt, .to(input_dtype)),
RoPE from cos/sin buffers (persistent=False), repeat_interleave over the kv groups; the KV cache
held in buffers registered as None, filled with torch.zeros then cache_k[:, :, ptr:end].copy_(),
a sliding window slice, reset with zero_(); cached vs uncached greedy generation, a streaming
generator with an eos stop, parameter / memory counting, and a few AdamW steps."""
import torch
import torch.nn as nn


class FeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.fc1 = nn.Linear(cfg["emb_dim"], cfg["hidden_dim"], dtype=cfg["dtype"], bias=False)
        self.fc2 = nn.Linear(cfg["emb_dim"], cfg["hidden_dim"], dtype=cfg["dtype"], bias=False)
        self.fc3 = nn.Linear(cfg["hidden_dim"], cfg["emb_dim"], dtype=cfg["dtype"], bias=False)

    def forward(self, x):
        x = nn.functional.silu(self.fc1(x)) * self.fc2(x)
        return self.fc3(x)


class MoEFeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.num_experts_per_tok = cfg["num_experts_per_tok"]
        self.num_experts = cfg["num_experts"]
        self.gate = nn.Linear(cfg["emb_dim"], cfg["num_experts"], bias=False, dtype=cfg["dtype"])
        # the experts start on the meta device: no memory until the weights are loaded
        meta_device = torch.device("meta")

        def experts(d_in, d_out):
            return nn.ModuleList([nn.Linear(d_in, d_out, bias=False, dtype=cfg["dtype"],
                                            device=meta_device)
                                  for _ in range(cfg["num_experts"])])
        self.fc1 = experts(cfg["emb_dim"], cfg["moe_intermediate_size"])
        self.fc2 = experts(cfg["emb_dim"], cfg["moe_intermediate_size"])
        self.fc3 = experts(cfg["moe_intermediate_size"], cfg["emb_dim"])

    def forward(self, x):
        scores = self.gate(x)  # (b, seq_len, num_experts)
        topk_scores, topk_indices = torch.topk(scores, self.num_experts_per_tok, dim=-1)
        topk_probs = torch.softmax(topk_scores, dim=-1)

        expert_outputs = []
        for e in range(self.num_experts):
            hidden = torch.nn.functional.silu(self.fc1[e](x)) * self.fc2[e](x)
            expert_outputs.append(self.fc3[e](hidden).unsqueeze(-2))
        expert_outputs = torch.cat(expert_outputs, dim=-2)  # (b, t, num_experts, emb_dim)

        gating_probs = torch.zeros_like(scores)
        for i in range(self.num_experts_per_tok):
            indices = topk_indices[..., i:i + 1]
            prob = topk_probs[..., i:i + 1]
            gating_probs.scatter_(dim=-1, index=indices, src=prob)
        gating_probs = gating_probs.unsqueeze(-1)  # (b, t, num_experts, 1)
        return (gating_probs * expert_outputs).sum(dim=-2)

    def forward_sparse(self, x):
        """The notebook's alternative: run each expert only on the tokens routed to it."""
        scores = self.gate(x)
        topk_scores, topk_indices = torch.topk(scores, self.num_experts_per_tok, dim=-1)
        topk_probs = torch.softmax(topk_scores, dim=-1)
        y = torch.zeros_like(x)
        for i in range(self.num_experts_per_tok):
            expert_indices = topk_indices[..., i]
            prob = topk_probs[..., i].unsqueeze(-1)  # (b, seq_len, 1)
            for e in range(self.num_experts):
                mask = (expert_indices == e)
                if mask.any():
                    selected = x[mask]
                    out = self.fc3[e](torch.nn.functional.silu(self.fc1[e](selected)) * self.fc2[e](selected))
                    y[mask] += prob[mask] * out
        return y


class RMSNorm(nn.Module):
    def __init__(self, emb_dim, eps=1e-6, bias=False, qwen3_compatible=True):
        super().__init__()
        self.eps = eps
        self.qwen3_compatible = qwen3_compatible
        self.scale = nn.Parameter(torch.ones(emb_dim))
        self.shift = nn.Parameter(torch.zeros(emb_dim)) if bias else None

    def forward(self, x):
        input_dtype = x.dtype
        if self.qwen3_compatible:
            x = x.to(torch.float32)
        variance = x.pow(2).mean(dim=-1, keepdim=True)
        norm_x = x * torch.rsqrt(variance + self.eps)
        norm_x = norm_x * self.scale
        if self.shift is not None:
            norm_x = norm_x + self.shift
        return norm_x.to(input_dtype)


def compute_rope_params(head_dim, theta_base=10_000, context_length=4096, dtype=torch.float32):
    assert head_dim % 2 == 0, "Embedding dimension must be even"
    inv_freq = 1.0 / (theta_base ** (torch.arange(0, head_dim, 2, dtype=dtype)[: (head_dim // 2)].float() / head_dim))
    positions = torch.arange(context_length, dtype=dtype)
    angles = positions[:, None] * inv_freq[None, :]
    angles = torch.cat([angles, angles], dim=1)
    return torch.cos(angles), torch.sin(angles)


def apply_rope(x, cos, sin):
    batch_size, num_heads, seq_len, head_dim = x.shape
    x1 = x[..., : head_dim // 2]
    x2 = x[..., head_dim // 2:]
    cos = cos[:seq_len, :].unsqueeze(0).unsqueeze(0)
    sin = sin[:seq_len, :].unsqueeze(0).unsqueeze(0)
    rotated = torch.cat((-x2, x1), dim=-1)
    x_rotated = (x * cos) + (rotated * sin)
    return x_rotated.to(dtype=x.dtype)


class GroupedQueryAttention(nn.Module):
    def __init__(self, d_in, num_heads, num_kv_groups, head_dim=None, qk_norm=False, dtype=None,
                 max_seq_len=None, window_size=None):
        super().__init__()
        assert num_heads % num_kv_groups == 0, "num_heads must be divisible by num_kv_groups"
        self.num_heads = num_heads
        self.num_kv_groups = num_kv_groups
        self.group_size = num_heads // num_kv_groups
        if head_dim is None:
            head_dim = d_in // num_heads
        self.head_dim = head_dim
        self.d_out = num_heads * head_dim

        self.W_query = nn.Linear(d_in, self.d_out, bias=False, dtype=dtype)
        self.W_key = nn.Linear(d_in, num_kv_groups * head_dim, bias=False, dtype=dtype)
        self.W_value = nn.Linear(d_in, num_kv_groups * head_dim, bias=False, dtype=dtype)
        self.out_proj = nn.Linear(self.d_out, d_in, bias=False, dtype=dtype)
        if qk_norm:
            self.q_norm = RMSNorm(head_dim, eps=1e-6)
            self.k_norm = RMSNorm(head_dim, eps=1e-6)
        else:
            self.q_norm = self.k_norm = None

        self.max_seq_len = max_seq_len
        self.window_size = window_size or self.max_seq_len
        self.register_buffer("cache_k", None, persistent=False)
        self.register_buffer("cache_v", None, persistent=False)
        self.cache_initialized = False
        self.ptr = 0

    def forward(self, x, cos, sin, use_cache=False):
        b, num_tokens, _ = x.shape
        queries = self.W_query(x)
        keys_new = self.W_key(x)
        values_new = self.W_value(x)

        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        keys_new = keys_new.view(b, num_tokens, self.num_kv_groups, self.head_dim).transpose(1, 2)
        values_new = values_new.view(b, num_tokens, self.num_kv_groups, self.head_dim).transpose(1, 2)

        if self.q_norm:
            queries = self.q_norm(queries)
        if self.k_norm:
            keys_new = self.k_norm(keys_new)

        pos_start = self.ptr
        pos_end = pos_start + num_tokens
        cos_slice = cos[pos_start:pos_end]
        sin_slice = sin[pos_start:pos_end]
        keys_new = apply_rope(keys_new, cos_slice, sin_slice)
        queries = apply_rope(queries, cos_slice, sin_slice)

        keys_new = keys_new.repeat_interleave(self.group_size, dim=1)
        values_new = values_new.repeat_interleave(self.group_size, dim=1)

        if use_cache:
            if not self.cache_initialized:
                self.cache_k = torch.zeros(b, self.num_heads, self.max_seq_len, self.head_dim,
                                           device=x.device, dtype=keys_new.dtype)
                self.cache_v = torch.zeros(b, self.num_heads, self.max_seq_len, self.head_dim,
                                           device=x.device, dtype=values_new.dtype)
                self.ptr = 0
                self.cache_initialized = True
            end = self.ptr + num_tokens
            self.cache_k[:, :, self.ptr:end].copy_(keys_new)
            self.cache_v[:, :, self.ptr:end].copy_(values_new)
            keys = self.cache_k[:, :, max(0, end - self.window_size):end]
            values = self.cache_v[:, :, max(0, end - self.window_size):end]
            self.ptr = end
        else:
            keys, values = keys_new, values_new

        attn_scores = queries @ keys.transpose(2, 3)
        T_q = queries.shape[-2]
        T_k = keys.shape[-2]
        if not use_cache or T_q > 1:
            causal_mask = torch.triu(torch.ones((T_q, T_k), device=x.device, dtype=torch.bool), diagonal=1)
            attn_scores = attn_scores.masked_fill(causal_mask, -torch.inf)
        attn_weights = torch.softmax(attn_scores / self.head_dim**0.5, dim=-1)
        context = (attn_weights @ values).transpose(1, 2).reshape(b, num_tokens, self.d_out)
        return self.out_proj(context)

    def reset_cache(self):
        if self.cache_k is not None:
            self.cache_k.zero_()
            self.cache_v.zero_()
        self.ptr = 0


class TransformerBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.att = GroupedQueryAttention(
            d_in=cfg["emb_dim"], num_heads=cfg["n_heads"], head_dim=cfg["head_dim"],
            num_kv_groups=cfg["n_kv_groups"], qk_norm=cfg["qk_norm"],
            max_seq_len=cfg["context_length"], window_size=cfg["window_size"], dtype=cfg["dtype"])
        self.ff = MoEFeedForward(cfg) if cfg["num_experts"] > 0 else FeedForward(cfg)
        self.norm1 = RMSNorm(cfg["emb_dim"], eps=1e-6)
        self.norm2 = RMSNorm(cfg["emb_dim"], eps=1e-6)

    def forward(self, x, cos, sin, use_cache=False):
        shortcut = x
        x = self.att(self.norm1(x), cos, sin, use_cache)
        x = x + shortcut
        shortcut = x
        x = self.ff(self.norm2(x))
        return x + shortcut


class Qwen3Model(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"], dtype=cfg["dtype"])
        self.trf_blocks = nn.ModuleList([TransformerBlock(cfg) for _ in range(cfg["n_layers"])])
        self.final_norm = RMSNorm(cfg["emb_dim"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False, dtype=cfg["dtype"])
        head_dim = cfg["emb_dim"] // cfg["n_heads"] if cfg["head_dim"] is None else cfg["head_dim"]
        cos, sin = compute_rope_params(head_dim=head_dim, theta_base=cfg["rope_base"],
                                       context_length=cfg["context_length"])
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)
        self.cfg = cfg

    def forward(self, in_idx, use_cache=False):
        x = self.tok_emb(in_idx)
        for block in self.trf_blocks:
            x = block(x, self.cos, self.sin, use_cache)
        x = self.final_norm(x)
        return self.out_head(x.to(self.cfg["dtype"]))

    def reset_kv_cache(self):
        for blk in self.trf_blocks:
            blk.att.reset_cache()


def load_weights_into_qwen(model, param_config, params):
    def assign(left, right, tensor_name="unknown"):
        if left.shape != right.shape:
            raise ValueError(f"Shape mismatch in tensor '{tensor_name}'. Left: {left.shape}, Right: {right.shape}")
        return torch.nn.Parameter(right.clone().detach() if isinstance(right, torch.Tensor) else torch.tensor(right))

    model.tok_emb.weight = assign(model.tok_emb.weight, params["model.embed_tokens.weight"])
    for l in range(param_config["n_layers"]):
        block = model.trf_blocks[l]
        att = block.att
        pre = f"model.layers.{l}"
        att.W_query.weight = assign(att.W_query.weight, params[f"{pre}.self_attn.q_proj.weight"])
        att.W_key.weight = assign(att.W_key.weight, params[f"{pre}.self_attn.k_proj.weight"])
        att.W_value.weight = assign(att.W_value.weight, params[f"{pre}.self_attn.v_proj.weight"])
        att.out_proj.weight = assign(att.out_proj.weight, params[f"{pre}.self_attn.o_proj.weight"])
        if hasattr(att, "q_norm") and att.q_norm is not None:
            att.q_norm.scale = assign(att.q_norm.scale, params[f"{pre}.self_attn.q_norm.weight"])
        if hasattr(att, "k_norm") and att.k_norm is not None:
            att.k_norm.scale = assign(att.k_norm.scale, params[f"{pre}.self_attn.k_norm.weight"])
        block.norm1.scale = assign(block.norm1.scale, params[f"{pre}.input_layernorm.weight"])
        if "num_experts" in param_config:
            block.ff.gate.weight = assign(block.ff.gate.weight, params[f"{pre}.mlp.gate.weight"])
            for e in range(param_config["num_experts"]):
                prefix = f"{pre}.mlp.experts.{e}"
                block.ff.fc1[e].weight = assign(block.ff.fc1[e].weight, params[f"{prefix}.gate_proj.weight"])
                block.ff.fc2[e].weight = assign(block.ff.fc2[e].weight, params[f"{prefix}.up_proj.weight"])
                block.ff.fc3[e].weight = assign(block.ff.fc3[e].weight, params[f"{prefix}.down_proj.weight"])
                # after assigning weights, move the expert layers from meta to CPU
                block.ff.fc1[e] = block.ff.fc1[e].to("cpu")
                block.ff.fc2[e] = block.ff.fc2[e].to("cpu")
                block.ff.fc3[e] = block.ff.fc3[e].to("cpu")
        block.norm2.scale = assign(block.norm2.scale, params[f"{pre}.post_attention_layernorm.weight"])
    model.final_norm.scale = assign(model.final_norm.scale, params["model.norm.weight"], "model.norm.weight")
    if "lm_head.weight" in params:
        model.out_head.weight = assign(model.out_head.weight, params["lm_head.weight"], "lm_head.weight")
    else:   # weight tying
        model.out_head.weight = assign(model.out_head.weight, params["model.embed_tokens.weight"])


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
    return (total_params + total_grads + total_buffers) * element_size / (1024**3)


def generate_text_simple(model, idx, max_new_tokens, use_cache=True):
    model.eval()
    ctx_len = model.cfg["context_length"]
    with torch.no_grad():
        if use_cache:
            model.reset_kv_cache()
            logits = model(idx[:, -ctx_len:], use_cache=True)
            for _ in range(max_new_tokens):
                next_idx = logits[:, -1].argmax(dim=-1, keepdim=True)
                idx = torch.cat([idx, next_idx], dim=1)
                logits = model(next_idx, use_cache=True)
        else:
            for _ in range(max_new_tokens):
                logits = model(idx[:, -ctx_len:], use_cache=False)
                next_idx = logits[:, -1].argmax(dim=-1, keepdim=True)
                idx = torch.cat([idx, next_idx], dim=1)
    return idx


def generate_text_simple_stream(model, token_ids, max_new_tokens, eos_token_id=None):
    model.eval()
    with torch.no_grad():
        model.reset_kv_cache()
        logits = model(token_ids, use_cache=True)
        for _ in range(max_new_tokens):
            next_token = torch.argmax(logits[:, -1], dim=-1, keepdim=True)
            if eos_token_id is not None and torch.all(next_token == eos_token_id):
                break
            yield next_token
            logits = model(next_token, use_cache=True)


QWEN3_CONFIG = {
    "vocab_size": 40, "context_length": 32, "window_size": None, "emb_dim": 16, "n_heads": 4,
    "n_layers": 2, "head_dim": 8, "qk_norm": True, "n_kv_groups": 2, "rope_base": 10_000_000.0,
    "dtype": torch.float32, "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 12,
    "hidden_dim": 24,
}
cfg = QWEN3_CONFIG

device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
device = torch.device("cpu")          # the toy run stays on the CPU on every machine
torch.manual_seed(123)
with device:
    model = Qwen3Model(cfg)
assert model.trf_blocks[0].ff.fc1[0].weight.device.type == "meta"
assert model.tok_emb.weight.device.type == "cpu"
assert "cos" not in model.state_dict() and "trf_blocks.0.att.cache_k" not in model.state_dict()

# a Hugging Face-style checkpoint (the names the real safetensors files use), random at toy size
g = torch.Generator().manual_seed(0)
hd, kv = cfg["head_dim"], cfg["n_kv_groups"]
params = {"model.embed_tokens.weight": torch.randn(cfg["vocab_size"], cfg["emb_dim"], generator=g),
          "model.norm.weight": 1 + 0.1 * torch.randn(cfg["emb_dim"], generator=g)}
for l in range(cfg["n_layers"]):
    pre = f"model.layers.{l}"
    shapes = {"self_attn.q_proj.weight": (cfg["n_heads"] * hd, cfg["emb_dim"]),
              "self_attn.k_proj.weight": (kv * hd, cfg["emb_dim"]),
              "self_attn.v_proj.weight": (kv * hd, cfg["emb_dim"]),
              "self_attn.o_proj.weight": (cfg["emb_dim"], cfg["n_heads"] * hd),
              "self_attn.q_norm.weight": (hd,), "self_attn.k_norm.weight": (hd,),
              "input_layernorm.weight": (cfg["emb_dim"],),
              "post_attention_layernorm.weight": (cfg["emb_dim"],),
              "mlp.gate.weight": (cfg["num_experts"], cfg["emb_dim"])}
    for e in range(cfg["num_experts"]):
        shapes[f"mlp.experts.{e}.gate_proj.weight"] = (cfg["moe_intermediate_size"], cfg["emb_dim"])
        shapes[f"mlp.experts.{e}.up_proj.weight"] = (cfg["moe_intermediate_size"], cfg["emb_dim"])
        shapes[f"mlp.experts.{e}.down_proj.weight"] = (cfg["emb_dim"], cfg["moe_intermediate_size"])
    for name, shape in shapes.items():
        if name.endswith("norm.weight") or "layernorm" in name:
            params[f"{pre}.{name}"] = 1 + 0.1 * torch.randn(shape, generator=g)
        else:
            params[f"{pre}.{name}"] = torch.randn(shape, generator=g) / shape[-1] ** 0.5

bad = dict(params, **{"model.norm.weight": torch.ones(cfg["emb_dim"] + 1)})
try:
    load_weights_into_qwen(model, cfg, bad)
    raise AssertionError("a shape mismatch must raise")
except ValueError as e:
    assert "Shape mismatch in tensor 'model.norm.weight'" in str(e), e
load_weights_into_qwen(model, cfg, params)
assert all(p.device.type == "cpu" for p in model.parameters())
assert torch.equal(model.trf_blocks[1].ff.fc3[2].weight, params["model.layers.1.mlp.experts.2.down_proj.weight"])
assert model.out_head.weight is not model.tok_emb.weight   # two Parameters, equal values
assert torch.equal(model.out_head.weight, model.tok_emb.weight)

total_params = sum(p.numel() for p in model.parameters())
expect = sum(v.numel() for v in params.values()) + cfg["vocab_size"] * cfg["emb_dim"]
assert total_params == expect, (total_params, expect)
gb32 = model_memory_size(model, input_dtype=torch.float32)
gb16 = model_memory_size(model, input_dtype=torch.bfloat16)
assert abs(gb32 - 2 * gb16) < 1e-15 and gb32 > 0
print(f"Total number of parameters: {total_params:,}; {gb32 * 1024**2:.3f} KiB in float32")

# the MoE layer: dense-with-gating equals the sparse dispatch
moe = model.trf_blocks[0].ff
x = torch.randn(2, 5, cfg["emb_dim"])
with torch.no_grad():
    dense, sparse = moe(x), moe.forward_sparse(x)
assert dense.shape == (2, 5, cfg["emb_dim"])
assert torch.allclose(dense, sparse, atol=1e-5), (dense - sparse).abs().max()

# generation: with and without the KV cache, the same greedy tokens
prompt = torch.tensor([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]])
with_cache = generate_text_simple(model, prompt, max_new_tokens=8, use_cache=True)
without = generate_text_simple(model, prompt, max_new_tokens=8, use_cache=False)
assert with_cache.shape == (2, 13), with_cache.shape
assert torch.equal(with_cache, without), (with_cache, without)
assert model.trf_blocks[0].att.cache_k.shape == (2, cfg["n_heads"], cfg["context_length"], hd)
assert model.trf_blocks[0].att.ptr == 13
assert "trf_blocks.0.att.cache_k" in dict(model.named_buffers())
model.reset_kv_cache()
assert model.trf_blocks[0].att.ptr == 0 and model.trf_blocks[0].att.cache_k.abs().sum() == 0

streamed = list(generate_text_simple_stream(model, prompt, max_new_tokens=8))
assert torch.equal(torch.cat(streamed, dim=1), with_cache[:, 5:]), streamed
# the cache is sized for the first batch it saw: a batch of one needs a fresh model
with device:
    model = Qwen3Model(cfg)
load_weights_into_qwen(model, cfg, params)
streamed = list(generate_text_simple_stream(model, prompt[:1], max_new_tokens=8))
assert torch.equal(torch.cat(streamed, dim=1), with_cache[:1, 5:]), streamed
eos = with_cache[0, 7].item()
stopped = list(generate_text_simple_stream(model, prompt[:1], max_new_tokens=8, eos_token_id=eos))
first = with_cache[0, 5:].tolist().index(eos)
assert len(stopped) == first <= 2, (stopped, first)

# a sliding window over the cache: only the last `window_size` keys are attended to
att = GroupedQueryAttention(d_in=16, num_heads=4, num_kv_groups=2, head_dim=8, qk_norm=True,
                            max_seq_len=16, window_size=4)
cos, sin = compute_rope_params(8, context_length=16)
with torch.no_grad():
    seq = torch.randn(1, 6, 16)
    att(seq[:, :5], cos, sin, use_cache=True)
    last = att(seq[:, 5:], cos, sin, use_cache=True)
    assert att.ptr == 6
    keys_seen = att.cache_k[:, :, 2:6]
    assert keys_seen.shape == (1, 4, 4, 8)
    full = att.cache_k[:, :, :6]
    assert last.shape == (1, 1, 16) and torch.isfinite(last).all()
    assert not torch.equal(keys_seen, full[:, :, :4])

# a few training steps through the router, the experts and the QK norms
model.train()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.1)
data = torch.randint(0, cfg["vocab_size"], (4, 12), generator=g)
inputs, targets = data[:, :-1], data[:, 1:]
losses = []
for step in range(12):
    logits = model(inputs)
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
assert model.trf_blocks[0].ff.gate.weight.grad is not None
assert model.trf_blocks[0].att.q_norm.scale.grad.shape == (hd,)
assert losses[-1] < losses[0], losses
print("qwen3 moe ok", [round(v, 3) for v in losses[::4]])
