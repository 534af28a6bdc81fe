"""Lightning AI's litgpt (litgpt/model.py, config.py, lora.py, generate/base.py, utils.py) at toy
size, the parts its Pythia / Llama / Gemma-2 configurations use: the Config dataclass with
__post_init__ (head_size, find_multiple padded vocabulary, n_query_groups, rope_n_elem from
rotary_percentage), GPT with the max_seq_length property (cos/sin buffers registered on first
set), build_rope_cache (torch.outer(seq_idx, theta).repeat(1, 2)), apply_rope on the first
rope_n_elem features only, the fused qkv projection split by (query_size, key_size, value_size),
GQA through repeat_interleave, F.scaled_dot_product_attention(attn_mask=, scale=, is_causal=
mask is None), tanh soft-capping (attention and final logits, F.softmax(..., dtype=torch.float)),
the sliding-window mask built with torch.full(..., float("-inf")), parallel residual with a
shared attention norm, GptNeoxMLP (F.gelu(approximate=...)) / LLaMAMLP, RMSNorm, the KVCache
module (buffers, batched_index_copy_ with index_copy_ on slices, a ring buffer for sliding
windows, input_pos % max_cache_len), build_mask_cache, batched_index_select for (B, T) positions,
set_kv_cache / clear_kv_cache, input_pos_maxp1, lm_head_chunk_size with chunked_cross_entropy,
CausalSelfAttention._load_from_state_dict turning a legacy interleaved "attn" checkpoint into
"qkv" (qkv_reassemble: torch.chunk, torch.split, torch.cat), generate_fn / generate with
sample (top-k through torch.full_like(...).scatter_, top-p sample_top_p with .scatter(0, ...),
multinomial_num_samples_1 with torch._dynamo.is_compiling()) and stop tokens; then LoRA:
LoRALinear (kaiming_uniform_ A, zero B, scaling alpha / r), a LoRA LLaMAMLP whose
_load_from_state_dict maps a base checkpoint (map_old_state_dict_weights),
mark_only_lora_as_trainable, a few fine-tuning steps, merge_lora_weights
(self.linear.weight.data += ...), the lora_filter'ed state dict; and adapter.py's LLaMA-Adapter
(zero-init gating_factor, adapter_wte prompts through the qkv projection, a bool all-True mask,
mark_only_adapter_as_trainable, the _load_from_state_dict that permutes old gating factors). One change: with
soft-capping, the KV cache's boolean mask is made additive before it is added to the scores (the
file adds the bool tensor itself, which masks nothing)."""
import math
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal, Mapping

import torch
import torch.nn as nn
import torch.nn.functional as F


def find_multiple(n: int, k: int) -> int:
    assert k > 0
    if n % k == 0:
        return n
    return n + k - (n % k)


@dataclass
class Config:
    name: str = ""
    block_size: int = 4096
    n_layer: int = 16
    n_embd: int = 4096
    vocab_size: int = 50254
    padding_multiple: int = 512
    padded_vocab_size: int | None = None
    norm_class_name: Literal["LayerNorm", "RMSNorm"] = "LayerNorm"
    norm_eps: float = 1e-5
    post_attention_norm: bool = False
    post_mlp_norm: bool = False
    parallel_residual: bool = True
    shared_attention_norm: bool = False
    n_head: int = 32
    head_size: int | None = None
    n_query_groups: int | None = None
    attn_bias: bool = False
    attention_scores_scalar: int | None = None
    sliding_window_size: int | None = None
    sliding_window_indices: list | None = None
    attention_logit_softcapping: float | None = None
    final_logit_softcapping: float | None = None
    rotary_percentage: float = 0.25
    rope_condense_ratio: int = 1
    rope_base: int = 10000
    mlp_class_name: Literal["GptNeoxMLP", "LLaMAMLP"] = "GptNeoxMLP"
    gelu_approximate: str = "none"
    intermediate_size: int | None = None
    bias: bool = True
    lm_head_bias: bool = False
    scale_embeddings: bool = False
    # LoRA (litgpt.lora.Config)
    lora_r: int = 0
    lora_alpha: int = 1
    lora_dropout: float = 0.0

    def __post_init__(self):
        if self.head_size is None:
            assert self.n_embd % self.n_head == 0
            self.head_size = self.n_embd // self.n_head
        if self.padded_vocab_size is None:
            self.padded_vocab_size = find_multiple(self.vocab_size, self.padding_multiple)
        else:
            self.vocab_size = min(self.vocab_size, self.padded_vocab_size)
        if self.n_query_groups is not None:
            assert self.n_head % self.n_query_groups == 0
        else:
            self.n_query_groups = self.n_head
        if self.intermediate_size is None:
            if self.mlp_class_name == "LLaMAMLP":
                raise ValueError(f"The config {self.name!r}, needs to set the `intermediate_size`")
            self.intermediate_size = 4 * self.n_embd
        self.rope_n_elem = int(self.rotary_percentage * self.head_size)
        if self.sliding_window_size is not None and self.sliding_window_indices is None:
            self.sliding_window_indices = [1] * self.n_layer

    @property
    def mlp_class(self) -> type:
        return {"GptNeoxMLP": GptNeoxMLP, "LLaMAMLP": LoRALLaMAMLP if self.lora_r else LLaMAMLP}[self.mlp_class_name]

    @property
    def norm_class(self) -> type:
        if self.norm_class_name == "RMSNorm":
            return partial(RMSNorm, add_unit_offset="Gemma" in self.name)
        return getattr(torch.nn, self.norm_class_name)


class GPT(nn.Module):
    def __init__(self, config: Config) -> None:
        super().__init__()
        assert config.padded_vocab_size is not None
        self.config = config
        self.lm_head = nn.Linear(config.n_embd, config.padded_vocab_size, bias=config.lm_head_bias)
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(config.padded_vocab_size, config.n_embd),
            h=nn.ModuleList(Block(config, block_idx) for block_idx in range(config.n_layer)),
            ln_f=config.norm_class(config.n_embd, eps=config.norm_eps),
        ))
        self.mask_cache: torch.Tensor | None = None
        self.max_seq_length = self.config.block_size

    @property
    def max_seq_length(self) -> int:
        return self._max_seq_length

    @max_seq_length.setter
    def max_seq_length(self, value: int) -> None:
        if value > self.config.block_size:
            raise ValueError(f"Cannot attend to {value}, block size is only {self.config.block_size}.")
        self._max_seq_length = value
        if not hasattr(self, "cos"):
            cos, sin = self.rope_cache()
            self.register_buffer("cos", cos, persistent=False)
            self.register_buffer("sin", sin, persistent=False)
        elif value != self.cos.size(0):
            self.cos, self.sin = self.rope_cache(device=self.cos.device)

    def _init_weights(self, module: nn.Module) -> None:
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, input_pos=None, input_pos_maxp1=None, lm_head_chunk_size=0):
        T = idx.size(1)
        if self.max_seq_length < T:
            raise ValueError(f"Cannot forward sequence of length {T}, max seq length is only {self.max_seq_length}.")
        if input_pos is not None:  # use the kv cache
            if input_pos.dim() > 2:
                raise ValueError(f"input_pos must have 1 or 2 dimensions, input_pos.shape = {input_pos.shape}")
            if input_pos.shape[-1] != T:
                raise ValueError(f"input_pos.shape[-1] = {input_pos.shape[-1]} != {T} = idx.shape[1], must be the same")
            cos = batched_index_select(self.cos, 0, input_pos)
            sin = batched_index_select(self.sin, 0, input_pos)
            if input_pos.dim() == 1:
                cos = cos.unsqueeze(0)
                sin = sin.unsqueeze(0)
            if self.mask_cache is None:
                raise TypeError("You need to call `gpt.set_kv_cache()`")
            mask = batched_index_select(self.mask_cache, 2, input_pos)
            if mask.dim() > 4:
                mask = mask.view(*(mask.shape[0:1] + mask.shape[2:]))
            if input_pos_maxp1 is not None:
                if input_pos_maxp1 > self.max_seq_length:
                    raise ValueError(f"Positions in 'input_pos' must be in [0,{self.max_seq_length})")
                mask = mask[..., :input_pos_maxp1]
        else:
            cos = self.cos[:T].unsqueeze(0)
            sin = self.sin[:T].unsqueeze(0)
            mask = None
            input_pos_maxp1 = None

        x = self.transformer.wte(idx)
        if self.config.scale_embeddings:
            x = x * torch.tensor(self.config.n_embd**0.5, dtype=x.dtype)
        for block in self.transformer.h:
            x = block(x, cos, sin, mask, input_pos, input_pos_maxp1)
        x = self.transformer.ln_f(x)
        clamp_head = (partial(do_softcapping, thresh=self.config.final_logit_softcapping)
                      if self.config.final_logit_softcapping is not None else nn.Identity())
        if lm_head_chunk_size > 0:
            return [clamp_head(self.lm_head(x_i)) for x_i in x.split(lm_head_chunk_size, dim=1)]
        return clamp_head(self.lm_head(x))

    def rope_cache(self, device=None):
        return build_rope_cache(seq_len=self.max_seq_length, n_elem=self.config.rope_n_elem, device=device,
                                condense_ratio=self.config.rope_condense_ratio, base=self.config.rope_base)

    def set_kv_cache(self, batch_size, max_seq_length=None, rope_cache_length=None, device=None, dtype=None):
        if rope_cache_length is None:
            rope_cache_length = self.cos.size(-1)
        if max_seq_length is None:
            max_seq_length = self.max_seq_length
        for block in self.transformer.h:
            block.attn.kv_cache = block.attn.build_kv_cache(batch_size, max_seq_length, rope_cache_length, device, dtype)
        if self.mask_cache is None or self.mask_cache.size(3) != max_seq_length:
            self.mask_cache = build_mask_cache(max_seq_length, device)

    def clear_kv_cache(self) -> None:
        self.mask_cache = None
        for block in self.transformer.h:
            block.attn.kv_cache = None


class Block(nn.Module):
    def __init__(self, config: Config, block_idx: int) -> None:
        super().__init__()
        if not config.parallel_residual and config.shared_attention_norm:
            raise NotImplementedError("No checkpoint amongst the ones we support uses this configuration")
        self.norm_1 = config.norm_class(config.n_embd, eps=config.norm_eps)
        self.attn = CausalSelfAttention(config, block_idx)
        self.post_attention_norm = (config.norm_class(config.n_embd, eps=config.norm_eps)
                                    if config.post_attention_norm else nn.Identity())
        self.norm_2 = None if config.shared_attention_norm else config.norm_class(config.n_embd, eps=config.norm_eps)
        self.mlp = config.mlp_class(config)
        self.post_mlp_norm = (config.norm_class(config.n_embd, eps=config.norm_eps)
                              if config.post_mlp_norm else nn.Identity())
        self.config = config

    def forward(self, x, cos, sin, mask=None, input_pos=None, input_pos_maxp1=None):
        x_normed = self.norm_1(x)
        attention_output = self.attn(x_normed, cos, sin, mask, input_pos, input_pos_maxp1)
        attention_output = self.post_attention_norm(attention_output)
        if self.config.parallel_residual:
            if not self.config.shared_attention_norm:
                x_normed = self.norm_2(x)
            x = attention_output + x
        else:
            x = attention_output + x
            x_normed = self.norm_2(x)
        return self.post_mlp_norm(self.mlp(x_normed)) + x


class CausalSelfAttention(nn.Module):
    def __init__(self, config: Config, block_idx: int) -> None:
        super().__init__()
        self.qkv = nn.Linear(config.n_embd, (config.n_head + 2 * config.n_query_groups) * config.head_size,
                             bias=config.bias or config.attn_bias)
        self.proj = nn.Linear(config.head_size * config.n_head, config.n_embd, bias=config.bias)
        self.kv_cache: KVCache | None = None
        self.apply_sliding_window_attention = False
        if config.sliding_window_size is not None and config.sliding_window_indices is not None:
            self.apply_sliding_window_attention = config.sliding_window_indices[block_idx]
        self.config = config
        self.block_idx = block_idx

    def forward(self, x, cos, sin, mask=None, input_pos=None, input_pos_maxp1=None):
        head_size = self.config.head_size
        n_head = self.config.n_head
        n_query_groups = self.config.n_query_groups
        rope_n_elem = self.config.rope_n_elem
        B, T, C = x.size()
        qkv = self.qkv(x)
        query_size = n_head * head_size
        key_size = value_size = n_query_groups * head_size
        q, k, v = qkv.split((query_size, key_size, value_size), dim=-1)
        q = q.view(B, T, n_head, head_size).transpose(1, 2)
        k = k.view(B, T, n_query_groups, head_size).transpose(1, 2)
        v = v.view(B, T, n_query_groups, head_size).transpose(1, 2)

        q_roped = apply_rope(q[..., :rope_n_elem], cos, sin)
        k_roped = apply_rope(k[..., :rope_n_elem], cos, sin)
        q = torch.cat((q_roped, q[..., rope_n_elem:]), dim=-1)
        k = torch.cat((k_roped, k[..., rope_n_elem:]), dim=-1)

        if input_pos is not None:
            if not isinstance(self.kv_cache, KVCache):
                raise TypeError("You need to call `gpt.set_kv_cache()`")
            k, v = self.kv_cache(input_pos, k, v)
            if self.apply_sliding_window_attention:
                actual_kv_len = k.size(2)
                if mask is not None and mask.size(-1) != actual_kv_len:
                    mask = mask[..., :actual_kv_len]
            if input_pos_maxp1 is not None:
                k = k[..., :input_pos_maxp1, :]
                v = v[..., :input_pos_maxp1, :]

        if n_query_groups != n_head and (input_pos is None or n_query_groups != 1):
            q_per_kv = n_head // n_query_groups
            k = k.repeat_interleave(q_per_kv, dim=1)
            v = v.repeat_interleave(q_per_kv, dim=1)

        if self.apply_sliding_window_attention and input_pos is None:
            sliding_window_mask = torch.full((T, T), float("-inf"), dtype=q.dtype, device=q.device)
            for i in range(T):
                window_start = max(0, i - self.config.sliding_window_size + 1)
                sliding_window_mask[i, window_start: i + 1] = 0.0
            mask = sliding_window_mask.view(1, 1, T, T)

        y = self.scaled_dot_product_attention(q, k, v, mask)
        y = y.reshape(B, T, head_size * n_head)
        return self.proj(y)

    def scaled_dot_product_attention(self, q, k, v, mask=None):
        scale = 1.0 / math.sqrt(self.config.attention_scores_scalar or self.config.head_size)
        if self.config.attention_logit_softcapping is not None:
            scores = q @ k.mT * scale
            scores = do_softcapping(scores, self.config.attention_logit_softcapping)
            if mask is None:
                mask = torch.ones(q.size(2), q.size(2), dtype=q.dtype, device=q.device).triu(diagonal=1)
                mask.masked_fill_(mask.bool(), torch.finfo(q.dtype).min)
            if mask.dtype == torch.bool:   # (litgpt adds the KV cache's bool mask as is)
                mask = torch.zeros_like(mask, dtype=q.dtype).masked_fill(~mask, torch.finfo(q.dtype).min)
            scores = scores + mask
            scores = F.softmax(scores, dim=-1, dtype=torch.float).to(dtype=q.dtype)
            y = scores @ v
        else:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=0.0, scale=scale,
                                               is_causal=mask is None)
        return y.transpose(1, 2)

    def build_kv_cache(self, batch_size, max_seq_length, rope_cache_length=None, device=None, dtype=None):
        if self.apply_sliding_window_attention and self.config.sliding_window_size is not None:
            effective_cache_size = min(max_seq_length, self.config.sliding_window_size)
        else:
            effective_cache_size = max_seq_length
        v_shape = (batch_size, self.config.n_query_groups, effective_cache_size, self.config.head_size)
        k_shape = (batch_size, self.config.n_query_groups, effective_cache_size,
                   rope_cache_length + self.config.head_size - self.config.rope_n_elem)
        return KVCache(k_shape, v_shape, device=device, dtype=dtype,
                       is_sliding_window=self.apply_sliding_window_attention,
                       sliding_window_size=self.config.sliding_window_size if self.apply_sliding_window_attention else None)

    def _load_from_state_dict(self, state_dict: dict, prefix: str, *args: Any, **kwargs: Any) -> None:
        """For compatibility with legacy checkpoints."""
        for attr in ("weight", "bias"):
            legacy_key = f"{prefix}attn.{attr}"
            current_key = f"{prefix}qkv.{attr}"
            if legacy_key in state_dict:
                state_dict[current_key] = qkv_reassemble(state_dict.pop(legacy_key), self.config)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)


def qkv_reassemble(param, config):
    """Reassemble from a normal to an interleaved placement in a QKV matrix.
    [Q, K, V, Q, K, V, ...] --> [Q, Q, ..., K, K, ..., V, V, ...]"""
    q_per_kv = config.n_head // config.n_query_groups
    qs, ks, vs = [], [], []
    for chunk in torch.chunk(param, config.n_query_groups):
        split = torch.split(chunk, [config.head_size * q_per_kv, config.head_size, config.head_size])
        qs.append(split[0])
        ks.append(split[1])
        vs.append(split[2])
    return torch.cat((torch.cat(qs), torch.cat(ks), torch.cat(vs)))


class GptNeoxMLP(nn.Module):
    def __init__(self, config: Config, intermediate_size: int | None = None) -> None:
        super().__init__()
        self.intermediate_size = intermediate_size or config.intermediate_size
        self.fc = nn.Linear(config.n_embd, self.intermediate_size, bias=config.bias)
        self.proj = nn.Linear(self.intermediate_size, config.n_embd, bias=config.bias)
        self.config = config

    def forward(self, x):
        x = self.fc(x)
        x = F.gelu(x, approximate=self.config.gelu_approximate)
        return self.proj(x)


class LLaMAMLP(nn.Module):
    def __init__(self, config: Config, intermediate_size: int | None = None) -> None:
        super().__init__()
        self.intermediate_size = intermediate_size or config.intermediate_size
        self.fc_1 = nn.Linear(config.n_embd, self.intermediate_size, bias=config.bias)
        self.fc_2 = nn.Linear(config.n_embd, self.intermediate_size, bias=config.bias)
        self.proj = nn.Linear(self.intermediate_size, config.n_embd, bias=config.bias)
        self.config = config

    def forward(self, x):
        x = F.silu(self.fc_1(x)) * self.fc_2(x)
        return self.proj(x)


def build_rope_cache(seq_len, n_elem, device=None, base=10000, condense_ratio=1):
    theta = 1.0 / (base ** (torch.arange(0, n_elem, 2, device=device).float() / n_elem))
    seq_idx = torch.arange(seq_len, device=device).float() / condense_ratio
    idx_theta = torch.outer(seq_idx, theta).repeat(1, 2)
    if idx_theta.shape[-1] > n_elem > 1:
        idx_theta = idx_theta[..., :n_elem]
    return torch.cos(idx_theta), torch.sin(idx_theta)


def batched_index_select(t, dim, idx):
    """index_select for batched index and unbatched t"""
    if idx.dim() == 1:
        return torch.index_select(t, dim, idx)
    *batch_shape, idx_size = idx.shape
    res = torch.index_select(t, dim, idx.reshape(-1))
    res = res.view(*t.shape[:dim], -1, idx_size, *t.shape[dim + 1:])
    if dim > 0:
        dims = [dim] + list(range(res.dim()))
        del dims[dim + 1]
        res = res.permute(dims)
    return res.view(*batch_shape, *res.shape[1:])


def batched_index_copy_(t, dim, idx, val):
    """Index copy for batched t, idx, val"""
    if idx.dim() == 1:
        return t.index_copy_(dim, idx, val)
    assert idx.dim() == 2, f"multiple batch dims not yet {idx.shape=}"
    assert dim != 0, f"cannot index batch dim {dim=}"
    batch_size, idx_size = idx.shape
    assert batch_size == t.size(0)
    assert batch_size == val.size(0)
    for i in range(batch_size):
        unbatched_dim = dim if dim < 0 else dim - 1
        t[i].index_copy_(unbatched_dim, idx[i], val[i])
    return t


def apply_rope(x, cos, sin):
    if cos.dim() != 3:
        raise ValueError(f"cos must be three-dimensional, but shape is {cos.shape}")
    head_size_half = x.size(-1) // 2
    x1 = x[..., :head_size_half]
    x2 = x[..., head_size_half:]
    rotated = torch.cat((-x2, x1), dim=-1)
    dims_diff = x.dim() - cos.dim()
    if dims_diff > 0:
        new_shape = cos.shape[0:1] + (1,) * dims_diff + cos.shape[1:]
        cos = cos.view(*new_shape)
        sin = sin.view(*new_shape)
    roped = (x * cos) + (rotated * sin)
    return roped.to(dtype=x.dtype)


def do_softcapping(x, thresh):
    return torch.tanh(x / thresh) * thresh


class KVCache(nn.Module):
    """Buffers `k`, `v` have shape `(batch_size, n_query_groups, max_seq_length, head_size)`."""

    def __init__(self, k_shape, v_shape, device=None, dtype=None, is_sliding_window=False, sliding_window_size=None):
        super().__init__()
        self.register_buffer("k", torch.zeros(k_shape, device=device, dtype=dtype), persistent=False)
        self.register_buffer("v", torch.zeros(v_shape, device=device, dtype=dtype), persistent=False)
        self.is_sliding_window = is_sliding_window
        self.sliding_window_size = sliding_window_size
        self.max_cache_len = k_shape[2]

    def forward(self, input_pos, k, v):
        if self.k.dtype != k.dtype:
            self.k = self.k.to(k.dtype)
        if self.v.dtype != v.dtype:
            self.v = self.v.to(v.dtype)
        bs = k.size(0)
        if self.is_sliding_window:
            prefill_len = input_pos.shape[-1]
            if prefill_len > self.max_cache_len:
                raise ValueError(f"Prefill length ({prefill_len}) exceeds the sliding window size ({self.max_cache_len}).")
            cache_positions = input_pos % self.max_cache_len
            k = batched_index_copy_(self.k[:bs, ...], -2, cache_positions, k)
            v = batched_index_copy_(self.v[:bs, ...], -2, cache_positions, v)
            max_pos = input_pos.max().item()
            if max_pos < self.max_cache_len:
                k = k[:, :, : max_pos + 1, :]
                v = v[:, :, : max_pos + 1, :]
        else:
            k = batched_index_copy_(self.k[:bs, ...], -2, input_pos, k)
            v = batched_index_copy_(self.v[:bs, ...], -2, input_pos, v)
        return k, v


def build_mask_cache(max_seq_length, device=None):
    ones = torch.ones((max_seq_length, max_seq_length), device=device, dtype=torch.bool)
    return torch.tril(ones).unsqueeze(0).unsqueeze(0)


class RMSNorm(torch.nn.Module):
    def __init__(self, size: int, dim: int = -1, eps: float = 1e-6, add_unit_offset: bool = False) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(size))
        self.eps = eps
        self.dim = dim
        self.add_unit_offset = add_unit_offset

    def forward(self, x):
        dtype = x.dtype
        x = x.float()
        norm_x = torch.mean(x * x, dim=self.dim, keepdim=True)
        x_normed = x * torch.rsqrt(norm_x + self.eps)
        weight = (1 + self.weight) if self.add_unit_offset else self.weight
        return (x_normed * weight.float()).to(dtype=dtype)


# ---------------------------------------------------------------- generate/base.py
def multinomial_num_samples_1(probs):
    if torch._dynamo.is_compiling():
        distribution = torch.empty_like(probs).exponential_(1)
        return torch.argmax(probs / distribution, dim=-1, keepdim=True)
    return torch.multinomial(probs, num_samples=1)


def sample_top_p(logits, top_p):
    sorted_logits, sorted_indices = torch.sort(logits, descending=False)
    cumulative_probs = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
    sorted_indices_to_remove = cumulative_probs <= (1 - top_p)
    sorted_indices_to_remove[-1:] = 0
    indices_to_remove = sorted_indices_to_remove.scatter(0, sorted_indices, sorted_indices_to_remove)
    return logits.masked_fill(indices_to_remove, float("-inf"))


def sample(logits, temperature=1.0, top_k=None, top_p=1.0):
    if top_p < 0.0 or top_p > 1.0:
        raise ValueError(f"top_p must be in [0, 1], got {top_p}")
    logits = logits[0, -1]
    if top_k is not None:
        v, i = torch.topk(logits, min(top_k, logits.size(-1)))
        logits = torch.full_like(logits, float("-inf")).scatter_(-1, i, v)
    if temperature > 0.0 and top_p > 0.0:
        logits = logits / temperature
        if top_p < 1.0:
            logits = sample_top_p(logits, top_p)
        probs = torch.nn.functional.softmax(logits, dim=-1)
        return multinomial_num_samples_1(probs)
    return torch.argmax(logits, dim=-1, keepdim=True)


def next_token(model, input_pos, x, input_pos_maxp1=None, **sample_kwargs):
    logits = model(x, input_pos, input_pos_maxp1=input_pos_maxp1)
    return sample(logits, **sample_kwargs).to(dtype=torch.int64)


@torch.inference_mode()
def generate_fn(model, prompt, max_returned_tokens, *, temperature=1.0, top_k=None, top_p=1.0,
                stop_tokens=(), include_prompt, include_eos):
    prompt_size = prompt.size(0)
    device = prompt.device
    assert max_returned_tokens > prompt_size
    if model.max_seq_length < max_returned_tokens - 1:
        raise NotImplementedError(f"max_seq_length {model.max_seq_length} needs to be >= {max_returned_tokens - 1}")
    if include_prompt:
        yield prompt
    stop_progress = [0] * len(stop_tokens)
    yielded_idx = 0
    tokens = []
    token = prompt
    prefill_token = True
    input_pos = torch.arange(0, prompt_size, device=device, dtype=torch.int64)
    input_pos_maxp1 = prompt_size
    for current_idx in range(max_returned_tokens - prompt_size):
        token = next_token(model, input_pos, token.view(1, -1), input_pos_maxp1=input_pos_maxp1,
                           temperature=temperature, top_k=top_k, top_p=top_p)
        tokens.append(token)
        int_token = token.item()
        for i, seq in enumerate(stop_tokens):
            if int_token == seq[stop_progress[i]]:
                stop_progress[i] += 1
                if stop_progress[i] == len(seq):
                    if include_eos:
                        yield from tokens[yielded_idx:]
                    return
            else:
                stop_progress[i] = 0
        safe_idx = len(tokens) - max(stop_progress) if stop_tokens else current_idx + 1
        if yielded_idx < safe_idx:
            yield from tokens[yielded_idx:safe_idx]
            yielded_idx = safe_idx
        if prefill_token:
            prefill_token = False
            input_pos = torch.tensor([prompt_size], device=device, dtype=torch.int64)
        else:
            input_pos.add_(1)
        if input_pos_maxp1 is not None:
            input_pos_maxp1 += 1
    if yielded_idx < len(tokens):
        yield from tokens[yielded_idx:]


@torch.inference_mode()
def generate(model, prompt, max_returned_tokens, *, temperature=1.0, top_k=None, top_p=1.0, eos_id=None,
             include_prompt=True):
    token_list = list(generate_fn(include_prompt=include_prompt, include_eos=True, model=model, prompt=prompt,
                                  max_returned_tokens=max_returned_tokens, temperature=temperature, top_k=top_k,
                                  top_p=top_p, stop_tokens=(([eos_id],) if eos_id is not None else ())))
    return torch.cat(token_list) if not len(token_list) == 0 else torch.Tensor()


def chunked_cross_entropy(logits, targets, chunk_size=128, ignore_index=-100):
    if isinstance(logits, list):
        if chunk_size == 0:
            logits = torch.cat(logits, dim=1)
            return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1),
                                                     ignore_index=ignore_index)
        logit_chunks = [logit_chunk.reshape(-1, logit_chunk.size(-1)) for logit_chunk in logits]
        target_chunks = [target_chunk.reshape(-1) for target_chunk in targets.split(logits[0].size(1), dim=1)]
        loss_chunks = [torch.nn.functional.cross_entropy(logit_chunk, target_chunk, ignore_index=ignore_index,
                                                         reduction="none")
                       for logit_chunk, target_chunk in zip(logit_chunks, target_chunks)]
        non_masked_elems = (targets != ignore_index).sum()
        return torch.cat(loss_chunks).sum() / non_masked_elems.maximum(torch.ones_like(non_masked_elems))
    logits = logits.reshape(-1, logits.size(-1))
    targets = targets.reshape(-1)
    return torch.nn.functional.cross_entropy(logits, targets, ignore_index=ignore_index)


# ---------------------------------------------------------------- lora.py
class LoRALayer(nn.Module):
    def __init__(self, r: int, lora_alpha: int, lora_dropout: float):
        super().__init__()
        assert r >= 0
        self.r = r
        self.lora_alpha = lora_alpha
        if lora_dropout > 0.0:
            self.lora_dropout = nn.Dropout(p=lora_dropout)
        else:
            self.lora_dropout = lambda x: x
        self.merged = False


class LoRALinear(LoRALayer):
    def __init__(self, in_features, out_features, r=0, lora_alpha=1, lora_dropout=0.0, **kwargs):
        super().__init__(r=r, lora_alpha=lora_alpha, lora_dropout=lora_dropout)
        self.linear = torch.nn.Linear(in_features, out_features, **kwargs)
        if r > 0:
            self.lora_A = nn.Parameter(torch.empty((r, in_features)))
            self.lora_B = nn.Parameter(torch.empty((out_features, r)))
            self.scaling = self.lora_alpha / self.r
            self.reset_parameters()

    def reset_parameters(self) -> None:
        if hasattr(self, "lora_A"):
            nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
            nn.init.zeros_(self.lora_B)

    def get_lora_AB(self):
        return (self.lora_B @ self.lora_A) * self.scaling

    def merge(self) -> None:
        if self.r > 0 and not self.merged:
            lora_data = self.get_lora_AB()
            self.linear.weight.data += lora_data.to(device=self.linear.weight.data.device)
            self.merged = True

    def forward(self, x):
        pretrained = self.linear(x)
        if self.r == 0 or self.merged:
            return pretrained
        lora = (self.lora_dropout(x) @ self.lora_A.transpose(0, 1) @ self.lora_B.transpose(0, 1)) * self.scaling
        return pretrained + lora


def map_old_state_dict_weights(state_dict, mapping: Mapping, prefix: str):
    for checkpoint_name, attribute_name in mapping.items():
        full_checkpoint_name = prefix + checkpoint_name
        if full_checkpoint_name in state_dict:
            state_dict[prefix + attribute_name] = state_dict.pop(full_checkpoint_name)
    return state_dict


def create_lora_linear(config, in_size, out_size):
    return LoRALinear(in_size, out_size, bias=config.bias, r=config.lora_r, lora_alpha=config.lora_alpha,
                      lora_dropout=config.lora_dropout)


class LoRALLaMAMLP(LLaMAMLP):
    def __init__(self, config: Config, intermediate_size: int | None = None) -> None:
        nn.Module.__init__(self)
        self.intermediate_size = intermediate_size or config.intermediate_size
        self.fc_1 = create_lora_linear(config, config.n_embd, self.intermediate_size)
        self.fc_2 = create_lora_linear(config, config.n_embd, self.intermediate_size)
        self.proj = create_lora_linear(config, self.intermediate_size, config.n_embd)
        self.config = config

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        """For compatibility with base checkpoints."""
        mapping = {"fc_1.weight": "fc_1.linear.weight", "fc_1.bias": "fc_1.linear.bias",
                   "fc_2.weight": "fc_2.linear.weight", "fc_2.bias": "fc_2.linear.bias",
                   "proj.weight": "proj.linear.weight", "proj.bias": "proj.linear.bias"}
        state_dict = map_old_state_dict_weights(state_dict, mapping, prefix)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)


def mark_only_lora_as_trainable(model, bias="none"):
    for n, p in model.named_parameters():
        if "lora_" not in n:
            p.requires_grad = False
    if bias == "none":
        return
    if bias == "all":
        for n, p in model.named_parameters():
            if "bias" in n:
                p.requires_grad = True
    else:
        raise NotImplementedError


def lora_filter(key: str, value: Any) -> bool:
    return "lora_" in key


def merge_lora_weights(model) -> None:
    for module in model.modules():
        if isinstance(module, LoRALinear):
            module.merge()


# ---------------------------------------------------------------- adapter.py (LLaMA-Adapter)
@dataclass
class AdapterConfig(Config):
    adapter_prompt_length: int = 10
    adapter_start_layer: int = 2


class AdapterGPT(GPT):
    def __init__(self, config: AdapterConfig) -> None:
        nn.Module.__init__(self)
        assert config.padded_vocab_size is not None
        self.config = config
        self.lm_head = nn.Linear(config.n_embd, config.padded_vocab_size, bias=config.lm_head_bias)
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(config.padded_vocab_size, config.n_embd),
            h=nn.ModuleList(AdapterBlock(config, block_idx) for block_idx in range(config.n_layer)),
            ln_f=config.norm_class(config.n_embd, eps=config.norm_eps),
        ))
        self.mask_cache = None
        self.max_seq_length = self.config.block_size


class AdapterBlock(Block):
    def __init__(self, config: AdapterConfig, block_idx: int) -> None:
        super().__init__(config, block_idx)
        self.attn = AdapterCausalSelfAttention(config, block_idx)


class AdapterCausalSelfAttention(CausalSelfAttention):
    """litgpt's CausalSelfAttention plus the attention over the adaption prompt."""

    def __init__(self, config: AdapterConfig, block_idx: int) -> None:
        super().__init__(config, block_idx)
        if block_idx >= config.adapter_start_layer:
            self.adapter_wte = nn.Embedding(config.adapter_prompt_length, config.n_embd)
            self.gating_factor = torch.nn.Parameter(torch.zeros(1, 1, config.n_head, 1))
            self.adapter_kv_cache = None

    def scaled_dot_product_attention(self, q, k, v, mask=None):
        y = super().scaled_dot_product_attention(q, k, v, mask)
        if self.block_idx < self.config.adapter_start_layer:
            return y
        aT = self.config.adapter_prompt_length
        if self.adapter_kv_cache is not None:
            ak, av = self.adapter_kv_cache
        else:
            prefix = self.adapter_wte.weight.reshape(1, aT, self.config.n_embd)
            aqkv = self.qkv(prefix)
            q_per_kv = self.config.n_head // self.config.n_query_groups
            aqkv = aqkv.view(1, aT, self.config.n_query_groups, q_per_kv + 2, self.config.head_size)
            aqkv = aqkv.permute(0, 2, 3, 1, 4)
            _, ak, av = aqkv.split((q_per_kv, 1, 1), dim=2)
            if self.config.n_query_groups != 1:
                ak = ak.repeat_interleave(q_per_kv, dim=2)
                av = av.repeat_interleave(q_per_kv, dim=2)
            ak = ak.view(1, -1, aT, self.config.head_size)  # (1, nh_ak, aT, hs)
            av = av.view(1, -1, aT, self.config.head_size)  # (1, nh_av, aT, hs)
            self.adapter_kv_cache = (ak, av)
        T = q.size(2)
        amask = torch.ones(T, aT, dtype=torch.bool, device=q.device)
        ay = super().scaled_dot_product_attention(q, ak, av, amask)
        return y + self.gating_factor * ay

    def reset_parameters(self) -> None:
        if hasattr(self, "gating_factor"):
            torch.nn.init.zeros_(self.gating_factor)

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        """For compatibility with older checkpoints."""
        if (key := prefix + "gating_factor") in state_dict and state_dict[key].size(1) == self.config.n_head:
            state_dict[key] = state_dict[key].permute(0, 2, 1, 3)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)


def mark_only_adapter_as_trainable(model) -> None:
    for name, param in model.named_parameters():
        param.requires_grad = adapter_filter(name, param)


def adapter_filter(key: str, value: Any) -> bool:
    return "adapter_wte" in key or "gating_factor" in key


# ================================================================ the checks
def greedy_without_cache(model, prompt, n):
    idx = prompt.view(1, -1)
    with torch.no_grad():
        for _ in range(n):
            idx = torch.cat((idx, model(idx)[:, -1].argmax(-1, keepdim=True)), dim=1)
    return idx[0]


pythia = Config(name="pythia-toy", block_size=32, n_layer=2, n_embd=32, n_head=4, vocab_size=50,
                padding_multiple=16, rotary_percentage=0.25, parallel_residual=True,
                shared_attention_norm=False, bias=True)
llama = Config(name="Llama-toy", block_size=32, n_layer=2, n_embd=32, n_head=4, n_query_groups=2,
               vocab_size=50, padding_multiple=16, rotary_percentage=1.0, parallel_residual=False,
               bias=False, norm_class_name="RMSNorm", mlp_class_name="LLaMAMLP", intermediate_size=48)
gemma = Config(name="Gemma-2-toy", block_size=32, n_layer=2, n_embd=32, n_head=4, n_query_groups=1,
               head_size=16, vocab_size=50, padding_multiple=16, rotary_percentage=1.0,
               parallel_residual=False, bias=False, norm_class_name="RMSNorm", mlp_class_name="LLaMAMLP",
               intermediate_size=48, post_attention_norm=True, post_mlp_norm=True, scale_embeddings=True,
               attention_logit_softcapping=50.0, final_logit_softcapping=30.0, attention_scores_scalar=16,
               sliding_window_size=8, sliding_window_indices=[1, 0])
assert pythia.padded_vocab_size == 64 and pythia.head_size == 8 and pythia.rope_n_elem == 2
assert llama.n_query_groups == 2 and gemma.rope_n_elem == 16
try:
    Config(mlp_class_name="LLaMAMLP")
    raise AssertionError("LLaMAMLP needs intermediate_size")
except ValueError as e:
    assert "needs to set the `intermediate_size`" in str(e)

prompt = torch.tensor([3, 14, 15, 9, 2, 6])
for config in (pythia, llama, gemma):
    torch.manual_seed(0)
    model = GPT(config)
    model.apply(model._init_weights)
    with torch.no_grad():       # larger weights than the init: the argmax must not tie
        for p in model.parameters():
            if p.dim() == 2:
                p.mul_(10.0)
    model.eval()
    assert model.cos.shape == (32, config.rope_n_elem) and "cos" not in model.state_dict()
    assert isinstance(model.transformer.ln_f, torch.nn.LayerNorm if config is pythia else RMSNorm)

    # the KV cache against full recomputation, through generate()
    model.max_seq_length = 16                         # shrinks cos/sin
    assert model.cos.shape == (16, config.rope_n_elem)
    try:
        model.max_seq_length = 64
        raise AssertionError("beyond the block size")
    except ValueError as e:
        assert "block size is only 32" in str(e)
    try:
        model(prompt.view(1, -1), input_pos=torch.arange(6))
        raise AssertionError("no cache yet")
    except TypeError as e:
        assert "set_kv_cache" in str(e)
    model.set_kv_cache(batch_size=2)
    assert model.mask_cache.shape == (1, 1, 16, 16) and model.mask_cache.dtype == torch.bool
    out = generate(model, prompt, max_returned_tokens=14, temperature=0.0)
    ref = greedy_without_cache(model, prompt, 8)
    assert out.shape == (14,) and torch.equal(out, ref), (config.name, out, ref)
    if config is gemma:
        cache = model.transformer.h[0].attn.kv_cache
        assert cache.is_sliding_window and cache.k.shape == (2, 1, 8, 16)   # a ring of 8
        assert not model.transformer.h[1].attn.kv_cache.is_sliding_window

    # stop tokens: generation ends at eos, which is returned
    eos = int(ref[8])
    stopped = generate(model, prompt, max_returned_tokens=14, temperature=0.0, eos_id=eos)
    first = ref[6:].tolist().index(eos)
    assert torch.equal(stopped, ref[: 6 + first + 1]), (stopped, ref)
    streamed = list(generate_fn(model, prompt, 14, temperature=0.0, include_prompt=False, include_eos=False,
                                stop_tokens=([eos],)))
    assert [int(t) for t in streamed] == ref[6:6 + first].tolist()

    # (B, T) positions: a batch whose rows are at different places of their sequences
    if config is not gemma:
        model.set_kv_cache(batch_size=2)
        batch = torch.stack([ref[:10], ref[2:12]])
        with torch.no_grad():
            full = model(batch)
            model(batch[:, :6], input_pos=torch.arange(6))
            pos = torch.tensor([[6, 7, 8, 9], [6, 7, 8, 9]])
            step = model(batch[:, 6:10], input_pos=pos)
        assert torch.allclose(step, full[:, 6:10], atol=1e-4), (step - full[:, 6:10]).abs().max()
        two_d = batched_index_select(model.cos, 0, pos)
        assert two_d.shape == (2, 4, config.rope_n_elem) and torch.equal(two_d[1], model.cos[6:10])
    model.clear_kv_cache()
    assert model.transformer.h[0].attn.kv_cache is None and model.mask_cache is None

# chunked lm head and chunked cross entropy against the plain ones
torch.manual_seed(1)
model = GPT(pythia)
x = torch.randint(0, 50, (2, 12))
y = torch.randint(0, 50, (2, 12))
y[0, :3] = -100
chunks = model(x, lm_head_chunk_size=5)
assert [c.shape[1] for c in chunks] == [5, 5, 2]
plain = F.cross_entropy(model(x).reshape(-1, 64), y.reshape(-1), ignore_index=-100)
assert torch.allclose(chunked_cross_entropy(chunks, y), plain, atol=1e-6)
assert torch.allclose(chunked_cross_entropy(chunks, y, chunk_size=0), plain, atol=1e-6)

# a legacy checkpoint ("attn" with Q, K, V interleaved per query group) loads into "qkv"
torch.manual_seed(2)
base = GPT(llama)
base.eval()
legacy = {}
hs, groups, q_per_kv = llama.head_size, llama.n_query_groups, llama.n_head // llama.n_query_groups
for k, v in base.state_dict().items():
    if k.endswith("attn.qkv.weight"):
        q, kk, vv = v.split((llama.n_head * hs, groups * hs, groups * hs))
        q = q.view(groups, q_per_kv * hs, -1)
        kk, vv = kk.view(groups, hs, -1), vv.view(groups, hs, -1)
        v = torch.cat([torch.cat((q[g], kk[g], vv[g])) for g in range(groups)])
        k = k.replace("attn.qkv.weight", "attn.attn.weight")
    legacy[k] = v.clone()
assert "transformer.h.0.attn.attn.weight" in legacy and "transformer.h.0.attn.qkv.weight" not in legacy
restored = GPT(llama)
restored.load_state_dict(legacy)
restored.eval()
assert "transformer.h.0.attn.attn.weight" in legacy            # the caller's dict is untouched
with torch.no_grad():
    assert torch.equal(restored(x), base(x))

# LoRA: a base checkpoint loads into the LoRA model, fine-tunes only A and B, then merges
lora_config = Config(**{**{k: getattr(llama, k) for k in llama.__dataclass_fields__},
                        "lora_r": 4, "lora_alpha": 8, "padded_vocab_size": None})
torch.manual_seed(3)
lora_model = GPT(lora_config)
result = lora_model.load_state_dict(base.state_dict(), strict=False)
assert result.unexpected_keys == []
assert sorted(set(k.rsplit(".", 1)[-1] for k in result.missing_keys)) == ["lora_A", "lora_B"]
lora_model.eval()
with torch.no_grad():
    assert torch.allclose(lora_model(x), base(x), atol=1e-6)      # B starts at zero
mark_only_lora_as_trainable(lora_model)
trainable = [n for n, p in lora_model.named_parameters() if p.requires_grad]
assert trainable and all("lora_" in n for n in trainable) and len(trainable) == 2 * 3 * llama.n_layer
optimizer = torch.optim.AdamW([p for p in lora_model.parameters() if p.requires_grad], lr=1e-2)
lora_model.train()
losses = []
for _ in range(8):
    logits = lora_model(x[:, :-1], lm_head_chunk_size=4)
    loss = chunked_cross_entropy(logits, x[:, 1:])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
assert losses[-1] < losses[0], losses
assert lora_model.transformer.wte.weight.grad is None
lora_model.eval()
with torch.no_grad():
    before = lora_model(x)
    merge_lora_weights(lora_model)
    after = lora_model(x)
assert all(m.merged for m in lora_model.modules() if isinstance(m, LoRALinear))
assert torch.allclose(before, after, atol=1e-5), (before - after).abs().max()
assert not torch.allclose(after, base(x).detach(), atol=1e-4)
lora_only = {k: v for k, v in lora_model.state_dict().items() if lora_filter(k, v)}
assert len(lora_only) == 2 * 3 * llama.n_layer and all(k.endswith(("lora_A", "lora_B")) for k in lora_only)

# sampling: top-k keeps k candidates, top-p the smallest set over p
logits = torch.tensor([[[0.0, 3.0, 2.5, -1.0, 1.0]]])
torch.manual_seed(0)
draws = {int(sample(logits, temperature=1.0, top_k=2)) for _ in range(40)}
assert draws == {1, 2}, draws
draws = {int(sample(logits, temperature=1.0, top_p=0.6)) for _ in range(40)}
assert draws == {1, 2}, draws                 # p = 0.55 and 0.34: the smallest set over 0.6
assert {int(sample(logits, temperature=1.0, top_p=0.5)) for _ in range(10)} == {1}
assert int(sample(logits, temperature=0.0)) == 1
try:
    sample(logits, top_p=1.5)
    raise AssertionError("top_p out of range")
except ValueError as e:
    assert "top_p must be in [0, 1]" in str(e)
print("litgpt ok", [round(v, 3) for v in losses[::3]])

# LLaMA-Adapter: zero-gated prompts on the upper layers, trained alone; an old checkpoint's
# (1, n_head, 1, 1) gating factors are permuted on load, legacy qkv keys converted on the way
adapter_config = AdapterConfig(**{**{k: getattr(llama, k) for k in llama.__dataclass_fields__},
                                  "padded_vocab_size": None, "n_layer": 3, "adapter_prompt_length": 4,
                                  "adapter_start_layer": 1})
torch.manual_seed(4)
base3 = GPT(Config(**{**{k: getattr(llama, k) for k in llama.__dataclass_fields__},
                      "padded_vocab_size": None, "n_layer": 3}))
base3.eval()
adapted = AdapterGPT(adapter_config)
result = adapted.load_state_dict(base3.state_dict(), strict=False)
assert sorted(result.missing_keys) == sorted(f"transformer.h.{i}.attn.{n}" for i in (1, 2)
                                             for n in ("adapter_wte.weight", "gating_factor"))
assert not hasattr(adapted.transformer.h[0].attn, "gating_factor")
adapted.eval()
with torch.no_grad():
    assert torch.allclose(adapted(x), base3(x), atol=1e-6)         # zero gates: the base model
mark_only_adapter_as_trainable(adapted)
assert sorted(n for n, p in adapted.named_parameters() if p.requires_grad) == sorted(result.missing_keys)
adapted.train()
opt = torch.optim.AdamW([p for p in adapted.parameters() if p.requires_grad], lr=5e-2)
for _ in range(5):
    for blk in adapted.transformer.h:                           # the prefix projection is recomputed
        if hasattr(blk.attn, "adapter_kv_cache"):
            blk.attn.adapter_kv_cache = None
    loss = chunked_cross_entropy(adapted(x[:, :-1]), x[:, 1:])
    opt.zero_grad()
    loss.backward()
    opt.step()
gates = adapted.transformer.h[2].attn.gating_factor
assert gates.grad is not None and gates.abs().sum() > 0
adapted.eval()
with torch.no_grad():
    assert not torch.allclose(adapted(x), base3(x), atol=1e-4)
old = {k: (v.permute(0, 2, 1, 3).clone() if k.endswith("gating_factor") else v.clone())
       for k, v in adapted.state_dict().items()}
assert old["transformer.h.2.attn.gating_factor"].shape == (1, llama.n_head, 1, 1)
reloaded = AdapterGPT(adapter_config)
reloaded.load_state_dict(old)
assert torch.equal(reloaded.transformer.h[2].attn.gating_factor, gates)
print("litgpt adapter ok", round(loss.item(), 3))
