"""Sebastian Raschka's "Gemma 3 From Scratch" (LLMs-from-scratch ch05/12_gemma3,
standalone-gemma3.ipynb) at toy size, in bfloat16 as the notebook runs it: the GeGLU feed-forward
(nn.functional.gelu(x_fc1, approximate="tanh") * x_fc2), the zero-centred RMSNorm (x.float(),
torch.rsqrt, x_norm * (1.0 + self.scale.float()), .to(input_dtype)), two RoPE tables (local and
global theta bases) held as non-persistent buffers, GroupedQueryAttention with QK-norm and
query_pre_attn_scalar ** -0.5 scaling, the four norms per block (pre/post attention, pre/post
feed-forward), layer_types alternating "sliding_attention" / "full_attention", the masks built
from torch.ones(..., dtype=torch.bool) with torch.triu(ones, diagonal=1) and
torch.triu(ones, diagonal=sliding_window).T combined with `|`, embeddings scaled by
emb_dim ** 0.5, load_weights_into_gemma from a Hugging Face-style dict (weight tying when
"lm_head.weight" is missing), the chat template, generate_text_basic_stream with an eos stop,
model_memory_size, and a bfloat16 vs float32 comparison plus a few float32 training steps."""
import torch
import torch.nn as nn


class FeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.fc1 = nn.Linear(cfg["emb_dim"], cfg["hidden_dim"], dtype=cfg["dtype"], bias=False)
        self.fc2 = nn.Linear(cfg["emb_dim"], cfg["hidden_dim"], dtype=cfg["dtype"], bias=False)
        self.fc3 = nn.Linear(cfg["hidden_dim"], cfg["emb_dim"], dtype=cfg["dtype"], bias=False)

    def forward(self, x):
        x = nn.functional.gelu(self.fc1(x), approximate="tanh") * self.fc2(x)
        return self.fc3(x)


class RMSNorm(nn.Module):
    def __init__(self, emb_dim, eps=1e-6, bias=False):
        super().__init__()
        self.eps = eps
        # Gemma 3 stores zero-centred weights and scales by (1 + weight)
        self.scale = nn.Parameter(torch.zeros(emb_dim))
        self.shift = nn.Parameter(torch.zeros(emb_dim)) if bias else None

    def forward(self, x):
        input_dtype = x.dtype
        x_f = x.float()
        var = x_f.pow(2).mean(dim=-1, keepdim=True)
        x_norm = x_f * torch.rsqrt(var + self.eps)
        out = x_norm * (1.0 + self.scale.float())
        if self.shift is not None:
            out = out + self.shift.float()
        return out.to(input_dtype)


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
    def __init__(self, d_in, num_heads, num_kv_groups, head_dim=None, qk_norm=False,
                 query_pre_attn_scalar=None, dtype=None):
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
        if query_pre_attn_scalar is not None:
            self.scaling = (query_pre_attn_scalar) ** -0.5
        else:
            self.scaling = (head_dim) ** -0.5

    def forward(self, x, mask, cos, sin):
        b, num_tokens, _ = x.shape
        queries = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        keys = self.W_key(x).view(b, num_tokens, self.num_kv_groups, self.head_dim).transpose(1, 2)
        values = self.W_value(x).view(b, num_tokens, self.num_kv_groups, self.head_dim).transpose(1, 2)
        if self.q_norm:
            queries = self.q_norm(queries)
        if self.k_norm:
            keys = self.k_norm(keys)
        queries = apply_rope(queries, cos, sin)
        keys = apply_rope(keys, cos, sin)
        keys = keys.repeat_interleave(self.group_size, dim=1)
        values = values.repeat_interleave(self.group_size, dim=1)
        queries = queries * self.scaling
        attn_scores = queries @ keys.transpose(2, 3)
        attn_scores = attn_scores.masked_fill(mask, -torch.inf)
        attn_weights = torch.softmax(attn_scores, dim=-1)
        context = (attn_weights @ values).transpose(1, 2).reshape(b, num_tokens, self.d_out)
        return self.out_proj(context)


class TransformerBlock(nn.Module):
    def __init__(self, cfg: dict, attn_type: str):
        super().__init__()
        self.attn_type = attn_type
        self.att = GroupedQueryAttention(
            d_in=cfg["emb_dim"], num_heads=cfg["n_heads"], num_kv_groups=cfg["n_kv_groups"],
            head_dim=cfg["head_dim"], qk_norm=cfg["qk_norm"],
            query_pre_attn_scalar=cfg["query_pre_attn_scalar"], dtype=cfg["dtype"])
        self.ff = FeedForward(cfg)
        self.input_layernorm = RMSNorm(cfg["emb_dim"], eps=1e-6)
        self.post_attention_layernorm = RMSNorm(cfg["emb_dim"], eps=1e-6)
        self.pre_feedforward_layernorm = RMSNorm(cfg["emb_dim"], eps=1e-6)
        self.post_feedforward_layernorm = RMSNorm(cfg["emb_dim"], eps=1e-6)

    def forward(self, x, mask_global, mask_local, cos_global, sin_global, cos_local, sin_local):
        shortcut = x
        x = self.input_layernorm(x)
        if self.attn_type == "sliding_attention":
            attn_mask, cos, sin = mask_local, cos_local, sin_local
        else:
            attn_mask, cos, sin = mask_global, cos_global, sin_global
        x_attn = self.att(x, attn_mask, cos, sin)
        x_attn = self.post_attention_layernorm(x_attn)
        x = shortcut + x_attn
        shortcut = x
        x_ffn = self.pre_feedforward_layernorm(x)
        x_ffn = self.ff(x_ffn)
        x_ffn = self.post_feedforward_layernorm(x_ffn)
        return shortcut + x_ffn


class Gemma3Model(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        assert cfg["layer_types"] is not None and len(cfg["layer_types"]) == cfg["n_layers"]
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"], dtype=cfg["dtype"])
        self.blocks = nn.ModuleList([TransformerBlock(cfg, attn_type) for attn_type in cfg["layer_types"]])
        self.final_norm = RMSNorm(cfg["emb_dim"], eps=1e-6)
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False, dtype=cfg["dtype"])
        self.cfg = cfg
        cos_local, sin_local = compute_rope_params(head_dim=cfg["head_dim"], theta_base=cfg["rope_local_base"],
                                                   context_length=cfg["context_length"], dtype=torch.float32)
        cos_global, sin_global = compute_rope_params(head_dim=cfg["head_dim"], theta_base=cfg["rope_base"],
                                                     context_length=cfg["context_length"], dtype=torch.float32)
        self.register_buffer("cos_local", cos_local, persistent=False)
        self.register_buffer("sin_local", sin_local, persistent=False)
        self.register_buffer("cos_global", cos_global, persistent=False)
        self.register_buffer("sin_global", sin_global, persistent=False)

    def _create_masks(self, seq_len, device):
        ones = torch.ones((seq_len, seq_len), dtype=torch.bool, device=device)
        mask_global = torch.triu(ones, diagonal=1)                          # the future: j > i
        far_past = torch.triu(ones, diagonal=self.cfg["sliding_window"]).T  # i - j >= window
        mask_local = mask_global | far_past
        return mask_global, mask_local

    def forward(self, input_ids):
        b, seq_len = input_ids.shape
        x = self.tok_emb(input_ids) * (self.cfg["emb_dim"] ** 0.5)
        mask_global, mask_local = self._create_masks(seq_len, x.device)
        for block in self.blocks:
            x = block(x, mask_global=mask_global, mask_local=mask_local,
                      cos_global=self.cos_global, sin_global=self.sin_global,
                      cos_local=self.cos_local, sin_local=self.sin_local)
        x = self.final_norm(x)
        return self.out_head(x.to(self.cfg["dtype"]))


def load_weights_into_gemma(model, param_config, params):
    def assign(left, right, tensor_name="unknown"):
        if left.shape != right.shape:
            raise ValueError(f"Shape mismatch in tensor '{tensor_name}'. Left: {left.shape}, Right: {right.shape}")
        return torch.nn.Parameter(right.clone().detach() if isinstance(right, torch.Tensor) else torch.tensor(right))

    if "model.embed_tokens.weight" in params:
        model.tok_emb.weight = assign(model.tok_emb.weight, params["model.embed_tokens.weight"])
    for l in range(param_config["n_layers"]):
        block = model.blocks[l]
        att = block.att
        pre = f"model.layers.{l}"
        att.W_query.weight = assign(att.W_query.weight, params[f"{pre}.self_attn.q_proj.weight"])
        att.W_key.weight = assign(att.W_key.weight, params[f"{pre}.self_attn.k_proj.weight"])
        att.W_value.weight = assign(att.W_value.weight, params[f"{pre}.self_attn.v_proj.weight"])
        att.out_proj.weight = assign(att.out_proj.weight, params[f"{pre}.self_attn.o_proj.weight"])
        att.q_norm.scale = assign(att.q_norm.scale, params[f"{pre}.self_attn.q_norm.weight"])
        att.k_norm.scale = assign(att.k_norm.scale, params[f"{pre}.self_attn.k_norm.weight"])
        block.ff.fc1.weight = assign(block.ff.fc1.weight, params[f"{pre}.mlp.gate_proj.weight"])
        block.ff.fc2.weight = assign(block.ff.fc2.weight, params[f"{pre}.mlp.up_proj.weight"])
        block.ff.fc3.weight = assign(block.ff.fc3.weight, params[f"{pre}.mlp.down_proj.weight"])
        block.input_layernorm.scale = assign(block.input_layernorm.scale, params[f"{pre}.input_layernorm.weight"])
        block.post_attention_layernorm.scale = assign(block.post_attention_layernorm.scale,
                                                      params[f"{pre}.post_attention_layernorm.weight"])
        pre_key = f"{pre}.pre_feedforward_layernorm.weight"
        post_key = f"{pre}.post_feedforward_layernorm.weight"
        if pre_key in params:
            block.pre_feedforward_layernorm.scale = assign(block.pre_feedforward_layernorm.scale, params[pre_key], pre_key)
        if post_key in params:
            block.post_feedforward_layernorm.scale = assign(block.post_feedforward_layernorm.scale, params[post_key], post_key)
    if "model.norm.weight" in params:
        model.final_norm.scale = assign(model.final_norm.scale, params["model.norm.weight"], "model.norm.weight")
    if "lm_head.weight" in params:
        model.out_head.weight = assign(model.out_head.weight, params["lm_head.weight"], "lm_head.weight")
    elif "model.embed_tokens.weight" in params:
        model.out_head.weight = assign(model.out_head.weight, params["model.embed_tokens.weight"])


def model_memory_size(model, input_dtype=torch.float32):
    total_params = sum(p.numel() for p in model.parameters())
    total_grads = sum(p.numel() for p in model.parameters() if p.requires_grad)
    total_buffers = sum(buf.numel() for buf in model.buffers())
    element_size = torch.tensor(0, dtype=input_dtype).element_size()
    return (total_params + total_grads + total_buffers) * element_size / (1024**3)


def generate_text_basic_stream(model, token_ids, max_new_tokens, eos_token_id=None):
    model.eval()
    with torch.no_grad():
        for _ in range(max_new_tokens):
            out = model(token_ids)[:, -1]
            next_token = torch.argmax(out, dim=-1, keepdim=True)
            if eos_token_id is not None and torch.all(next_token == eos_token_id):
                break
            yield next_token
            token_ids = torch.cat([token_ids, next_token], dim=1)


def apply_chat_template(user_text):
    return f"<start_of_turn>user\n{user_text}<end_of_turn>\n<start_of_turn>model\n"


class CharTokenizer:
    """Stands in for the tokenizers-library GemmaTokenizer: specials first, then characters."""
    specials = ["<bos>", "<start_of_turn>", "<end_of_turn>"]

    def __init__(self, text):
        self.itos = self.specials + sorted(set(text))
        self.stoi = {s: i for i, s in enumerate(self.itos)}
        self.eos_token_id = self.stoi["<end_of_turn>"]

    def encode(self, text):
        ids, i = [self.stoi["<bos>"]], 0
        while i < len(text):
            special = next((s for s in self.specials if text.startswith(s, i)), None)
            ids.append(self.stoi[special or text[i]])
            i += len(special) if special else 1
        return ids

    def decode(self, ids):
        return "".join(self.itos[i] for i in ids)


GEMMA3_CONFIG = {
    "vocab_size": 48, "context_length": 64, "emb_dim": 32, "n_heads": 4, "n_layers": 4,
    "hidden_dim": 48, "head_dim": 16, "qk_norm": True, "n_kv_groups": 1,
    "rope_local_base": 10_000.0, "rope_base": 1_000_000.0, "sliding_window": 4,
    "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "full_attention"],
    "dtype": torch.bfloat16, "query_pre_attn_scalar": 16,
}
cfg = GEMMA3_CONFIG

torch.manual_seed(123)
model = Gemma3Model(cfg)
assert model.tok_emb.weight.dtype == torch.bfloat16 and model.cos_local.dtype == torch.float32
assert model.final_norm.scale.dtype == torch.float32 and torch.count_nonzero(model.final_norm.scale) == 0
assert sorted(k for k, _ in model.named_buffers()) == ["cos_global", "cos_local", "sin_global", "sin_local"]
assert not any("cos" in k for k in model.state_dict())

# the masks of the notebook's diagrams (8 tokens, window 4)
mask_global, mask_local = Gemma3Model(dict(cfg, n_layers=1, layer_types=["full_attention"]))._create_masks(8, "cpu")
assert mask_global.dtype == torch.bool
assert mask_global.int().tolist()[3] == [0, 0, 0, 0, 1, 1, 1, 1]
assert mask_local.int().tolist()[4] == [1, 0, 0, 0, 0, 1, 1, 1]
assert mask_local.int().tolist()[7] == [1, 1, 1, 1, 0, 0, 0, 0]
assert int((~mask_local).sum(dim=1).max()) == 4          # at most `sliding_window` keys per query
assert torch.equal((~mask_local).sum(dim=1), torch.tensor([1, 2, 3, 4, 4, 4, 4, 4]))

# the two RoPE tables: same angle 0 at position 0, different elsewhere
assert torch.equal(model.cos_local[0], torch.ones(cfg["head_dim"]))
assert not torch.allclose(model.cos_local[5], model.cos_global[5])

# a Hugging Face-style checkpoint at toy size, without lm_head (Gemma ties it to the embedding)
g = torch.Generator().manual_seed(0)
hd, E = cfg["head_dim"], cfg["emb_dim"]
params = {"model.embed_tokens.weight": torch.randn(cfg["vocab_size"], E, generator=g) * 0.5,
          "model.norm.weight": 0.1 * torch.randn(E, generator=g)}
for l in range(cfg["n_layers"]):
    pre = f"model.layers.{l}"
    for name, shape in {"self_attn.q_proj.weight": (cfg["n_heads"] * hd, E),
                        "self_attn.k_proj.weight": (cfg["n_kv_groups"] * hd, E),
                        "self_attn.v_proj.weight": (cfg["n_kv_groups"] * hd, E),
                        "self_attn.o_proj.weight": (E, cfg["n_heads"] * hd),
                        "mlp.gate_proj.weight": (cfg["hidden_dim"], E),
                        "mlp.up_proj.weight": (cfg["hidden_dim"], E),
                        "mlp.down_proj.weight": (E, cfg["hidden_dim"])}.items():
        params[f"{pre}.{name}"] = (torch.randn(shape, generator=g) / shape[1] ** 0.5).to(torch.bfloat16)
    for name, n in {"self_attn.q_norm.weight": hd, "self_attn.k_norm.weight": hd,
                    "input_layernorm.weight": E, "post_attention_layernorm.weight": E,
                    "pre_feedforward_layernorm.weight": E, "post_feedforward_layernorm.weight": E}.items():
        params[f"{pre}.{name}"] = 0.1 * torch.randn(n, generator=g)
params["model.embed_tokens.weight"] = params["model.embed_tokens.weight"].to(torch.bfloat16)
load_weights_into_gemma(model, cfg, params)
assert model.blocks[2].ff.fc3.weight.dtype == torch.bfloat16
assert torch.equal(model.out_head.weight, model.tok_emb.weight)
assert model.out_head.weight is not model.tok_emb.weight
gb32 = model_memory_size(model, input_dtype=torch.float32)
gb16 = model_memory_size(model, input_dtype=torch.bfloat16)
assert abs(gb32 - 2 * gb16) < 1e-15
print(f"float32: {gb32 * 1024**2:.1f} KiB, bfloat16: {gb16 * 1024**2:.1f} KiB")

# the sliding window: a sliding-attention layer ignores tokens more than `window` back
att = model.blocks[0].att
x = torch.randn(1, 8, E).to(torch.bfloat16)
_, mask_local = model._create_masks(8, "cpu")
with torch.no_grad():
    y = att(x, mask_local, model.cos_local, model.sin_local)
    x2 = x.clone()
    x2[:, 0] = 5.0                                  # token 0 is out of token 7's window
    y2 = att(x2, mask_local, model.cos_local, model.sin_local)
assert y.dtype == torch.bfloat16 and y.shape == (1, 8, E)
assert torch.equal(y[:, 4:], y2[:, 4:]) and not torch.equal(y[:, :4], y2[:, :4])

# a chat prompt through the char tokenizer, streamed generation with an eos stop
text = "Give me a short introduction to large language models."
tokenizer = CharTokenizer(apply_chat_template(text) + "abcdefghijklmnopqrstuvwxyz")
prompt = apply_chat_template(text)
input_token_ids = tokenizer.encode(prompt)
assert tokenizer.decode(input_token_ids) == "<bos>" + prompt
assert max(input_token_ids) < cfg["vocab_size"], max(input_token_ids)
ids = torch.tensor(input_token_ids).unsqueeze(0)[:, -24:]
tokens = [t.squeeze(0).tolist() for t in generate_text_basic_stream(model, ids, max_new_tokens=6)]
assert len(tokens) == 6 and all(len(t) == 1 for t in tokens)
stop = tokens[2][0]
first = [t[0] for t in tokens].index(stop)
stopped = list(generate_text_basic_stream(model, ids, max_new_tokens=6, eos_token_id=stop))
assert len(stopped) == first, (stopped, first)
print("generated:", repr(tokenizer.decode([t[0] for t in tokens])))

# bfloat16 against a float32 copy of the same weights
model32 = Gemma3Model(dict(cfg, dtype=torch.float32))
model32.load_state_dict({k: v.float() for k, v in model.state_dict().items()})
with torch.no_grad():
    l16 = model(ids)
    l32 = model32(ids)
assert l16.dtype == torch.bfloat16 and l32.dtype == torch.float32
rel = ((l16.float() - l32).norm() / l32.norm()).item()
assert rel < 0.08, rel

# a few training steps in float32
model32.train()
optimizer = torch.optim.AdamW(model32.parameters(), lr=2e-3)
data = torch.tensor(tokenizer.encode(prompt + "large language models")).unsqueeze(0)[:, -40:]
losses = []
for _ in range(10):
    logits = model32(data[:, :-1])
    loss = nn.functional.cross_entropy(logits.flatten(0, 1), data[:, 1:].flatten())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
assert model32.blocks[0].post_feedforward_layernorm.scale.grad is not None
assert losses[-1] < losses[0] * 0.8, losses
print("gemma3 ok", round(losses[0], 3), round(losses[-1], 3), round(rel, 4))
