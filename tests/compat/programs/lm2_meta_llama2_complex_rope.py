"""Meta's reference Llama 2 code (meta-llama/llama: llama/model.py and llama/generation.py) at toy
size, with fairscale's ColumnParallelLinear / RowParallelLinear / ParallelEmbedding replaced by
nn.Linear / nn.Embedding (one model-parallel rank) and sentencepiece by a character tokenizer:
the ModelArgs dataclass read from a params.json, RMSNorm (self._norm(x.float()).type_as(x)),
RoPE in complex numbers (precompute_freqs_cis with torch.outer and torch.polar(torch.ones_like(
freqs), freqs), reshape_for_broadcast, apply_rotary_emb with torch.view_as_complex(xq.float()
.reshape(*xq.shape[:-1], -1, 2)), torch.view_as_real(...).flatten(3), .type_as), repeat_kv with
x[:, :, :, None, :].expand(...).reshape(...), the KV cache as plain tensors moved with
self.cache_k.to(xq) and written by slice assignment, the mask torch.full((seqlen, seqlen),
float("-inf")) / torch.triu(mask, diagonal=1) / torch.hstack([torch.zeros((seqlen, start_pos)),
mask]).type_as(h), F.softmax(scores.float(), dim=-1).type_as(xq), the SwiGLU FeedForward sized by
multiple_of / ffn_dim_multiplier, @torch.inference_mode() forward, a checkpoint loaded with
torch.load(map_location="cpu") and load_state_dict(strict=False) (the extra rope.freqs key), and
Llama.generate: prompts of different lengths padded with pad_id -1, torch.where(input_text_mask[:,
cur_pos], tokens[:, cur_pos], next_token), eos_reached |= (~mask) & (next_token == eos_id),
per-token logprobs from -F.cross_entropy(logits.transpose(1, 2), target, reduction="none",
ignore_index=pad_id), echo, the eos cut, and sample_top_p (torch.sort(descending=True),
torch.cumsum, probs_sort[mask] = 0.0, probs_sort.div_(...), torch.multinomial, torch.gather)."""
import json
import math
import os
from dataclasses import dataclass
from typing import List, Optional, Tuple

import torch
import torch.nn.functional as F
from torch import nn


@dataclass
class ModelArgs:
    dim: int = 4096
    n_layers: int = 32
    n_heads: int = 32
    n_kv_heads: Optional[int] = None
    vocab_size: int = -1  # defined later by tokenizer
    multiple_of: int = 256  # make SwiGLU hidden layer size multiple of large power of 2
    ffn_dim_multiplier: Optional[float] = None
    norm_eps: float = 1e-5
    max_batch_size: int = 32
    max_seq_len: int = 2048


class RMSNorm(torch.nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x):
        output = self._norm(x.float()).type_as(x)
        return output * self.weight


def precompute_freqs_cis(dim: int, end: int, theta: float = 10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device)  # type: ignore
    freqs = torch.outer(t, freqs).float()  # type: ignore
    freqs_cis = torch.polar(torch.ones_like(freqs), freqs)  # complex64
    return freqs_cis


def reshape_for_broadcast(freqs_cis: torch.Tensor, x: torch.Tensor):
    ndim = x.ndim
    assert 0 <= 1 < ndim
    assert freqs_cis.shape == (x.shape[1], x.shape[-1])
    shape = [d if i == 1 or i == ndim - 1 else 1 for i, d in enumerate(x.shape)]
    return freqs_cis.view(*shape)


def apply_rotary_emb(xq: torch.Tensor, xk: torch.Tensor, freqs_cis: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


def repeat_kv(x: torch.Tensor, n_rep: int) -> torch.Tensor:
    """torch.repeat_interleave(x, dim=2, repeats=n_rep)"""
    bs, slen, n_kv_heads, head_dim = x.shape
    if n_rep == 1:
        return x
    return (
        x[:, :, :, None, :]
        .expand(bs, slen, n_kv_heads, n_rep, head_dim)
        .reshape(bs, slen, n_kv_heads * n_rep, head_dim)
    )


class Attention(nn.Module):
    def __init__(self, args: ModelArgs):
        super().__init__()
        self.n_kv_heads = args.n_heads if args.n_kv_heads is None else args.n_kv_heads
        model_parallel_size = 1
        self.n_local_heads = args.n_heads // model_parallel_size
        self.n_local_kv_heads = self.n_kv_heads // model_parallel_size
        self.n_rep = self.n_local_heads // self.n_local_kv_heads
        self.head_dim = args.dim // args.n_heads
        self.wq = nn.Linear(args.dim, args.n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(args.dim, self.n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(args.dim, self.n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(args.n_heads * self.head_dim, args.dim, bias=False)
        self.cache_k = torch.zeros((args.max_batch_size, args.max_seq_len, self.n_local_kv_heads, self.head_dim))
        self.cache_v = torch.zeros((args.max_batch_size, args.max_seq_len, self.n_local_kv_heads, self.head_dim))

    def forward(self, x: torch.Tensor, start_pos: int, freqs_cis: torch.Tensor, mask: Optional[torch.Tensor]):
        bsz, seqlen, _ = x.shape
        xq, xk, xv = self.wq(x), self.wk(x), self.wv(x)
        xq = xq.view(bsz, seqlen, self.n_local_heads, self.head_dim)
        xk = xk.view(bsz, seqlen, self.n_local_kv_heads, self.head_dim)
        xv = xv.view(bsz, seqlen, self.n_local_kv_heads, self.head_dim)
        xq, xk = apply_rotary_emb(xq, xk, freqs_cis=freqs_cis)

        self.cache_k = self.cache_k.to(xq)
        self.cache_v = self.cache_v.to(xq)
        self.cache_k[:bsz, start_pos: start_pos + seqlen] = xk
        self.cache_v[:bsz, start_pos: start_pos + seqlen] = xv
        keys = self.cache_k[:bsz, : start_pos + seqlen]
        values = self.cache_v[:bsz, : start_pos + seqlen]

        # repeat k/v heads if n_kv_heads < n_heads
        keys = repeat_kv(keys, self.n_rep)  # (bs, cache_len + seqlen, n_local_heads, head_dim)
        values = repeat_kv(values, self.n_rep)

        xq = xq.transpose(1, 2)  # (bs, n_local_heads, seqlen, head_dim)
        keys = keys.transpose(1, 2)
        values = values.transpose(1, 2)
        scores = torch.matmul(xq, keys.transpose(2, 3)) / math.sqrt(self.head_dim)
        if mask is not None:
            scores = scores + mask  # (bs, n_local_heads, seqlen, cache_len + seqlen)
        scores = F.softmax(scores.float(), dim=-1).type_as(xq)
        output = torch.matmul(scores, values)  # (bs, n_local_heads, seqlen, head_dim)
        output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
        return self.wo(output)


class FeedForward(nn.Module):
    def __init__(self, dim: int, hidden_dim: int, multiple_of: int, ffn_dim_multiplier: Optional[float]):
        super().__init__()
        hidden_dim = int(2 * hidden_dim / 3)
        # custom dim factor multiplier
        if ffn_dim_multiplier is not None:
            hidden_dim = int(ffn_dim_multiplier * hidden_dim)
        hidden_dim = multiple_of * ((hidden_dim + multiple_of - 1) // multiple_of)
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class TransformerBlock(nn.Module):
    def __init__(self, layer_id: int, args: ModelArgs):
        super().__init__()
        self.n_heads = args.n_heads
        self.dim = args.dim
        self.head_dim = args.dim // args.n_heads
        self.attention = Attention(args)
        self.feed_forward = FeedForward(dim=args.dim, hidden_dim=4 * args.dim, multiple_of=args.multiple_of,
                                        ffn_dim_multiplier=args.ffn_dim_multiplier)
        self.layer_id = layer_id
        self.attention_norm = RMSNorm(args.dim, eps=args.norm_eps)
        self.ffn_norm = RMSNorm(args.dim, eps=args.norm_eps)

    def forward(self, x: torch.Tensor, start_pos: int, freqs_cis: torch.Tensor, mask: Optional[torch.Tensor]):
        h = x + self.attention.forward(self.attention_norm(x), start_pos, freqs_cis, mask)
        out = h + self.feed_forward.forward(self.ffn_norm(h))
        return out


class Transformer(nn.Module):
    def __init__(self, params: ModelArgs):
        super().__init__()
        self.params = params
        self.vocab_size = params.vocab_size
        self.n_layers = params.n_layers
        self.tok_embeddings = nn.Embedding(params.vocab_size, params.dim)
        self.layers = torch.nn.ModuleList()
        for layer_id in range(params.n_layers):
            self.layers.append(TransformerBlock(layer_id, params))
        self.norm = RMSNorm(params.dim, eps=params.norm_eps)
        self.output = nn.Linear(params.dim, params.vocab_size, bias=False)
        self.freqs_cis = precompute_freqs_cis(self.params.dim // self.params.n_heads, self.params.max_seq_len * 2)

    @torch.inference_mode()
    def forward(self, tokens: torch.Tensor, start_pos: int):
        _bsz, seqlen = tokens.shape
        h = self.tok_embeddings(tokens)
        self.freqs_cis = self.freqs_cis.to(h.device)
        freqs_cis = self.freqs_cis[start_pos: start_pos + seqlen]
        mask = None
        if seqlen > 1:
            mask = torch.full((seqlen, seqlen), float("-inf"), device=tokens.device)
            mask = torch.triu(mask, diagonal=1)
            # When performing key-value caching, we compute the attention scores
            # only for the new sequence. Thus, the matrix of scores is of size
            # (seqlen, cache_len + seqlen), and the only masked entries are (i, j) for
            # j > cache_len + i, since row i corresponds to token cache_len + i.
            mask = torch.hstack([torch.zeros((seqlen, start_pos), device=tokens.device), mask]).type_as(h)
        for layer in self.layers:
            h = layer(h, start_pos, freqs_cis, mask)
        h = self.norm(h)
        output = self.output(h).float()
        return output


class Tokenizer:
    """Stands in for the sentencepiece tokenizer: bos 1, eos 2, pad -1, then characters."""

    def __init__(self, alphabet):
        self.chars = sorted(set(alphabet))
        self.n_words = 3 + len(self.chars)
        self.bos_id, self.eos_id, self.pad_id = 1, 2, -1

    def encode(self, s: str, bos: bool, eos: bool) -> List[int]:
        t = [3 + self.chars.index(c) for c in s]
        return ([self.bos_id] if bos else []) + t + ([self.eos_id] if eos else [])

    def decode(self, t: List[int]) -> str:
        return "".join(self.chars[i - 3] for i in t if i >= 3)


def sample_top_p(probs, p):
    probs_sort, probs_idx = torch.sort(probs, dim=-1, descending=True)
    probs_sum = torch.cumsum(probs_sort, dim=-1)
    mask = probs_sum - probs_sort > p
    probs_sort[mask] = 0.0
    probs_sort.div_(probs_sort.sum(dim=-1, keepdim=True))
    next_token = torch.multinomial(probs_sort, num_samples=1)
    next_token = torch.gather(probs_idx, -1, next_token)
    return next_token


class Llama:
    @staticmethod
    def build(ckpt_dir: str, tokenizer: Tokenizer, max_seq_len: int, max_batch_size: int, seed: int = 1) -> "Llama":
        torch.manual_seed(seed)
        checkpoint = torch.load(os.path.join(ckpt_dir, "consolidated.00.pth"), map_location="cpu")
        with open(os.path.join(ckpt_dir, "params.json"), "r") as f:
            params = json.loads(f.read())
        model_args: ModelArgs = ModelArgs(max_seq_len=max_seq_len, max_batch_size=max_batch_size, **params)
        model_args.vocab_size = tokenizer.n_words
        model = Transformer(model_args)
        result = model.load_state_dict(checkpoint, strict=False)
        return Llama(model, tokenizer), result

    def __init__(self, model: Transformer, tokenizer: Tokenizer):
        self.model = model
        self.tokenizer = tokenizer

    @torch.inference_mode()
    def generate(self, prompt_tokens: List[List[int]], max_gen_len: int, temperature: float = 0.6,
                 top_p: float = 0.9, logprobs: bool = False, echo: bool = False):
        params = self.model.params
        bsz = len(prompt_tokens)
        assert bsz <= params.max_batch_size, (bsz, params.max_batch_size)
        min_prompt_len = min(len(t) for t in prompt_tokens)
        max_prompt_len = max(len(t) for t in prompt_tokens)
        assert max_prompt_len <= params.max_seq_len
        total_len = min(params.max_seq_len, max_gen_len + max_prompt_len)

        pad_id = self.tokenizer.pad_id
        tokens = torch.full((bsz, total_len), pad_id, dtype=torch.long)
        for k, t in enumerate(prompt_tokens):
            tokens[k, : len(t)] = torch.tensor(t, dtype=torch.long)
        if logprobs:
            token_logprobs = torch.zeros_like(tokens, dtype=torch.float)

        prev_pos = 0
        eos_reached = torch.tensor([False] * bsz)
        input_text_mask = tokens != pad_id
        for cur_pos in range(min_prompt_len, total_len):
            logits = self.model.forward(tokens[:, prev_pos:cur_pos], prev_pos)
            if temperature > 0:
                probs = torch.softmax(logits[:, -1] / temperature, dim=-1)
                next_token = sample_top_p(probs, top_p)
            else:
                next_token = torch.argmax(logits[:, -1], dim=-1)
            next_token = next_token.reshape(-1)
            # only replace token if prompt has already been generated
            next_token = torch.where(input_text_mask[:, cur_pos], tokens[:, cur_pos], next_token)
            tokens[:, cur_pos] = next_token
            if logprobs:
                token_logprobs[:, prev_pos + 1: cur_pos + 1] = -F.cross_entropy(
                    input=logits.transpose(1, 2),
                    target=tokens[:, prev_pos + 1: cur_pos + 1],
                    reduction="none",
                    ignore_index=pad_id,
                )
            eos_reached |= (~input_text_mask[:, cur_pos]) & (next_token == self.tokenizer.eos_id)
            prev_pos = cur_pos
            if all(eos_reached):
                break

        if logprobs:
            token_logprobs = token_logprobs.tolist()
        out_tokens, out_logprobs = [], []
        for i, toks in enumerate(tokens.tolist()):
            # cut to max gen len
            start = 0 if echo else len(prompt_tokens[i])
            toks = toks[start: len(prompt_tokens[i]) + max_gen_len]
            probs = None
            if logprobs:
                probs = token_logprobs[i][start: len(prompt_tokens[i]) + max_gen_len]
            # cut to eos tok if any
            if self.tokenizer.eos_id in toks:
                eos_idx = toks.index(self.tokenizer.eos_id)
                toks = toks[:eos_idx]
                probs = probs[:eos_idx] if logprobs else None
            out_tokens.append(toks)
            out_logprobs.append(probs)
        return (out_tokens, out_logprobs if logprobs else None)

    def text_completion(self, prompts: List[str], temperature: float = 0.6, top_p: float = 0.9,
                        max_gen_len: Optional[int] = None, logprobs: bool = False, echo: bool = False):
        if max_gen_len is None:
            max_gen_len = self.model.params.max_seq_len - 1
        prompt_tokens = [self.tokenizer.encode(x, bos=True, eos=False) for x in prompts]
        generation_tokens, generation_logprobs = self.generate(
            prompt_tokens=prompt_tokens, max_gen_len=max_gen_len, temperature=temperature,
            top_p=top_p, logprobs=logprobs, echo=echo)
        if logprobs:
            return [{"generation": self.tokenizer.decode(t), "tokens": [self.tokenizer.decode([x]) for x in t],
                     "logprobs": logprobs_i} for t, logprobs_i in zip(generation_tokens, generation_logprobs)]
        return [{"generation": self.tokenizer.decode(t)} for t in generation_tokens]


# ---------------------------------------------------------------- RoPE: complex == real rotation
freqs_cis = precompute_freqs_cis(8, 12)
assert freqs_cis.dtype == torch.complex64 and freqs_cis.shape == (12, 4)
assert torch.allclose(freqs_cis.abs(), torch.ones(12, 4))
xq = torch.randn(2, 12, 3, 8)
xk = torch.randn(2, 12, 1, 8)
rq, rk = apply_rotary_emb(xq, xk, freqs_cis)
assert rq.shape == xq.shape and rq.dtype == torch.float32 and rk.shape == xk.shape
angle = torch.angle(freqs_cis)                           # (12, 4)
cos, sin = angle.cos()[None, :, None, :], angle.sin()[None, :, None, :]
even, odd = xq[..., 0::2], xq[..., 1::2]
by_hand = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1).flatten(3)
assert torch.allclose(rq, by_hand, atol=1e-5), (rq - by_hand).abs().max()
assert torch.allclose(rq.norm(dim=-1), xq.norm(dim=-1), atol=1e-5)   # a rotation keeps lengths
half_q, _ = apply_rotary_emb(xq.half(), xk.half(), freqs_cis)
assert half_q.dtype == torch.float16
assert torch.equal(repeat_kv(xk, 3), torch.repeat_interleave(xk, dim=2, repeats=3))

# ---------------------------------------------------------------- a checkpoint on disk
tokenizer = Tokenizer("abcdefghijklmnopqrstuvwxyz .,")
params = {"dim": 32, "n_layers": 2, "n_heads": 4, "n_kv_heads": 2, "multiple_of": 16,
          "ffn_dim_multiplier": 1.3, "norm_eps": 1e-05}
ckpt_dir = "llama-2-toy"
os.makedirs(ckpt_dir, exist_ok=True)
with open(os.path.join(ckpt_dir, "params.json"), "w") as f:
    json.dump(params, f)
torch.manual_seed(0)
source = Transformer(ModelArgs(vocab_size=tokenizer.n_words, max_seq_len=32, max_batch_size=4, **params))
with torch.no_grad():
    for name, p in source.named_parameters():
        if p.dim() == 2:
            p.normal_(0.0, 0.5 / math.sqrt(p.shape[1]) if "embeddings" not in name else 1.0)
state = dict(source.state_dict())
state["rope.freqs"] = torch.zeros(4)                     # Meta's checkpoints carry this key
torch.save(state, os.path.join(ckpt_dir, "consolidated.00.pth"))

generator, result = Llama.build(ckpt_dir, tokenizer, max_seq_len=32, max_batch_size=4)
model = generator.model
assert result.unexpected_keys == ["rope.freqs"] and result.missing_keys == []
assert model.layers[0].feed_forward.w1.out_features == 112   # int(2 * 128 / 3) = 85, * 1.3 = 110, up to 16s
assert model.layers[0].attention.n_rep == 2 and model.layers[0].attention.cache_k.shape == (4, 32, 2, 8)

# ---------------------------------------------------------------- the KV cache
tokens = torch.tensor([tokenizer.encode("the cat sat", bos=True, eos=False)])
full = model(tokens, 0)
assert full.dtype == torch.float32 and not full.requires_grad
assert full.shape == (1, tokens.shape[1], tokenizer.n_words)
prefix = model(tokens[:, :5], 0)
step = [model(tokens[:, i:i + 1], i) for i in range(5, tokens.shape[1])]
assert torch.allclose(prefix, full[:, :5], atol=1e-5)
assert torch.allclose(torch.cat(step, dim=1), full[:, 5:], atol=1e-5)

# ---------------------------------------------------------------- generate
prompts = ["the cat", "a dog sat on", "hi"]
prompt_tokens = [tokenizer.encode(x, bos=True, eos=False) for x in prompts]
out, lps = generator.generate(prompt_tokens, max_gen_len=6, temperature=0.0, logprobs=True)
for p, o, lp in zip(prompt_tokens, out, lps):
    assert len(o) == len(lp) <= 6
    seq = torch.tensor([p + o])
    logits = model(seq, 0)
    want = logits[0, len(p) - 1:-1].argmax(-1).tolist()
    assert o == want[:len(o)], (o, want)
    logp = torch.log_softmax(logits[0, len(p) - 1:-1], dim=-1)
    got = torch.tensor(lp)
    assert torch.allclose(got, logp[torch.arange(len(o)), torch.tensor(o)], atol=1e-4), (got, logp)
    if len(o) < 6:                                   # cut at eos
        assert model(torch.tensor([p + o]), 0)[0, -1].argmax().item() == tokenizer.eos_id

echoed, echo_lps = generator.generate(prompt_tokens[:1], max_gen_len=3, temperature=0.0, logprobs=True, echo=True)
assert echoed[0][:len(prompt_tokens[0])] == prompt_tokens[0]
assert echo_lps[0][0] == 0.0                         # the first token has no prediction

# an eos the model will emit: every row stops, the loop breaks early
forced = out[0][1] if len(out[0]) > 1 else out[0][0]
tokenizer.eos_id = forced
stopped, _ = generator.generate(prompt_tokens[:1], max_gen_len=6, temperature=0.0)
assert stopped[0] == out[0][:out[0].index(forced)], (stopped, out[0])
tokenizer.eos_id = 2

# sampling: top-p keeps the smallest set of tokens whose mass reaches p
probs = torch.tensor([[0.05, 0.6, 0.3, 0.05], [0.3, 0.28, 0.22, 0.2]])
torch.manual_seed(0)
draws = torch.cat([sample_top_p(probs.clone(), 0.5) for _ in range(50)], dim=1)
assert set(draws[0].tolist()) == {1}
assert set(draws[1].tolist()) <= {0, 1} and len(set(draws[1].tolist())) == 2
torch.manual_seed(0)
completions = generator.text_completion(["the cat", "a dog"], temperature=0.6, top_p=0.9, max_gen_len=5)
assert all(len(c["generation"]) <= 5 for c in completions)
with_lp = generator.text_completion(["the cat"], temperature=0.0, max_gen_len=4, logprobs=True)
assert len(with_lp[0]["tokens"]) == len(with_lp[0]["logprobs"])
print("llama 2 ok", [c["generation"] for c in completions], with_lp[0]["generation"])
