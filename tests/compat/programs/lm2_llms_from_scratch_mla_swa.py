"""Sebastian Raschka's ch04 bonus scripts on cheaper attention caches (LLMs-from-scratch
ch04/05_mla/gpt_with_kv_mla.py and ch04/06_swa/gpt_with_kv_swa.py) at toy size: the two files
share the chapter-4 GPTModel with a KV cache (nn.ModuleList of blocks, current_pos,
pos_emb(torch.arange(current_pos, current_pos + seq_len)).unsqueeze(0), reset_kv_cache) and
differ in the attention class, so here one GPTModel takes either. MultiHeadLatentAttention
caches only the down-projected latent (W_DKV) in a buffer registered as None, grown with
torch.cat and up-projected by W_UK / W_UV each step, its causal mask from absolute positions
(q_positions.unsqueeze(-1) < k_positions.unsqueeze(0)); MultiHeadAttentionWithSWA keeps at most
sliding_window_size keys (combined_k[:, -cache_keep:]), supports chunked prefill, and masks
(diff < 0) | (diff >= W); both with masked_fill_(mask_bool, -torch.inf), .contiguous().view(),
and generate_text_simple_cached with use_cache on and off; the script's
model.to(device, dtype=torch.bfloat16) run too."""
import torch
import torch.nn as nn


class MultiHeadLatentAttention(nn.Module):
    def __init__(self, d_in, d_out, dropout, num_heads, qkv_bias=False, latent_dim=None):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.latent_dim = latent_dim if latent_dim is not None else max(16, d_out // 8)
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_DKV = nn.Linear(d_in, self.latent_dim, bias=qkv_bias)
        self.W_UK = nn.Linear(self.latent_dim, d_out, bias=qkv_bias)
        self.W_UV = nn.Linear(self.latent_dim, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("cache_c_kv", None, persistent=False)
        self.ptr_current_pos = 0

    def reset_cache(self):
        self.cache_c_kv = None
        self.ptr_current_pos = 0

    @staticmethod
    def _reshape_to_heads(x, num_heads, head_dim):
        bsz, num_tokens, _ = x.shape
        return x.view(bsz, num_tokens, num_heads, head_dim).transpose(1, 2).contiguous()

    def forward(self, x, use_cache=False):
        b, num_tokens, _ = x.shape
        queries_all = self.W_query(x)
        latent_new = self.W_DKV(x)
        if use_cache:
            if self.cache_c_kv is None:
                latent_total = latent_new
            else:
                latent_total = torch.cat([self.cache_c_kv, latent_new], dim=1)
            self.cache_c_kv = latent_total
        else:
            latent_total = latent_new
        keys_all = self.W_UK(latent_total)
        values_all = self.W_UV(latent_total)
        queries = self._reshape_to_heads(queries_all, self.num_heads, self.head_dim)
        keys = self._reshape_to_heads(keys_all, self.num_heads, self.head_dim)
        values = self._reshape_to_heads(values_all, self.num_heads, self.head_dim)
        attn_scores = torch.matmul(queries, keys.transpose(-2, -1))
        num_tokens_Q = queries.shape[-2]
        num_tokens_K = keys.shape[-2]
        device = queries.device
        if use_cache:
            q_positions = torch.arange(self.ptr_current_pos, self.ptr_current_pos + num_tokens_Q,
                                       device=device, dtype=torch.long)
            self.ptr_current_pos += num_tokens_Q
        else:
            q_positions = torch.arange(num_tokens_Q, device=device, dtype=torch.long)
            self.ptr_current_pos = 0
        k_positions = torch.arange(num_tokens_K, device=device, dtype=torch.long)
        mask_bool = q_positions.unsqueeze(-1) < k_positions.unsqueeze(0)
        attn_scores.masked_fill_(mask_bool, -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)


class MultiHeadAttentionWithSWA(nn.Module):
    def __init__(self, d_in, d_out, dropout, num_heads, qkv_bias=False, sliding_window_size=None):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.sliding_window_size = sliding_window_size
        self.register_buffer("cache_k", None, persistent=False)
        self.register_buffer("cache_v", None, persistent=False)
        self.ptr_current_pos = 0

    def forward(self, x, use_cache=False):
        b, num_tokens, d_in = x.shape
        keys_new = self.W_key(x).view(b, num_tokens, self.num_heads, self.head_dim)
        values_new = self.W_value(x).view(b, num_tokens, self.num_heads, self.head_dim)
        queries = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim)
        if use_cache:
            old_cache_k, old_cache_v = self.cache_k, self.cache_v
            old_len = 0 if old_cache_k is None else old_cache_k.size(1)
            if old_cache_k is None:
                combined_k, combined_v = keys_new, values_new
            else:
                combined_k = torch.cat([old_cache_k, keys_new], dim=1)
                combined_v = torch.cat([old_cache_v, values_new], dim=1)
            keys, values = combined_k, combined_v
            if self.sliding_window_size is not None:
                attn_keep = min(keys.size(1), self.sliding_window_size + num_tokens - 1)
                keys = keys[:, -attn_keep:, :, :]
                values = values[:, -attn_keep:, :, :]
                cache_keep = min(combined_k.size(1), self.sliding_window_size)
                self.cache_k = combined_k[:, -cache_keep:, :, :]
                self.cache_v = combined_v[:, -cache_keep:, :, :]
            else:
                self.cache_k, self.cache_v = combined_k, combined_v
            dropped = combined_k.size(1) - keys.size(1)
            k_start_pos_abs = (self.ptr_current_pos - old_len) + dropped
            q_start_pos_abs = self.ptr_current_pos
        else:
            keys, values = keys_new, values_new
        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)
        attn_scores = queries @ keys.transpose(2, 3)
        num_tokens_Q = queries.shape[-2]
        num_tokens_K = keys.shape[-2]
        device = queries.device
        if use_cache:
            q_start, k_start = q_start_pos_abs, k_start_pos_abs
        else:
            q_start, k_start = 0, 0
        q_positions = torch.arange(q_start, q_start + num_tokens_Q, device=device, dtype=torch.long)
        k_positions = torch.arange(k_start, k_start + num_tokens_K, device=device, dtype=torch.long)
        W = num_tokens_K + 1 if self.sliding_window_size is None else int(self.sliding_window_size)
        diff = q_positions.unsqueeze(-1) - k_positions.unsqueeze(0)
        mask_bool = (diff < 0) | (diff >= W)
        if use_cache:
            self.ptr_current_pos += num_tokens_Q
        else:
            self.ptr_current_pos = 0
        attn_scores.masked_fill_(mask_bool, -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)

    def reset_cache(self):
        self.cache_k, self.cache_v = None, None
        self.ptr_current_pos = 0


class LayerNorm(nn.Module):
    def __init__(self, emb_dim):
        super().__init__()
        self.eps = 1e-5
        self.scale = nn.Parameter(torch.ones(emb_dim))
        self.shift = nn.Parameter(torch.zeros(emb_dim))

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, keepdim=True, unbiased=False)
        norm_x = (x - mean) / torch.sqrt(var + self.eps)
        return self.scale * norm_x + self.shift


class GELU(nn.Module):
    def forward(self, x):
        return 0.5 * x * (1 + torch.tanh(torch.sqrt(torch.tensor(2.0 / torch.pi)) * (x + 0.044715 * torch.pow(x, 3))))


class FeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(cfg["emb_dim"], 4 * cfg["emb_dim"]), GELU(),
                                    nn.Linear(4 * cfg["emb_dim"], cfg["emb_dim"]))

    def forward(self, x):
        return self.layers(x)


class TransformerBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        if cfg["attention"] == "mla":
            self.att = MultiHeadLatentAttention(d_in=cfg["emb_dim"], d_out=cfg["emb_dim"], num_heads=cfg["n_heads"],
                                                dropout=cfg["drop_rate"], qkv_bias=cfg["qkv_bias"],
                                                latent_dim=cfg["latent_dim"])
        else:
            self.att = MultiHeadAttentionWithSWA(d_in=cfg["emb_dim"], d_out=cfg["emb_dim"], num_heads=cfg["n_heads"],
                                                 dropout=cfg["drop_rate"], qkv_bias=cfg["qkv_bias"],
                                                 sliding_window_size=cfg["sliding_window_size"])
        self.ff = FeedForward(cfg)
        self.norm1 = LayerNorm(cfg["emb_dim"])
        self.norm2 = LayerNorm(cfg["emb_dim"])
        self.drop_shortcut = nn.Dropout(cfg["drop_rate"])

    def forward(self, x, use_cache=False):
        shortcut = x
        x = self.att(self.norm1(x), use_cache=use_cache)
        x = self.drop_shortcut(x) + shortcut
        shortcut = x
        x = self.ff(self.norm2(x))
        return self.drop_shortcut(x) + shortcut


class GPTModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.drop_emb = nn.Dropout(cfg["drop_rate"])
        self.trf_blocks = nn.ModuleList([TransformerBlock(cfg) for _ in range(cfg["n_layers"])])
        self.current_pos = 0
        self.final_norm = LayerNorm(cfg["emb_dim"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)

    def forward(self, in_idx, use_cache=False):
        batch_size, seq_len = in_idx.shape
        tok_embeds = self.tok_emb(in_idx)
        if use_cache:
            pos_ids = torch.arange(self.current_pos, self.current_pos + seq_len, device=in_idx.device, dtype=torch.long)
            self.current_pos += seq_len
        else:
            pos_ids = torch.arange(0, seq_len, device=in_idx.device, dtype=torch.long)
        pos_embeds = self.pos_emb(pos_ids).unsqueeze(0)
        x = self.drop_emb(tok_embeds + pos_embeds)
        for blk in self.trf_blocks:
            x = blk(x, use_cache=use_cache)
        x = self.final_norm(x)
        return self.out_head(x)

    def reset_kv_cache(self):
        for blk in self.trf_blocks:
            blk.att.reset_cache()
        self.current_pos = 0


def generate_text_simple_cached(model, idx, max_new_tokens, context_size=None, use_cache=True):
    model.eval()
    ctx_len = context_size or model.pos_emb.num_embeddings
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


base = {"vocab_size": 60, "context_length": 40, "emb_dim": 32, "n_heads": 4, "n_layers": 2, "drop_rate": 0.0,
        "qkv_bias": False, "latent_dim": 8, "sliding_window_size": 4}
prompt = torch.tensor([[5, 17, 3, 44, 8, 21, 9]])

for attention in ("mla", "swa"):
    cfg = dict(base, attention=attention)
    torch.manual_seed(123)
    model = GPTModel(cfg)
    model.eval()
    with torch.no_grad():               # sharper logits: the greedy choice must not tie
        model.out_head.weight.mul_(20.0)
    cached = generate_text_simple_cached(model, prompt, max_new_tokens=12)
    att = model.trf_blocks[0].att
    cache_shape = tuple((att.cache_c_kv if attention == "mla" else att.cache_k).shape)
    ptr = att.ptr_current_pos
    plain = generate_text_simple_cached(model, prompt, max_new_tokens=12, use_cache=False)
    assert cached.shape == (1, 19) and torch.equal(cached, plain), (attention, cached, plain)
    assert att.ptr_current_pos == 0 and ptr == 19       # the uncached forward resets the position
    if attention == "mla":
        # only the latent is cached: (b, tokens, latent_dim) instead of 2 x (b, tokens, d_out)
        assert cache_shape == (1, 19, 8)
        assert "trf_blocks.0.att.cache_c_kv" in dict(model.named_buffers())
        assert "trf_blocks.0.att.cache_c_kv" not in model.state_dict()
        assert att.cache_c_kv.numel() * 8 == 2 * 19 * 32        # 8x less than K and V
        ids = torch.randint(0, 60, (2, 10))
        with torch.no_grad():
            model.reset_kv_cache()
            full = model(ids)
            model.reset_kv_cache()
            first = model(ids[:, :6], use_cache=True)
            rest = model(ids[:, 6:], use_cache=True)
        assert torch.allclose(torch.cat([first, rest], dim=1), full, atol=1e-4)
    else:
        # the cache never holds more than the window
        assert cache_shape == (1, 4, 4, 8)
        ids = torch.randint(0, 60, (2, 12))
        with torch.no_grad():
            model.reset_kv_cache()
            full = model(ids)                           # no cache: the sliding mask only
            model.reset_kv_cache()
            chunks = [model(ids[:, i:i + 3], use_cache=True) for i in range(0, 12, 3)]   # chunked prefill
        assert torch.allclose(torch.cat(chunks, dim=1), full, atol=1e-4)
        assert model.trf_blocks[1].att.cache_k.shape[1] == 4
        # a window as long as the context is plain causal attention
        wide = GPTModel(dict(cfg, sliding_window_size=40))
        wide.load_state_dict(model.state_dict())
        causal = GPTModel(dict(cfg, sliding_window_size=None))
        causal.load_state_dict(model.state_dict())
        with torch.no_grad():
            assert torch.allclose(wide(ids), causal(ids), atol=1e-5)
            assert not torch.allclose(wide(ids), full, atol=1e-3)

    # the script's bfloat16 run
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device("cpu")
    model.to(device, dtype=torch.bfloat16)
    assert model.tok_emb.weight.dtype == torch.bfloat16
    out16 = generate_text_simple_cached(model=model, idx=prompt.to(device), max_new_tokens=6)
    assert out16.shape == (1, 13) and out16.dtype == torch.long
    print(attention, "ok", cached[0, 7:].tolist(), out16[0, 7:].tolist())
