"""pytorch-labs/gpt-fast (model.py + generate.py) at toy size: ModelArgs with find_multiple,
KVCache as an nn.Module with k_cache / v_cache buffers written by index (k_out[:, :, input_pos] =
k_val), Transformer.setup_caches building torch.tril(torch.ones(L, L, dtype=torch.bool)) and the
RoPE cache, Attention with wqkv(x).split([...], dim=-1), k.repeat_interleave(n_head //
n_local_heads, dim=1) and F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=0.0)
under a boolean mask self.causal_mask[None, None, input_pos], RMSNorm (x * torch.rsqrt(...)),
apply_rotary_emb on x.float().reshape(*x.shape[:-1], -1, 2) with a real (seq, dim/2, 2) cos/sin
cache (gpt-fast builds it with torch.polar then torch.stack([freqs_cis.real, freqs_cis.imag],
dim=-1); labkit has no complex dtype, so the same numbers come from torch.cos / torch.sin),
multinomial_sample_one_no_sync (torch.empty_like(probs_sort).exponential_(1), argmax of
probs / q, .to(dtype=torch.int)), logits_to_probs with v.select(-1, -1).unsqueeze(-1) and
torch.where(logits < pivot, -float("Inf"), logits), prefill / decode_one_token /
decode_n_tokens under torch.nn.attention.sdpa_kernel(SDPBackend.MATH), the decode step wrapped
in torch.compile(mode="reduce-overhead", fullgraph=True), torch.backends.cuda.enable_*_sdp
switches, and per-token log-probabilities via F.log_softmax(logits, dim=-1, dtype=torch.float32)
and torch.gather."""
import itertools
from dataclasses import dataclass
from typing import Optional

import torch
import torch.nn as nn
from torch import Tensor
from torch.nn import functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


def find_multiple(n: int, k: int) -> int:
    if n % k == 0:
        return n
    return n + k - (n % k)


@dataclass
class ModelArgs:
    block_size: int = 32
    vocab_size: int = 40
    n_layer: int = 2
    n_head: int = 4
    dim: int = 32
    intermediate_size: int = None
    n_local_heads: int = -1
    head_dim: int = 64
    rope_base: float = 10000
    norm_eps: float = 1e-5

    def __post_init__(self):
        if self.n_local_heads == -1:
            self.n_local_heads = self.n_head
        if self.intermediate_size is None:
            hidden_dim = 4 * self.dim
            n_hidden = int(2 * hidden_dim / 3)
            self.intermediate_size = find_multiple(n_hidden, 16)
        self.head_dim = self.dim // self.n_head


class KVCache(nn.Module):
    def __init__(self, max_batch_size, max_seq_length, n_heads, head_dim, dtype=torch.float32):
        super().__init__()
        cache_shape = (max_batch_size, n_heads, max_seq_length, head_dim)
        self.register_buffer('k_cache', torch.zeros(cache_shape, dtype=dtype))
        self.register_buffer('v_cache', torch.zeros(cache_shape, dtype=dtype))

    def update(self, input_pos, k_val, v_val):
        assert input_pos.shape[0] == k_val.shape[2]
        k_out = self.k_cache
        v_out = self.v_cache
        k_out[:, :, input_pos] = k_val
        v_out[:, :, input_pos] = v_val
        return k_out, v_out


class Transformer(nn.Module):
    def __init__(self, config: ModelArgs) -> None:
        super().__init__()
        self.config = config
        self.tok_embeddings = nn.Embedding(config.vocab_size, config.dim)
        self.layers = nn.ModuleList(TransformerBlock(config) for _ in range(config.n_layer))
        self.norm = RMSNorm(config.dim, eps=config.norm_eps)
        self.output = nn.Linear(config.dim, config.vocab_size, bias=False)
        self.freqs_cis: Optional[Tensor] = None
        self.mask_cache: Optional[Tensor] = None
        self.max_batch_size = -1
        self.max_seq_length = -1

    def setup_caches(self, max_batch_size, max_seq_length):
        if self.max_seq_length >= max_seq_length and self.max_batch_size >= max_batch_size:
            return
        head_dim = self.config.dim // self.config.n_head
        max_seq_length = find_multiple(max_seq_length, 8)
        self.max_seq_length = max_seq_length
        self.max_batch_size = max_batch_size
        dtype = self.output.weight.dtype
        for b in self.layers:
            b.attention.kv_cache = KVCache(max_batch_size, max_seq_length, self.config.n_local_heads, head_dim, dtype)
        self.freqs_cis = precompute_freqs_cis(self.config.block_size, self.config.dim // self.config.n_head,
                                              self.config.rope_base, dtype)
        self.causal_mask = torch.tril(torch.ones(self.max_seq_length, self.max_seq_length, dtype=torch.bool))

    def forward(self, idx: Tensor, input_pos: Optional[Tensor] = None) -> Tensor:
        assert self.freqs_cis is not None, "Caches must be initialized first"
        mask = self.causal_mask[None, None, input_pos]
        freqs_cis = self.freqs_cis[input_pos]
        x = self.tok_embeddings(idx)
        for i, layer in enumerate(self.layers):
            x = layer(x, input_pos, freqs_cis, mask)
        x = self.norm(x)
        logits = self.output(x)
        return logits


class TransformerBlock(nn.Module):
    def __init__(self, config: ModelArgs) -> None:
        super().__init__()
        self.attention = Attention(config)
        self.feed_forward = FeedForward(config)
        self.ffn_norm = RMSNorm(config.dim, config.norm_eps)
        self.attention_norm = RMSNorm(config.dim, config.norm_eps)

    def forward(self, x, input_pos, freqs_cis, mask):
        h = x + self.attention(self.attention_norm(x), freqs_cis, mask, input_pos)
        out = h + self.feed_forward(self.ffn_norm(h))
        return out


class Attention(nn.Module):
    def __init__(self, config: ModelArgs):
        super().__init__()
        assert config.dim % config.n_head == 0
        total_head_dim = (config.n_head + 2 * config.n_local_heads) * config.head_dim
        self.wqkv = nn.Linear(config.dim, total_head_dim, bias=False)
        self.wo = nn.Linear(config.dim, config.dim, bias=False)
        self.kv_cache = None
        self.n_head = config.n_head
        self.head_dim = config.head_dim
        self.n_local_heads = config.n_local_heads
        self.dim = config.dim

    def forward(self, x, freqs_cis, mask, input_pos=None):
        bsz, seqlen, _ = x.shape
        kv_size = self.n_local_heads * self.head_dim
        q, k, v = self.wqkv(x).split([self.dim, kv_size, kv_size], dim=-1)
        q = q.view(bsz, seqlen, self.n_head, self.head_dim)
        k = k.view(bsz, seqlen, self.n_local_heads, self.head_dim)
        v = v.view(bsz, seqlen, self.n_local_heads, self.head_dim)
        q = apply_rotary_emb(q, freqs_cis)
        k = apply_rotary_emb(k, freqs_cis)
        q, k, v = map(lambda x: x.transpose(1, 2), (q, k, v))
        if self.kv_cache is not None:
            k, v = self.kv_cache.update(input_pos, k, v)
        k = k.repeat_interleave(self.n_head // self.n_local_heads, dim=1)
        v = v.repeat_interleave(self.n_head // self.n_local_heads, dim=1)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=0.0)
        y = y.transpose(1, 2).contiguous().view(bsz, seqlen, self.dim)
        y = self.wo(y)
        return y


class FeedForward(nn.Module):
    def __init__(self, config: ModelArgs) -> None:
        super().__init__()
        self.w1 = nn.Linear(config.dim, config.intermediate_size, bias=False)
        self.w3 = nn.Linear(config.dim, config.intermediate_size, bias=False)
        self.w2 = nn.Linear(config.intermediate_size, config.dim, bias=False)

    def forward(self, x: Tensor) -> Tensor:
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def _norm(self, x):
        return x * torch.rsqrt(torch.mean(x * x, dim=-1, keepdim=True) + self.eps)

    def forward(self, x: Tensor) -> Tensor:
        output = self._norm(x.float()).type_as(x)
        return output * self.weight


def precompute_freqs_cis(seq_len: int, n_elem: int, base: int = 10000, dtype: torch.dtype = torch.bfloat16) -> Tensor:
    freqs = 1.0 / (base ** (torch.arange(0, n_elem, 2)[: (n_elem // 2)].float() / n_elem))
    t = torch.arange(seq_len, device=freqs.device)
    freqs = torch.outer(t, freqs)
    cache = torch.stack([torch.cos(freqs), torch.sin(freqs)], dim=-1)
    return cache.to(dtype=dtype)


def apply_rotary_emb(x: Tensor, freqs_cis: Tensor) -> Tensor:
    xshaped = x.float().reshape(*x.shape[:-1], -1, 2)
    freqs_cis = freqs_cis.view(1, xshaped.size(1), 1, xshaped.size(3), 2)
    x_out2 = torch.stack(
        [
            xshaped[..., 0] * freqs_cis[..., 0] - xshaped[..., 1] * freqs_cis[..., 1],
            xshaped[..., 1] * freqs_cis[..., 0] + xshaped[..., 0] * freqs_cis[..., 1],
        ],
        -1,
    )
    x_out2 = x_out2.flatten(3)
    return x_out2.type_as(x)


def multinomial_sample_one_no_sync(probs_sort):
    q = torch.empty_like(probs_sort).exponential_(1)
    return torch.argmax(probs_sort / q, dim=-1, keepdim=True).to(dtype=torch.int)


def logits_to_probs(logits, temperature: float = 1.0, top_k: Optional[int] = None):
    logits = logits / max(temperature, 1e-5)
    if top_k is not None:
        v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
        pivot = v.select(-1, -1).unsqueeze(-1)
        logits = torch.where(logits < pivot, -float("Inf"), logits)
    probs = torch.nn.functional.softmax(logits, dim=-1)
    return probs


def sample(logits, temperature: float = 1.0, top_k: Optional[int] = None):
    probs = logits_to_probs(logits[:, -1], temperature, top_k)
    idx_next = multinomial_sample_one_no_sync(probs)
    return idx_next, probs


def prefill(model: Transformer, x: torch.Tensor, input_pos: torch.Tensor, **sampling_kwargs) -> torch.Tensor:
    logits = model(x, input_pos)
    return sample(logits, **sampling_kwargs)[0]


def decode_one_token(model: Transformer, x: torch.Tensor, input_pos: torch.Tensor, **sampling_kwargs):
    assert input_pos.shape[-1] == 1
    logits = model(x, input_pos)
    return sample(logits, **sampling_kwargs)


def decode_n_tokens(model, cur_token, input_pos, num_new_tokens, callback=lambda _: _, **sampling_kwargs):
    new_tokens, new_probs = [], []
    for i in range(num_new_tokens):
        with sdpa_kernel(SDPBackend.MATH):
            next_token, next_prob = decode_one_token(model, cur_token, input_pos, **sampling_kwargs)
            input_pos += 1
            new_tokens.append(next_token.clone())
            callback(new_tokens[-1])
            new_probs.append(next_prob.clone())
            cur_token = next_token.clone()
    return new_tokens, new_probs


@torch.no_grad()
def generate(model, prompt, max_new_tokens, batch_size=1, **sampling_kwargs):
    T = prompt.size(-1)
    T_new = T + max_new_tokens
    max_seq_length = min(T_new, model.config.block_size)
    device, dtype = prompt.device, prompt.dtype
    with torch.device(device):
        model.setup_caches(max_batch_size=batch_size, max_seq_length=max_seq_length)
    empty = torch.empty(batch_size, T_new, dtype=dtype, device=device)
    prompt = prompt.view(1, -1).repeat(batch_size, 1)
    empty[:, :T] = prompt
    seq = empty
    input_pos = torch.arange(0, T, device=device)
    next_token = prefill(model, prompt.view(batch_size, -1), input_pos, **sampling_kwargs).clone()
    seq[:, T] = next_token.squeeze()
    input_pos = torch.tensor([T], device=device, dtype=torch.int)
    generated_tokens, _ = decode_n_tokens(model, next_token.view(batch_size, -1), input_pos,
                                          max_new_tokens - 1, **sampling_kwargs)
    seq[:, T + 1:] = torch.cat(generated_tokens, dim=-1)
    return seq


torch.manual_seed(1234)
torch.backends.cuda.enable_flash_sdp(False)
torch.backends.cuda.enable_mem_efficient_sdp(False)
assert not torch.backends.cuda.flash_sdp_enabled() and torch.backends.cuda.math_sdp_enabled()
torch.backends.cuda.enable_flash_sdp(True)
torch.backends.cuda.enable_mem_efficient_sdp(True)

config = ModelArgs()
model = Transformer(config)
print(config)

# train it briefly to count modulo 7 with full-sequence forward passes
model.setup_caches(max_batch_size=8, max_seq_length=16)   # a 16 x 16 causal mask for training
for b in model.layers:
    b.attention.kv_cache = None   # a cache written during a training forward would join the graph
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
data = torch.arange(0, 400) % 7 + 3
for step in range(40):
    ix = torch.randint(0, len(data) - 17, (8,))
    x = torch.stack([data[i:i + 16] for i in ix])
    y = torch.stack([data[i + 1:i + 17] for i in ix])
    logits = model(x, torch.arange(16))
    loss = F.cross_entropy(logits.view(-1, config.vocab_size), y.view(-1))
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
print("loss", round(loss.item(), 4))
assert loss.item() < 0.5

# the decode step, "compiled"
decode_one_token = torch.compile(decode_one_token, mode="reduce-overhead", fullgraph=True)
model.max_seq_length = -1
prompt = torch.tensor([3, 4, 5, 6], dtype=torch.int)
seq = generate(model, prompt, 8, batch_size=2, temperature=0.01, top_k=3)
print(seq.tolist())
assert seq.dtype == torch.int32 and seq.shape == (2, 12)
assert seq[0, 4:7].tolist() == [7, 8, 9]
assert model.layers[0].attention.kv_cache.k_cache.requires_grad is False
print(sorted(k for k in model.state_dict() if "cache" in k))

# per-token log-probabilities of the generated continuation, in float32
with torch.no_grad():
    model.setup_caches(max_batch_size=2, max_seq_length=config.block_size)
    logits = model(seq[:, :-1], torch.arange(11))
logprobs = F.log_softmax(logits, dim=-1, dtype=torch.float32)
token_logprobs = torch.gather(logprobs, -1, seq[:, 1:].long().unsqueeze(-1)).squeeze(-1)
print(token_logprobs.dtype, token_logprobs.shape)
assert token_logprobs.dtype == torch.float32 and bool((token_logprobs <= 0).all())
assert token_logprobs[:, 4:].exp().mean() > 0.5

probs = logits_to_probs(torch.tensor([[1.0, 3.0, 2.0, 0.5]]), temperature=1.0, top_k=2)
print(probs)
assert probs[0, 0] == 0 and probs[0, 3] == 0 and torch.isclose(probs.sum(), torch.tensor(1.0))
g = torch.manual_seed(0)
draws = torch.cat([multinomial_sample_one_no_sync(torch.tensor([[0.1, 0.0, 0.9]])) for _ in range(200)])
assert draws.dtype == torch.int32 and 1 not in draws.tolist() and (draws == 2).float().mean() > 0.75
