"""T5 as Hugging Face's transformers writes it (models/t5/modeling_t5.py, the v4.2x structure with
tuple past_key_values), the model code alone in plain torch (no PreTrainedModel, no transformers
import), at toy size on a synthetic copy task: T5LayerNorm (float32 variance, torch.rsqrt, no
mean, no bias), the gated-GELU feed-forward (wi_0 / wi_1 / wo, the tanh "gelu_new"), T5Attention
without score scaling and with the bucketed relative position bias (_relative_position_bucket:
(relative_position > 0).to(torch.long), -torch.min(rel, torch.zeros_like(rel)), torch.log of
float positions, torch.full_like / torch.min / torch.where; compute_bias through an nn.Embedding
permuted to (1, heads, q, k)) held by the first block only and passed down the stack, the
additive extended mask (1.0 - mask) * torch.finfo(dtype).min, softmax(scores.float()).type_as,
cross-attention, past_key_values for incremental decoding (position_bias[:, :, -n:, :]),
_shift_right (decoder_start_token_id, masked_fill_(... == -100, pad_token_id)), the tied
lm_head with sequence_output * d_model ** -0.5, CrossEntropyLoss(ignore_index=-100), and a
greedy generate with the cache against one without."""
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import CrossEntropyLoss


@dataclass
class T5Config:
    vocab_size: int = 32128
    d_model: int = 512
    d_kv: int = 64
    d_ff: int = 2048
    num_layers: int = 6
    num_decoder_layers: int = 6
    num_heads: int = 8
    relative_attention_num_buckets: int = 32
    relative_attention_max_distance: int = 128
    dropout_rate: float = 0.1
    layer_norm_epsilon: float = 1e-6
    pad_token_id: int = 0
    eos_token_id: int = 1
    decoder_start_token_id: int = 0
    is_decoder: bool = False


class T5LayerNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        """A layernorm in the T5 style: no bias and no subtraction of the mean."""
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        variance = hidden_states.to(torch.float32).pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        if self.weight.dtype in [torch.float16, torch.bfloat16]:
            hidden_states = hidden_states.to(self.weight.dtype)
        return self.weight * hidden_states


class NewGELUActivation(nn.Module):
    def forward(self, input):
        return 0.5 * input * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (input + 0.044715 * torch.pow(input, 3.0))))


class T5DenseGatedActDense(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.wi_0 = nn.Linear(config.d_model, config.d_ff, bias=False)
        self.wi_1 = nn.Linear(config.d_model, config.d_ff, bias=False)
        self.wo = nn.Linear(config.d_ff, config.d_model, bias=False)
        self.dropout = nn.Dropout(config.dropout_rate)
        self.act = NewGELUActivation()

    def forward(self, hidden_states):
        hidden_gelu = self.act(self.wi_0(hidden_states))
        hidden_linear = self.wi_1(hidden_states)
        hidden_states = hidden_gelu * hidden_linear
        hidden_states = self.dropout(hidden_states)
        return self.wo(hidden_states)


class T5LayerFF(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.DenseReluDense = T5DenseGatedActDense(config)
        self.layer_norm = T5LayerNorm(config.d_model, eps=config.layer_norm_epsilon)
        self.dropout = nn.Dropout(config.dropout_rate)

    def forward(self, hidden_states):
        forwarded_states = self.layer_norm(hidden_states)
        forwarded_states = self.DenseReluDense(forwarded_states)
        return hidden_states + self.dropout(forwarded_states)


class T5Attention(nn.Module):
    def __init__(self, config: T5Config, has_relative_attention_bias=False):
        super().__init__()
        self.is_decoder = config.is_decoder
        self.has_relative_attention_bias = has_relative_attention_bias
        self.relative_attention_num_buckets = config.relative_attention_num_buckets
        self.relative_attention_max_distance = config.relative_attention_max_distance
        self.d_model = config.d_model
        self.key_value_proj_dim = config.d_kv
        self.n_heads = config.num_heads
        self.dropout = config.dropout_rate
        self.inner_dim = self.n_heads * self.key_value_proj_dim
        self.q = nn.Linear(self.d_model, self.inner_dim, bias=False)
        self.k = nn.Linear(self.d_model, self.inner_dim, bias=False)
        self.v = nn.Linear(self.d_model, self.inner_dim, bias=False)
        self.o = nn.Linear(self.inner_dim, self.d_model, bias=False)
        if self.has_relative_attention_bias:
            self.relative_attention_bias = nn.Embedding(self.relative_attention_num_buckets, self.n_heads)

    @staticmethod
    def _relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
        relative_buckets = 0
        if bidirectional:
            num_buckets //= 2
            relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
            relative_position = torch.abs(relative_position)
        else:
            relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
        # now relative_position is in the range [0, inf)
        max_exact = num_buckets // 2
        is_small = relative_position < max_exact
        relative_position_if_large = max_exact + (
            torch.log(relative_position.float() / max_exact)
            / math.log(max_distance / max_exact)
            * (num_buckets - max_exact)
        ).to(torch.long)
        relative_position_if_large = torch.min(
            relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1))
        relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
        return relative_buckets

    def compute_bias(self, query_length, key_length, device=None):
        if device is None:
            device = self.relative_attention_bias.weight.device
        context_position = torch.arange(query_length, dtype=torch.long, device=device)[:, None]
        memory_position = torch.arange(key_length, dtype=torch.long, device=device)[None, :]
        relative_position = memory_position - context_position  # shape (query_length, key_length)
        relative_position_bucket = self._relative_position_bucket(
            relative_position, bidirectional=(not self.is_decoder), num_buckets=self.relative_attention_num_buckets,
            max_distance=self.relative_attention_max_distance)
        values = self.relative_attention_bias(relative_position_bucket)  # (query_length, key_length, num_heads)
        return values.permute([2, 0, 1]).unsqueeze(0)  # shape (1, num_heads, query_length, key_length)

    def forward(self, hidden_states, mask=None, key_value_states=None, position_bias=None, past_key_value=None,
                query_length=None, use_cache=False):
        batch_size, seq_length = hidden_states.shape[:2]
        real_seq_length = seq_length
        if past_key_value is not None:
            real_seq_length += past_key_value[0].shape[2] if query_length is None else query_length
        key_length = real_seq_length if key_value_states is None else key_value_states.shape[1]

        def shape(states):
            return states.view(batch_size, -1, self.n_heads, self.key_value_proj_dim).transpose(1, 2)

        def unshape(states):
            return states.transpose(1, 2).contiguous().view(batch_size, -1, self.inner_dim)

        def project(hidden_states, proj_layer, key_value_states, past_key_value):
            if key_value_states is None:
                hidden_states = shape(proj_layer(hidden_states))          # self-attn
            elif past_key_value is None:
                hidden_states = shape(proj_layer(key_value_states))       # cross-attn
            if past_key_value is not None:
                if key_value_states is None:
                    hidden_states = torch.cat([past_key_value, hidden_states], dim=2)
                else:
                    hidden_states = past_key_value                        # cross-attn: reuse
            return hidden_states

        query_states = shape(self.q(hidden_states))
        key_states = project(hidden_states, self.k, key_value_states,
                             past_key_value[0] if past_key_value is not None else None)
        value_states = project(hidden_states, self.v, key_value_states,
                               past_key_value[1] if past_key_value is not None else None)
        scores = torch.matmul(query_states, key_states.transpose(3, 2))
        if position_bias is None:
            if not self.has_relative_attention_bias:
                position_bias = torch.zeros((1, self.n_heads, real_seq_length, key_length), device=scores.device,
                                            dtype=scores.dtype)
            else:
                position_bias = self.compute_bias(real_seq_length, key_length, device=scores.device)
            # if key and values are already calculated we want only the last query position bias
            if past_key_value is not None:
                position_bias = position_bias[:, :, -hidden_states.size(1):, :]
            if mask is not None:
                position_bias = position_bias + mask  # (batch_size, n_heads, seq_length, key_length)
        scores += position_bias
        attn_weights = nn.functional.softmax(scores.float(), dim=-1).type_as(scores)
        attn_weights = nn.functional.dropout(attn_weights, p=self.dropout, training=self.training)
        attn_output = unshape(torch.matmul(attn_weights, value_states))
        attn_output = self.o(attn_output)
        present_key_value_state = (key_states, value_states) if (self.is_decoder and use_cache) else None
        return (attn_output,) + (present_key_value_state,) + (position_bias,)


class T5LayerSelfAttention(nn.Module):
    def __init__(self, config, has_relative_attention_bias=False):
        super().__init__()
        self.SelfAttention = T5Attention(config, has_relative_attention_bias=has_relative_attention_bias)
        self.layer_norm = T5LayerNorm(config.d_model, eps=config.layer_norm_epsilon)
        self.dropout = nn.Dropout(config.dropout_rate)

    def forward(self, hidden_states, attention_mask=None, position_bias=None, past_key_value=None, use_cache=False):
        normed_hidden_states = self.layer_norm(hidden_states)
        attention_output = self.SelfAttention(normed_hidden_states, mask=attention_mask, position_bias=position_bias,
                                              past_key_value=past_key_value, use_cache=use_cache)
        hidden_states = hidden_states + self.dropout(attention_output[0])
        return (hidden_states,) + attention_output[1:]


class T5LayerCrossAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.EncDecAttention = T5Attention(config, has_relative_attention_bias=False)
        self.layer_norm = T5LayerNorm(config.d_model, eps=config.layer_norm_epsilon)
        self.dropout = nn.Dropout(config.dropout_rate)

    def forward(self, hidden_states, key_value_states, attention_mask=None, position_bias=None, past_key_value=None,
                use_cache=False, query_length=None):
        normed_hidden_states = self.layer_norm(hidden_states)
        attention_output = self.EncDecAttention(normed_hidden_states, mask=attention_mask,
                                                key_value_states=key_value_states, position_bias=position_bias,
                                                past_key_value=past_key_value, use_cache=use_cache,
                                                query_length=query_length)
        layer_output = hidden_states + self.dropout(attention_output[0])
        return (layer_output,) + attention_output[1:]


class T5Block(nn.Module):
    def __init__(self, config, has_relative_attention_bias=False):
        super().__init__()
        self.is_decoder = config.is_decoder
        self.layer = nn.ModuleList()
        self.layer.append(T5LayerSelfAttention(config, has_relative_attention_bias=has_relative_attention_bias))
        if self.is_decoder:
            self.layer.append(T5LayerCrossAttention(config))
        self.layer.append(T5LayerFF(config))

    def forward(self, hidden_states, attention_mask=None, position_bias=None, encoder_hidden_states=None,
                encoder_attention_mask=None, encoder_decoder_position_bias=None, past_key_value=None,
                use_cache=False):
        if past_key_value is not None:
            self_attn_past_key_value, cross_attn_past_key_value = past_key_value[:2], past_key_value[2:]
        else:
            self_attn_past_key_value, cross_attn_past_key_value = None, None
        self_attention_outputs = self.layer[0](hidden_states, attention_mask=attention_mask,
                                               position_bias=position_bias,
                                               past_key_value=self_attn_past_key_value, use_cache=use_cache)
        hidden_states, present_key_value_state = self_attention_outputs[:2]
        attention_outputs = self_attention_outputs[2:]  # relative position weights
        if self.is_decoder and encoder_hidden_states is not None:
            query_length = present_key_value_state[0].shape[2] if present_key_value_state is not None else None
            cross_attention_outputs = self.layer[1](hidden_states, key_value_states=encoder_hidden_states,
                                                    attention_mask=encoder_attention_mask,
                                                    position_bias=encoder_decoder_position_bias,
                                                    past_key_value=cross_attn_past_key_value,
                                                    query_length=query_length, use_cache=use_cache)
            hidden_states = cross_attention_outputs[0]
            if present_key_value_state is not None:
                present_key_value_state = present_key_value_state + cross_attention_outputs[1]
            attention_outputs = attention_outputs + cross_attention_outputs[2:]
        hidden_states = self.layer[-1](hidden_states)
        return (hidden_states,) + (present_key_value_state,) + attention_outputs


class T5Stack(nn.Module):
    def __init__(self, config, embed_tokens=None):
        super().__init__()
        self.embed_tokens = embed_tokens
        self.is_decoder = config.is_decoder
        self.block = nn.ModuleList([T5Block(config, has_relative_attention_bias=bool(i == 0))
                                    for i in range(config.num_layers)])
        self.final_layer_norm = T5LayerNorm(config.d_model, eps=config.layer_norm_epsilon)
        self.dropout = nn.Dropout(config.dropout_rate)

    def get_extended_attention_mask(self, attention_mask, dtype):
        if attention_mask.dim() == 3:
            extended = attention_mask[:, None, :, :]
        else:
            extended = attention_mask[:, None, None, :]
        extended = extended.to(dtype=dtype)
        return (1.0 - extended) * torch.finfo(dtype).min

    def forward(self, input_ids, attention_mask=None, encoder_hidden_states=None, encoder_attention_mask=None,
                past_key_values=None, use_cache=False):
        batch_size, seq_length = input_ids.size()
        inputs_embeds = self.embed_tokens(input_ids)
        past_length = past_key_values[0][0].shape[2] if past_key_values is not None else 0
        mask_seq_length = past_length + seq_length
        if attention_mask is None:
            attention_mask = torch.ones(batch_size, mask_seq_length, device=inputs_embeds.device)
        if past_key_values is None:
            past_key_values = [None] * len(self.block)
        if self.is_decoder:   # causal: (batch, query, key)
            seq_ids = torch.arange(mask_seq_length, device=inputs_embeds.device)
            causal_mask = seq_ids[None, None, :].repeat(batch_size, mask_seq_length, 1) <= seq_ids[None, :, None]
            causal_mask = causal_mask.to(attention_mask.dtype)
            extended_attention_mask = causal_mask[:, -seq_length:, :] * attention_mask[:, None, :]
            extended_attention_mask = self.get_extended_attention_mask(extended_attention_mask, inputs_embeds.dtype)
        else:
            extended_attention_mask = self.get_extended_attention_mask(attention_mask, inputs_embeds.dtype)
        if self.is_decoder and encoder_hidden_states is not None:
            if encoder_attention_mask is None:
                encoder_attention_mask = torch.ones(encoder_hidden_states.shape[:2], device=inputs_embeds.device)
            encoder_extended_attention_mask = self.get_extended_attention_mask(encoder_attention_mask,
                                                                               inputs_embeds.dtype)
        else:
            encoder_extended_attention_mask = None
        present_key_value_states = () if use_cache else None
        position_bias = None
        encoder_decoder_position_bias = None
        hidden_states = self.dropout(inputs_embeds)
        for i, (layer_module, past_key_value) in enumerate(zip(self.block, past_key_values)):
            layer_outputs = layer_module(hidden_states, attention_mask=extended_attention_mask,
                                         position_bias=position_bias, encoder_hidden_states=encoder_hidden_states,
                                         encoder_attention_mask=encoder_extended_attention_mask,
                                         encoder_decoder_position_bias=encoder_decoder_position_bias,
                                         past_key_value=past_key_value, use_cache=use_cache)
            hidden_states, present_key_value_state = layer_outputs[:2]
            # the first layer computes the position bias; the others share it
            position_bias = layer_outputs[2]
            if self.is_decoder and encoder_hidden_states is not None:
                encoder_decoder_position_bias = layer_outputs[3]
            if use_cache:
                present_key_value_states = present_key_value_states + (present_key_value_state,)
        hidden_states = self.final_layer_norm(hidden_states)
        return self.dropout(hidden_states), present_key_value_states


class T5ForConditionalGeneration(nn.Module):
    def __init__(self, config: T5Config):
        super().__init__()
        self.config = config
        self.model_dim = config.d_model
        self.shared = nn.Embedding(config.vocab_size, config.d_model)
        encoder_config = T5Config(**{**config.__dict__, "is_decoder": False})
        self.encoder = T5Stack(encoder_config, self.shared)
        decoder_config = T5Config(**{**config.__dict__, "is_decoder": True, "num_layers": config.num_decoder_layers})
        self.decoder = T5Stack(decoder_config, self.shared)
        self.lm_head = nn.Linear(config.d_model, config.vocab_size, bias=False)
        self.lm_head.weight = self.shared.weight    # tie_word_embeddings

    def _shift_right(self, input_ids):
        decoder_start_token_id = self.config.decoder_start_token_id
        pad_token_id = self.config.pad_token_id
        shifted_input_ids = input_ids.new_zeros(input_ids.shape)
        shifted_input_ids[..., 1:] = input_ids[..., :-1].clone()
        shifted_input_ids[..., 0] = decoder_start_token_id
        # replace possible -100 values in labels by `pad_token_id`
        shifted_input_ids.masked_fill_(shifted_input_ids == -100, pad_token_id)
        return shifted_input_ids

    def forward(self, input_ids=None, attention_mask=None, decoder_input_ids=None, labels=None,
                encoder_outputs=None, past_key_values=None, use_cache=False):
        if encoder_outputs is None:
            encoder_outputs = self.encoder(input_ids, attention_mask=attention_mask)[0]
        if labels is not None and decoder_input_ids is None:
            decoder_input_ids = self._shift_right(labels)
        sequence_output, presents = self.decoder(decoder_input_ids, encoder_hidden_states=encoder_outputs,
                                                 encoder_attention_mask=attention_mask,
                                                 past_key_values=past_key_values, use_cache=use_cache)
        # rescale output before projecting on vocab (tied embeddings)
        sequence_output = sequence_output * (self.model_dim**-0.5)
        lm_logits = self.lm_head(sequence_output)
        loss = None
        if labels is not None:
            loss_fct = CrossEntropyLoss(ignore_index=-100)
            loss = loss_fct(lm_logits.view(-1, lm_logits.size(-1)), labels.view(-1))
        return loss, lm_logits, presents, encoder_outputs


@torch.no_grad()
def greedy_generate(model, input_ids, attention_mask, max_new_tokens, use_cache=True):
    enc = model.encoder(input_ids, attention_mask=attention_mask)[0]
    out = torch.full((input_ids.shape[0], 1), model.config.decoder_start_token_id, dtype=torch.long)
    past = None
    for _ in range(max_new_tokens):
        step_input = out[:, -1:] if (use_cache and past is not None) else out
        _, logits, presents, _ = model(attention_mask=attention_mask, decoder_input_ids=step_input,
                                       encoder_outputs=enc, past_key_values=past if use_cache else None,
                                       use_cache=use_cache)
        past = presents
        out = torch.cat([out, logits[:, -1].argmax(-1, keepdim=True)], dim=1)
    return out


# ================================================================ the checks
def t5_bucket(rel, bidirectional, num_buckets, max_distance):
    ret = 0
    if bidirectional:
        num_buckets //= 2
        ret += num_buckets if rel > 0 else 0
        rel = abs(rel)
    else:
        rel = -min(rel, 0)
    max_exact = num_buckets // 2
    if rel < max_exact:
        return ret + rel
    return ret + min(num_buckets - 1, max_exact + int(math.log(rel / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)))


rel = torch.arange(-150, 151)
for bidirectional in (True, False):
    got = T5Attention._relative_position_bucket(rel, bidirectional=bidirectional, num_buckets=32, max_distance=128)
    assert got.tolist() == [t5_bucket(r, bidirectional, 32, 128) for r in range(-150, 151)], bidirectional

config = T5Config(vocab_size=20, d_model=32, d_kv=8, d_ff=48, num_layers=2, num_decoder_layers=2, num_heads=4,
                  relative_attention_num_buckets=8, relative_attention_max_distance=20, dropout_rate=0.0)
torch.manual_seed(0)
model = T5ForConditionalGeneration(config)
with torch.no_grad():
    model.shared.weight.normal_(0, 1.0)
assert hasattr(model.encoder.block[0].layer[0].SelfAttention, "relative_attention_bias")
assert not hasattr(model.encoder.block[1].layer[0].SelfAttention, "relative_attention_bias")
assert model.lm_head.weight is model.shared.weight and model.encoder.embed_tokens is model.decoder.embed_tokens
bias = model.encoder.block[0].layer[0].SelfAttention.compute_bias(5, 7)
assert bias.shape == (1, 4, 5, 7)

# _shift_right: start token first, -100 becomes padding
labels = torch.tensor([[5, 6, 7, -100], [8, 9, -100, -100]])
assert model._shift_right(labels).tolist() == [[0, 5, 6, 7], [0, 8, 9, 0]]

# padding: masked positions change nothing at the real ones
model.eval()
ids = torch.tensor([[4, 5, 6, 7, 1, 0, 0], [9, 8, 7, 6, 5, 4, 1]])
mask = (ids != 0).long()
with torch.no_grad():
    enc = model.encoder(ids, attention_mask=mask)[0]
    enc_short = model.encoder(ids[:1, :5], attention_mask=mask[:1, :5])[0]
assert torch.allclose(enc[0, :5], enc_short[0], atol=1e-5)
ln = T5LayerNorm(32)
x = torch.randn(3, 32)
assert torch.allclose(ln(x), x / x.pow(2).mean(-1, keepdim=True).add(1e-6).sqrt(), atol=1e-5)

# the loss ignores -100 labels
loss, logits, _, _ = model(input_ids=ids, attention_mask=mask, labels=labels.new_tensor([[5, 6, 7, 1, -100, -100, -100],
                                                                                         [8, 9, 1, -100, -100, -100, -100]]))
assert logits.shape == (2, 7, 20) and loss.dim() == 0
keep = torch.tensor([[5, 6, 7, 1, -100, -100, -100], [8, 9, 1, -100, -100, -100, -100]]) != -100
manual = F.cross_entropy(logits[keep], torch.tensor([5, 6, 7, 1, 8, 9, 1]))
assert torch.allclose(loss, manual, atol=1e-5)

# the decoder cache gives the same greedy tokens as recomputing
with_cache = greedy_generate(model, ids, mask, max_new_tokens=6, use_cache=True)
without = greedy_generate(model, ids, mask, max_new_tokens=6, use_cache=False)
assert with_cache.shape == (2, 7) and torch.equal(with_cache, without), (with_cache, without)

# a few steps of training on a copy task
model.train()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
src = torch.tensor([[3, 4, 5, 6, 1], [7, 8, 9, 10, 1], [11, 12, 13, 14, 1], [5, 9, 13, 4, 1]])
losses = []
for step in range(30):
    loss, _, _, _ = model(input_ids=src, attention_mask=torch.ones_like(src), labels=src)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
assert model.decoder.block[0].layer[0].SelfAttention.relative_attention_bias.weight.grad is not None
assert losses[-1] < 0.5 * losses[0], losses
model.eval()
copied = greedy_generate(model, src, torch.ones_like(src), max_new_tokens=5)
print("t5 ok", [round(v, 3) for v in losses[::10]], copied[0].tolist())
