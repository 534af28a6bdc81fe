"""OpenAI's Whisper (whisper/model.py and the decoding loop of whisper/decoding.py) at toy size,
random weights and a synthetic log-mel input: ModelDimensions, LayerNorm / Linear / Conv1d
subclasses that compute in the input's dtype (Conv1d through _conv_forward(x, weight.to(x.dtype),
bias)), sinusoids (np.log scalar times torch.arange, [:, np.newaxis]), MultiHeadAttention with
the class flag use_sdpa and the disable_sdpa() context manager (scaled_dot_product_attention
with is_causal vs (q * scale) @ (k * scale).transpose(-1, -2) + mask), cross-attention reusing
cached keys, AudioEncoder (conv1 / conv2 stride 2 + F.gelu, permute, positional buffer, the
"incorrect audio shape" assert), TextDecoder (mask = torch.empty(n, n).fill_(-np.inf).triu_(1),
logits against token_embedding.weight transposed), install_kv_cache_hooks (forward hooks on the
key / value Linears whose returned value replaces the output, a dict keyed by modules), then
PyTorchInference, GreedyDecoder (logprobs[torch.arange(n), next_tokens], sum_logprobs +=
... * (tokens[:, -1] != eot), next_tokens[mask] = eot, F.pad(tokens, (0, 1), value=eot)),
BeamSearchDecoder with rearrange_kv_cache (cache[module][source_indices]), SuppressBlank /
SuppressTokens (logits[:, list] = -np.inf), MaximumLikelihoodRanker and the _main_loop.
One change: the alignment_heads buffer stays dense (the file stores all_heads.to_sparse();
labkit has no sparse tensors)."""
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Tuple

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.distributions import Categorical

try:
    from torch.nn.functional import scaled_dot_product_attention

    SDPA_AVAILABLE = True
except (ImportError, RuntimeError, OSError):
    scaled_dot_product_attention = None
    SDPA_AVAILABLE = False


@dataclass
class ModelDimensions:
    n_mels: int
    n_audio_ctx: int
    n_audio_state: int
    n_audio_head: int
    n_audio_layer: int
    n_vocab: int
    n_text_ctx: int
    n_text_state: int
    n_text_head: int
    n_text_layer: int


class LayerNorm(nn.LayerNorm):
    def forward(self, x: Tensor) -> Tensor:
        return super().forward(x.float()).type(x.dtype)


class Linear(nn.Linear):
    def forward(self, x: Tensor) -> Tensor:
        return F.linear(x, self.weight.to(x.dtype), None if self.bias is None else self.bias.to(x.dtype))


class Conv1d(nn.Conv1d):
    def _conv_forward(self, x: Tensor, weight: Tensor, bias: Optional[Tensor]) -> Tensor:
        return super()._conv_forward(x, weight.to(x.dtype), None if bias is None else bias.to(x.dtype))


def sinusoids(length, channels, max_timescale=10000):
    """Returns sinusoids for positional embedding"""
    assert channels % 2 == 0
    log_timescale_increment = np.log(max_timescale) / (channels // 2 - 1)
    inv_timescales = torch.exp(-log_timescale_increment * torch.arange(channels // 2))
    scaled_time = torch.arange(length)[:, np.newaxis] * inv_timescales[np.newaxis, :]
    return torch.cat([torch.sin(scaled_time), torch.cos(scaled_time)], dim=1)


@contextmanager
def disable_sdpa():
    prev_state = MultiHeadAttention.use_sdpa
    try:
        MultiHeadAttention.use_sdpa = False
        yield
    finally:
        MultiHeadAttention.use_sdpa = prev_state


class MultiHeadAttention(nn.Module):
    use_sdpa = True

    def __init__(self, n_state: int, n_head: int):
        super().__init__()
        self.n_head = n_head
        self.query = Linear(n_state, n_state)
        self.key = Linear(n_state, n_state, bias=False)
        self.value = Linear(n_state, n_state)
        self.out = Linear(n_state, n_state)

    def forward(self, x, xa=None, mask=None, kv_cache=None):
        q = self.query(x)
        if kv_cache is None or xa is None or self.key not in kv_cache:
            k = self.key(x if xa is None else xa)
            v = self.value(x if xa is None else xa)
        else:
            # for cross-attention, calculate keys and values once and reuse in subsequent calls.
            k = kv_cache[self.key]
            v = kv_cache[self.value]
        wv, qk = self.qkv_attention(q, k, v, mask)
        return self.out(wv), qk

    def qkv_attention(self, q, k, v, mask=None):
        n_batch, n_ctx, n_state = q.shape
        scale = (n_state // self.n_head) ** -0.25
        q = q.view(*q.shape[:2], self.n_head, -1).permute(0, 2, 1, 3)
        k = k.view(*k.shape[:2], self.n_head, -1).permute(0, 2, 1, 3)
        v = v.view(*v.shape[:2], self.n_head, -1).permute(0, 2, 1, 3)
        if SDPA_AVAILABLE and MultiHeadAttention.use_sdpa:
            a = scaled_dot_product_attention(q, k, v, is_causal=mask is not None and n_ctx > 1)
            out = a.permute(0, 2, 1, 3).flatten(start_dim=2)
            qk = None
        else:
            qk = (q * scale) @ (k * scale).transpose(-1, -2)
            if mask is not None:
                qk = qk + mask[:n_ctx, :n_ctx]
            qk = qk.float()
            w = F.softmax(qk, dim=-1).to(q.dtype)
            out = (w @ v).permute(0, 2, 1, 3).flatten(start_dim=2)
            qk = qk.detach()
        return out, qk


class ResidualAttentionBlock(nn.Module):
    def __init__(self, n_state: int, n_head: int, cross_attention: bool = False):
        super().__init__()
        self.attn = MultiHeadAttention(n_state, n_head)
        self.attn_ln = LayerNorm(n_state)
        self.cross_attn = MultiHeadAttention(n_state, n_head) if cross_attention else None
        self.cross_attn_ln = LayerNorm(n_state) if cross_attention else None
        n_mlp = n_state * 4
        self.mlp = nn.Sequential(Linear(n_state, n_mlp), nn.GELU(), Linear(n_mlp, n_state))
        self.mlp_ln = LayerNorm(n_state)

    def forward(self, x, xa=None, mask=None, kv_cache=None):
        x = x + self.attn(self.attn_ln(x), mask=mask, kv_cache=kv_cache)[0]
        if self.cross_attn:
            x = x + self.cross_attn(self.cross_attn_ln(x), xa, kv_cache=kv_cache)[0]
        x = x + self.mlp(self.mlp_ln(x))
        return x


class AudioEncoder(nn.Module):
    def __init__(self, n_mels: int, n_ctx: int, n_state: int, n_head: int, n_layer: int):
        super().__init__()
        self.conv1 = Conv1d(n_mels, n_state, kernel_size=3, padding=1)
        self.conv2 = Conv1d(n_state, n_state, kernel_size=3, stride=2, padding=1)
        self.register_buffer("positional_embedding", sinusoids(n_ctx, n_state))
        self.blocks: Iterable[ResidualAttentionBlock] = nn.ModuleList(
            [ResidualAttentionBlock(n_state, n_head) for _ in range(n_layer)])
        self.ln_post = LayerNorm(n_state)

    def forward(self, x: Tensor):
        x = F.gelu(self.conv1(x))
        x = F.gelu(self.conv2(x))
        x = x.permute(0, 2, 1)
        assert x.shape[1:] == self.positional_embedding.shape, "incorrect audio shape"
        x = (x + self.positional_embedding).to(x.dtype)
        for block in self.blocks:
            x = block(x)
        return self.ln_post(x)


class TextDecoder(nn.Module):
    def __init__(self, n_vocab: int, n_ctx: int, n_state: int, n_head: int, n_layer: int):
        super().__init__()
        self.token_embedding = nn.Embedding(n_vocab, n_state)
        self.positional_embedding = nn.Parameter(torch.empty(n_ctx, n_state))
        self.blocks: Iterable[ResidualAttentionBlock] = nn.ModuleList(
            [ResidualAttentionBlock(n_state, n_head, cross_attention=True) for _ in range(n_layer)])
        self.ln = LayerNorm(n_state)
        mask = torch.empty(n_ctx, n_ctx).fill_(-np.inf).triu_(1)
        self.register_buffer("mask", mask, persistent=False)

    def forward(self, x: Tensor, xa: Tensor, kv_cache: Optional[dict] = None):
        offset = next(iter(kv_cache.values())).shape[1] if kv_cache else 0
        x = self.token_embedding(x) + self.positional_embedding[offset: offset + x.shape[-1]]
        x = x.to(xa.dtype)
        for block in self.blocks:
            x = block(x, xa, mask=self.mask, kv_cache=kv_cache)
        x = self.ln(x)
        return (x @ torch.transpose(self.token_embedding.weight.to(x.dtype), 0, 1)).float()


class Whisper(nn.Module):
    def __init__(self, dims: ModelDimensions):
        super().__init__()
        self.dims = dims
        self.encoder = AudioEncoder(self.dims.n_mels, self.dims.n_audio_ctx, self.dims.n_audio_state,
                                    self.dims.n_audio_head, self.dims.n_audio_layer)
        self.decoder = TextDecoder(self.dims.n_vocab, self.dims.n_text_ctx, self.dims.n_text_state,
                                   self.dims.n_text_head, self.dims.n_text_layer)
        all_heads = torch.zeros(self.dims.n_text_layer, self.dims.n_text_head, dtype=torch.bool)
        all_heads[self.dims.n_text_layer // 2:] = True
        self.register_buffer("alignment_heads", all_heads, persistent=False)   # .to_sparse() in the file

    def embed_audio(self, mel: torch.Tensor):
        return self.encoder(mel)

    def logits(self, tokens: torch.Tensor, audio_features: torch.Tensor):
        return self.decoder(tokens, audio_features)

    def forward(self, mel: torch.Tensor, tokens: torch.Tensor) -> Dict[str, torch.Tensor]:
        return self.decoder(tokens, self.encoder(mel))

    @property
    def device(self):
        return next(self.parameters()).device

    @property
    def is_multilingual(self):
        return self.dims.n_vocab >= 51865

    def install_kv_cache_hooks(self, cache: Optional[dict] = None):
        cache = {**cache} if cache is not None else {}
        hooks = []

        def save_to_cache(module, _, output):
            if module not in cache or output.shape[1] > self.dims.n_text_ctx:
                cache[module] = output          # save as-is, for the first token or cross attention
            else:
                cache[module] = torch.cat([cache[module], output], dim=1).detach()
            return cache[module]

        def install_hooks(layer: nn.Module):
            if isinstance(layer, MultiHeadAttention):
                hooks.append(layer.key.register_forward_hook(save_to_cache))
                hooks.append(layer.value.register_forward_hook(save_to_cache))

        self.decoder.apply(install_hooks)
        return cache, hooks


# ---------------------------------------------------------------- decoding.py
class PyTorchInference:
    def __init__(self, model: Whisper, initial_token_length: int):
        self.model = model
        self.initial_token_length = initial_token_length
        self.kv_cache = {}
        self.hooks = []
        key_modules = [block.attn.key for block in self.model.decoder.blocks]
        value_modules = [block.attn.value for block in self.model.decoder.blocks]
        self.kv_modules = key_modules + value_modules

    def logits(self, tokens: Tensor, audio_features: Tensor) -> Tensor:
        if not self.kv_cache:
            self.kv_cache, self.hooks = self.model.install_kv_cache_hooks()
        if tokens.shape[-1] > self.initial_token_length:
            tokens = tokens[:, -1:]   # only need to use the last token except in the first forward pass
        return self.model.decoder(tokens, audio_features, kv_cache=self.kv_cache)

    def cleanup_caching(self):
        for hook in self.hooks:
            hook.remove()
        self.kv_cache = {}
        self.hooks = []

    def rearrange_kv_cache(self, source_indices):
        if source_indices != list(range(len(source_indices))):
            for module in self.kv_modules:
                self.kv_cache[module] = self.kv_cache[module][source_indices].detach()


class MaximumLikelihoodRanker:
    def __init__(self, length_penalty: Optional[float]):
        self.length_penalty = length_penalty

    def rank(self, tokens, sum_logprobs):
        def scores(logprobs, lengths):
            result = []
            for logprob, length in zip(logprobs, lengths):
                penalty = length if self.length_penalty is None else ((5 + length) / 6) ** self.length_penalty
                result.append(logprob / penalty)
            return result
        lengths = [[len(t) for t in s] for s in tokens]
        return [np.argmax(scores(p, l)) for p, l in zip(sum_logprobs, lengths)]


class GreedyDecoder:
    def __init__(self, temperature: float, eot: int):
        self.temperature = temperature
        self.eot = eot

    def reset(self):
        pass

    def update(self, tokens: Tensor, logits: Tensor, sum_logprobs: Tensor) -> Tuple[Tensor, bool]:
        if self.temperature == 0:
            next_tokens = logits.argmax(dim=-1)
        else:
            next_tokens = Categorical(logits=logits / self.temperature).sample()
        logprobs = F.log_softmax(logits.float(), dim=-1)
        current_logprobs = logprobs[torch.arange(logprobs.shape[0]), next_tokens]
        sum_logprobs += current_logprobs * (tokens[:, -1] != self.eot)
        next_tokens[tokens[:, -1] == self.eot] = self.eot
        tokens = torch.cat([tokens, next_tokens[:, None]], dim=-1)
        completed = (tokens[:, -1] == self.eot).all()
        return tokens, completed

    def finalize(self, tokens: Tensor, sum_logprobs: Tensor):
        tokens = F.pad(tokens, (0, 1), value=self.eot)   # each sequence ends with at least one EOT
        return tokens, sum_logprobs.tolist()


class BeamSearchDecoder:
    def __init__(self, beam_size: int, eot: int, inference, patience: Optional[float] = None):
        self.beam_size = beam_size
        self.eot = eot
        self.inference = inference
        self.patience = patience or 1.0
        self.max_candidates: int = round(beam_size * self.patience)
        self.finished_sequences = None
        assert self.max_candidates > 0, f"Invalid beam size ({beam_size}) or patience ({patience})"

    def reset(self):
        self.finished_sequences = None

    def update(self, tokens: Tensor, logits: Tensor, sum_logprobs: Tensor) -> Tuple[Tensor, bool]:
        if tokens.shape[0] % self.beam_size != 0:
            raise ValueError(f"{tokens.shape}[0] % {self.beam_size} != 0")
        n_audio = tokens.shape[0] // self.beam_size
        if self.finished_sequences is None:
            self.finished_sequences = [{} for _ in range(n_audio)]
        logprobs = F.log_softmax(logits.float(), dim=-1)
        next_tokens, source_indices, finished_sequences = [], [], []
        for i in range(n_audio):
            scores, sources, finished = {}, {}, {}
            for j in range(self.beam_size):
                idx = i * self.beam_size + j
                prefix = tokens[idx].tolist()
                for logprob, token in zip(*logprobs[idx].topk(self.beam_size + 1)):
                    new_logprob = (sum_logprobs[idx] + logprob).item()
                    sequence = tuple(prefix + [token.item()])
                    scores[sequence] = new_logprob
                    sources[sequence] = idx
            saved = 0
            for sequence in sorted(scores, key=scores.get, reverse=True):
                if sequence[-1] == self.eot:
                    finished[sequence] = scores[sequence]
                else:
                    sum_logprobs[len(next_tokens)] = scores[sequence]
                    next_tokens.append(sequence)
                    source_indices.append(sources[sequence])
                    saved += 1
                    if saved == self.beam_size:
                        break
            finished_sequences.append(finished)
        tokens = torch.tensor(next_tokens, device=tokens.device)
        self.inference.rearrange_kv_cache(source_indices)
        assert len(self.finished_sequences) == len(finished_sequences)
        for previously_finished, newly_finished in zip(self.finished_sequences, finished_sequences):
            for seq in sorted(newly_finished, key=newly_finished.get, reverse=True):
                if len(previously_finished) >= self.max_candidates:
                    break
                previously_finished[seq] = newly_finished[seq]
        completed = all(len(sequences) >= self.max_candidates for sequences in self.finished_sequences)
        return tokens, completed

    def finalize(self, preceding_tokens: Tensor, sum_logprobs: Tensor):
        sum_logprobs = sum_logprobs.cpu()
        for i, sequences in enumerate(self.finished_sequences):
            if len(sequences) < self.beam_size:
                for j in list(np.argsort(sum_logprobs[i]))[::-1]:
                    sequence = preceding_tokens[i, j].tolist() + [self.eot]
                    sequences[tuple(sequence)] = sum_logprobs[i][j].item()
                    if len(sequences) >= self.beam_size:
                        break
        tokens = [[torch.tensor(seq) for seq in sequences.keys()] for sequences in self.finished_sequences]
        sum_logprobs = [list(sequences.values()) for sequences in self.finished_sequences]
        return tokens, sum_logprobs


class Tokenizer:
    """Stands in for whisper's tiktoken-based tokenizer: ids 0..25 text, 26 space, 27 eot, 28 sot."""
    eot, sot, no_speech = 27, 28, None
    sot_sequence = (28, 29)

    def encode(self, text):
        return [26 if c == " " else ord(c) - ord("a") for c in text]


class SuppressBlank:
    def __init__(self, tokenizer, sample_begin: int):
        self.tokenizer = tokenizer
        self.sample_begin = sample_begin

    def apply(self, logits: Tensor, tokens: Tensor):
        if tokens.shape[1] == self.sample_begin:
            logits[:, self.tokenizer.encode(" ") + [self.tokenizer.eot]] = -np.inf


class SuppressTokens:
    def __init__(self, suppress_tokens):
        self.suppress_tokens = list(suppress_tokens)

    def apply(self, logits: Tensor, tokens: Tensor):
        logits[:, self.suppress_tokens] = -np.inf


@torch.no_grad()
def main_loop(model, inference, decoder, logit_filters, audio_features, tokens, sample_len, n_ctx):
    n_batch = tokens.shape[0]
    sum_logprobs: Tensor = torch.zeros(n_batch, device=audio_features.device)
    try:
        for i in range(sample_len):
            logits = inference.logits(tokens, audio_features)
            logits = logits[:, -1]         # now we need to consider the logits at the last token only
            for logit_filter in logit_filters:
                logit_filter.apply(logits, tokens)
            tokens, completed = decoder.update(tokens, logits, sum_logprobs)
            if completed or tokens.shape[-1] > n_ctx:
                break
    finally:
        inference.cleanup_caching()
    return tokens, sum_logprobs


# ---------------------------------------------------------------- the run
dims = ModelDimensions(n_mels=8, n_audio_ctx=10, n_audio_state=16, n_audio_head=2, n_audio_layer=2,
                       n_vocab=30, n_text_ctx=16, n_text_state=16, n_text_head=2, n_text_layer=2)
torch.manual_seed(0)
model = Whisper(dims)
with torch.no_grad():
    model.decoder.positional_embedding.normal_(0, 0.02)
    model.decoder.token_embedding.weight.mul_(2.0)
model.eval()
assert not model.is_multilingual and model.device.type == "cpu"
assert model.alignment_heads.tolist() == [[False, False], [True, True]]
assert "decoder.mask" not in model.state_dict() and "encoder.positional_embedding" in model.state_dict()

pe = sinusoids(10, 16)
assert pe.dtype == torch.float32 and pe.shape == (10, 16)
assert torch.allclose(pe[:, :8], torch.sin(torch.arange(10)[:, None] * torch.exp(-np.log(10000) / 7 * torch.arange(8))))
assert model.decoder.mask[0, 1] == -np.inf and model.decoder.mask[1, 0] == 0

mel = torch.randn(2, 8, 20)
with torch.no_grad():
    audio_features = model.embed_audio(mel)
assert audio_features.shape == (2, 10, 16)
try:
    model.embed_audio(torch.randn(1, 8, 24))
    raise RuntimeError("a wrong mel length must fail")
except AssertionError as e:
    assert "incorrect audio shape" in str(e)

# SDPA and the explicit path agree; only the explicit one returns the attention logits
tokens = torch.tensor([[28, 29, 3, 7, 11], [28, 29, 0, 1, 2]])
with torch.no_grad():
    fast = model.logits(tokens, audio_features)
    with disable_sdpa():
        assert MultiHeadAttention.use_sdpa is False
        slow = model.logits(tokens, audio_features)
        _, qk = model.decoder.blocks[0].attn(torch.randn(2, 5, 16), mask=model.decoder.mask)
assert MultiHeadAttention.use_sdpa is True
assert fast.dtype == torch.float32 and fast.shape == (2, 5, 30)
assert torch.allclose(fast, slow, atol=1e-5), (fast - slow).abs().max()
assert qk.shape == (2, 2, 5, 5) and torch.isinf(qk[0, 0, 0, 1]) and not qk.requires_grad

# the KV-cache hooks: one token at a time gives the full pass's logits
inference = PyTorchInference(model, initial_token_length=2)
with torch.no_grad():
    steps = [inference.logits(tokens[:, :2], audio_features)[:, -1]]
    for t in range(3, 6):
        steps.append(inference.logits(tokens[:, :t], audio_features)[:, -1])
assert len(inference.hooks) == 4 * dims.n_text_layer        # self- and cross-attention key/value
self_key = model.decoder.blocks[0].attn.key
cross_key = model.decoder.blocks[0].cross_attn.key
assert inference.kv_cache[self_key].shape == (2, 5, 16) and inference.kv_cache[cross_key].shape == (2, 10, 16)
assert torch.allclose(torch.stack(steps, 1), fast[:, 1:], atol=1e-5)
inference.cleanup_caching()
assert inference.kv_cache == {} and not model.decoder.blocks[0].attn.key._forward_hooks

# greedy decoding with the logit filters
tokenizer = Tokenizer()
sample_begin = len(tokenizer.sot_sequence)
filters = [SuppressBlank(tokenizer, sample_begin), SuppressTokens([28, 29])]
start = torch.tensor([list(tokenizer.sot_sequence)] * 2)
greedy = GreedyDecoder(temperature=0.0, eot=tokenizer.eot)
out, sum_lp = main_loop(model, PyTorchInference(model, 2), greedy, filters, audio_features, start, sample_len=8, n_ctx=16)
assert out.shape[1] <= 2 + 8 and out[:, 2].ne(26).all() and out[:, 2].ne(27).all()   # no blank first
assert not ((out[:, 2:] == 28) | (out[:, 2:] == 29)).any()
with torch.no_grad():                 # the summed log-probabilities, recomputed without the cache
    full = model.logits(out[:, :-1], audio_features)
    for f in filters[1:]:
        f.apply(full.view(-1, 30), None)
    full[:, 1, 26] = -np.inf
    full[:, 1, 27] = -np.inf
    lp = F.log_softmax(full[:, 1:], dim=-1).gather(-1, out[:, 2:, None])[..., 0]
    lp = lp * (out[:, 1:-1] != tokenizer.eot)
assert torch.allclose(lp.sum(-1), sum_lp, atol=1e-4), (lp.sum(-1), sum_lp)
final_tokens, final_lp = greedy.finalize(out, sum_lp)
assert (final_tokens[:, -1] == tokenizer.eot).all() and isinstance(final_lp, list)

# sampling with a temperature goes through torch.distributions.Categorical
torch.manual_seed(1)
hot = GreedyDecoder(temperature=1.0, eot=tokenizer.eot)
sampled, _ = main_loop(model, PyTorchInference(model, 2), hot, filters, audio_features, start, sample_len=4, n_ctx=16)
assert sampled.shape[0] == 2 and sampled.dtype == torch.long

# beam search: the kv cache follows the surviving beams
beam_size = 3
inference = PyTorchInference(model, 2)
beam = BeamSearchDecoder(beam_size, tokenizer.eot, inference, patience=1.0)
beam_tokens = start.repeat_interleave(beam_size, dim=0)
feats = audio_features.repeat_interleave(beam_size, dim=0)
out_b, sum_lp_b = main_loop(model, inference, beam, filters[1:], feats, beam_tokens, sample_len=6, n_ctx=16)
candidates, scores = beam.finalize(out_b.reshape(2, beam_size, -1), sum_lp_b.reshape(2, beam_size))
assert len(candidates) == 2 and all(len(c) >= beam_size for c in candidates)
ranker = MaximumLikelihoodRanker(length_penalty=None)
best = ranker.rank(candidates, scores)
for i in range(2):
    seq = candidates[i][best[i]]
    assert seq[-1].item() == tokenizer.eot and seq[:2].tolist() == [28, 29]
    with torch.no_grad():       # its score is the sum of its tokens' log-probabilities
        lg = model.logits(seq[None, :-1], audio_features[i:i + 1])
        lg[..., [28, 29]] = -np.inf
        lp = F.log_softmax(lg[0, 1:], dim=-1).gather(-1, seq[2:, None])[:, 0]
    # (a beam still open at the end gets its eot appended without a log-probability)
    assert min(abs(lp.sum().item() - scores[i][best[i]]), abs(lp[:-1].sum().item() - scores[i][best[i]])) < 1e-3

# the Linear / Conv1d / LayerNorm subclasses compute in the input's dtype: a float64 input
# runs through the float32 weights (LayerNorm in float32, then back)
with torch.no_grad():
    feats64 = model.embed_audio(mel.double())
    logits64 = model.logits(tokens, feats64)
assert feats64.dtype == torch.float64 and model.encoder.conv1.weight.dtype == torch.float32
assert logits64.dtype == torch.float32 and torch.allclose(logits64, fast, atol=1e-4)
print("whisper ok", out[0].tolist(), [c.tolist() for c in candidates[0]][:1])
