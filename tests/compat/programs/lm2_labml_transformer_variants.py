"""labml.ai's annotated paper implementations (labml_nn/transformers: mha.py, xl/relative_mha.py,
alibi, rope, fnet, switch, feed_forward.py, utils.py, labml_nn/utils clone_module_list) at toy
size, with the labml tracker / logger calls dropped: sequence-first MultiHeadAttention through
torch.einsum('ibhd,jbhd->ijbh', ...) and nn.Softmax(dim=1), the subsequent_mask
(torch.tril(...).to(torch.bool).unsqueeze(-1)); Transformer-XL's shift_right (x.new_zeros,
torch.cat, view to a skewed shape, x_padded[:-1].view_as(x)) and RelativeMultiHeadAttention
with key position embeddings sliced around P = 2 ** 12; ALiBi's get_slopes (torch.pow of a float
by an arange, the non-power-of-two heads) and get_alibi_biases (mask.cumsum(dim=-1) under
@torch.no_grad()), scores += biases in place; RoPE with cached cos/sin of shape (seq, 1, 1, d)
on a fraction of each head; FNet's token mixing with torch.fft.fft over two dims and
torch.real; the Switch Transformer: SwitchFeedForward (torch.max routing,
torch.eq(routes, i).nonzero(as_tuple=True)[0], capacity and token dropping with torch.randperm,
x.new_tensor counts, index assignment final_output[indexes, :] = expert(x[indexes, :]),
route_prob_max / route_prob_max.detach()), experts cloned with copy.deepcopy, the
load-balancing loss of the experiment (n_experts * (route_frac * route_prob).sum()) and
clip_grad_norm_ while training a small autoregressive model."""
import copy
import math
from typing import List, Optional

import torch
from torch import nn


def clone_module_list(module: nn.Module, n: int) -> nn.ModuleList:
    return nn.ModuleList([copy.deepcopy(module) for _ in range(n)])


def subsequent_mask(seq_len):
    return torch.tril(torch.ones(seq_len, seq_len)).to(torch.bool).unsqueeze(-1)


class FeedForward(nn.Module):
    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.1, activation=nn.ReLU(), is_gated: bool = False,
                 bias1: bool = True, bias2: bool = True, bias_gate: bool = True):
        super().__init__()
        self.layer1 = nn.Linear(d_model, d_ff, bias=bias1)
        self.layer2 = nn.Linear(d_ff, d_model, bias=bias2)
        self.dropout = nn.Dropout(dropout)
        self.activation = activation
        self.is_gated = is_gated
        if is_gated:
            self.linear_v = nn.Linear(d_model, d_ff, bias=bias_gate)

    def forward(self, x: torch.Tensor):
        g = self.activation(self.layer1(x))
        x = g * self.linear_v(x) if self.is_gated else g
        x = self.dropout(x)
        return self.layer2(x)


class PrepareForMultiHeadAttention(nn.Module):
    def __init__(self, d_model: int, heads: int, d_k: int, bias: bool):
        super().__init__()
        self.linear = nn.Linear(d_model, heads * d_k, bias=bias)
        self.heads = heads
        self.d_k = d_k

    def forward(self, x: torch.Tensor):
        head_shape = x.shape[:-1]
        x = self.linear(x)
        return x.view(*head_shape, self.heads, self.d_k)


class MultiHeadAttention(nn.Module):
    def __init__(self, heads: int, d_model: int, dropout_prob: float = 0.1, bias: bool = True):
        super().__init__()
        self.d_k = d_model // heads
        self.heads = heads
        self.query = PrepareForMultiHeadAttention(d_model, heads, self.d_k, bias=bias)
        self.key = PrepareForMultiHeadAttention(d_model, heads, self.d_k, bias=bias)
        self.value = PrepareForMultiHeadAttention(d_model, heads, self.d_k, bias=True)
        self.softmax = nn.Softmax(dim=1)
        self.output = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout_prob)
        self.scale = 1 / math.sqrt(self.d_k)
        self.attn = None

    def get_scores(self, query: torch.Tensor, key: torch.Tensor):
        return torch.einsum('ibhd,jbhd->ijbh', query, key)

    def prepare_mask(self, mask: torch.Tensor, query_shape: List[int], key_shape: List[int]):
        assert mask.shape[0] == 1 or mask.shape[0] == query_shape[0]
        assert mask.shape[1] == key_shape[0]
        assert mask.shape[2] == 1 or mask.shape[2] == query_shape[1]
        return mask.unsqueeze(-1)

    def forward(self, *, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                mask: Optional[torch.Tensor] = None):
        seq_len, batch_size, _ = query.shape
        if mask is not None:
            mask = self.prepare_mask(mask, query.shape, key.shape)
        query = self.query(query)
        key = self.key(key)
        value = self.value(value)
        scores = self.get_scores(query, key)
        scores *= self.scale
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float('-inf'))
        attn = self.softmax(scores)
        attn = self.dropout(attn)
        x = torch.einsum("ijbh,jbhd->ibhd", attn, value)
        self.attn = attn.detach()
        x = x.reshape(seq_len, batch_size, -1)
        return self.output(x)


# ---------------------------------------------------------------- Transformer-XL
def shift_right(x: torch.Tensor):
    zero_pad = x.new_zeros(x.shape[0], 1, *x.shape[2:])
    x_padded = torch.cat([x, zero_pad], dim=1)
    x_padded = x_padded.view(x.shape[1] + 1, x.shape[0], *x.shape[2:])
    return x_padded[:-1].view_as(x)


class RelativeMultiHeadAttention(MultiHeadAttention):
    def __init__(self, heads: int, d_model: int, dropout_prob: float = 0.1):
        super().__init__(heads, d_model, dropout_prob, bias=False)
        self.P = 2 ** 12
        self.key_pos_embeddings = nn.Parameter(torch.zeros((self.P * 2, heads, self.d_k)), requires_grad=True)
        self.key_pos_bias = nn.Parameter(torch.zeros((self.P * 2, heads)), requires_grad=True)
        self.query_pos_bias = nn.Parameter(torch.zeros((heads, self.d_k)), requires_grad=True)

    def get_scores(self, query: torch.Tensor, key: torch.Tensor):
        key_pos_emb = self.key_pos_embeddings[self.P - key.shape[0]:self.P + query.shape[0]]
        key_pos_bias = self.key_pos_bias[self.P - key.shape[0]:self.P + query.shape[0]]
        query_pos_bias = self.query_pos_bias[None, None, :, :]
        ac = torch.einsum('ibhd,jbhd->ijbh', query + query_pos_bias, key)
        b = torch.einsum('ibhd,jhd->ijbh', query, key_pos_emb)
        d = key_pos_bias[None, :, None, :]
        bd = shift_right(b + d)
        bd = bd[:, -key.shape[0]:]
        return ac + bd


# ---------------------------------------------------------------- ALiBi
def get_slopes(n_heads: int):
    n = 2 ** math.floor(math.log2(n_heads))
    m_0 = 2.0 ** (-8.0 / n)
    m = torch.pow(m_0, torch.arange(1, 1 + n))
    if n < n_heads:
        m_hat_0 = 2.0 ** (-4.0 / n)
        m_hat = torch.pow(m_hat_0, torch.arange(1, 1 + 2 * (n_heads - n), 2))
        m = torch.cat([m, m_hat])
    return m


@torch.no_grad()
def get_alibi_biases(n_heads: int, mask: torch.Tensor):
    m = get_slopes(n_heads).to(mask.device)
    distance = mask.cumsum(dim=-1)
    return distance[:, :, None] * m[None, None, :]


class AlibiMultiHeadAttention(MultiHeadAttention):
    def __init__(self, heads: int, d_model: int, dropout_prob: float = 0.1):
        super().__init__(heads, d_model, dropout_prob)
        self.alibi_biases = None

    def forward(self, *, query, key, value, mask=None):
        assert mask is not None
        assert mask.shape[0] == mask.shape[1] and mask.shape[2] == 1
        seq_len, batch_size, _ = query.shape
        mask = self.prepare_mask(mask, query.shape, key.shape)
        query = self.query(query)
        key = self.key(key)
        value = self.value(value)
        scores = self.get_scores(query, key)
        scores *= self.scale
        if self.alibi_biases is None or self.alibi_biases.shape[1] < seq_len:
            self.alibi_biases = get_alibi_biases(scores.shape[-1], mask[:, :, 0, 0])
        scores += self.alibi_biases[:seq_len, :seq_len, None, :]
        scores = scores.masked_fill(mask == 0, float('-inf'))
        attn = self.softmax(scores)
        attn = self.dropout(attn)
        x = torch.einsum("ijbh,jbhd->ibhd", attn, value)
        x = x.reshape(seq_len, batch_size, -1)
        return self.output(x)


# ---------------------------------------------------------------- RoPE
class RotaryPositionalEmbeddings(nn.Module):
    def __init__(self, d: int, base: int = 10_000):
        super().__init__()
        self.base = base
        self.d = d
        self.cos_cached = None
        self.sin_cached = None

    def _build_cache(self, x: torch.Tensor):
        if self.cos_cached is not None and x.shape[0] <= self.cos_cached.shape[0]:
            return
        seq_len = x.shape[0]
        theta = 1. / (self.base ** (torch.arange(0, self.d, 2).float() / self.d)).to(x.device)
        seq_idx = torch.arange(seq_len, device=x.device).float().to(x.device)
        idx_theta = torch.einsum('n,d->nd', seq_idx, theta)
        idx_theta2 = torch.cat([idx_theta, idx_theta], dim=1)
        self.cos_cached = idx_theta2.cos()[:, None, None, :]
        self.sin_cached = idx_theta2.sin()[:, None, None, :]

    def _neg_half(self, x: torch.Tensor):
        d_2 = self.d // 2
        return torch.cat([-x[:, :, :, d_2:], x[:, :, :, :d_2]], dim=-1)

    def forward(self, x: torch.Tensor):
        self._build_cache(x)
        seq_len = x.shape[0]
        x_rope, x_pass = x[..., :self.d], x[..., self.d:]
        neg_half_x = self._neg_half(x_rope)
        x_rope = (x_rope * self.cos_cached[:seq_len]) + (neg_half_x * self.sin_cached[:seq_len])
        return torch.cat((x_rope, x_pass), dim=-1)


class RotaryPEMultiHeadAttention(MultiHeadAttention):
    def __init__(self, heads: int, d_model: int, rope_percentage: float = 0.5, dropout_prob: float = 0.0):
        super().__init__(heads, d_model, dropout_prob)
        d_rope = int(self.d_k * rope_percentage)
        self.query_rotary_pe = RotaryPositionalEmbeddings(d_rope)
        self.key_rotary_pe = RotaryPositionalEmbeddings(d_rope)

    def get_scores(self, query: torch.Tensor, key: torch.Tensor):
        return torch.einsum('ibhd,jbhd->ijbh', self.query_rotary_pe(query), self.key_rotary_pe(key))


# ---------------------------------------------------------------- FNet
class FNetMix(nn.Module):
    def forward(self, query, key, value, mask=None):
        assert query is key and key is value
        assert mask is None
        x = query
        fft_hidden = torch.fft.fft(x, dim=2)
        fft_seq = torch.fft.fft(fft_hidden, dim=0)
        return torch.real(fft_seq)


# ---------------------------------------------------------------- Switch Transformer
class SwitchFeedForward(nn.Module):
    def __init__(self, *, capacity_factor: float, drop_tokens: bool, is_scale_prob: bool, n_experts: int,
                 expert: FeedForward, d_model: int):
        super().__init__()
        self.capacity_factor = capacity_factor
        self.is_scale_prob = is_scale_prob
        self.n_experts = n_experts
        self.drop_tokens = drop_tokens
        self.experts = clone_module_list(expert, n_experts)
        self.switch = nn.Linear(d_model, n_experts)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x: torch.Tensor):
        seq_len, batch_size, d_model = x.shape
        x = x.view(-1, d_model)
        route_prob = self.softmax(self.switch(x))
        route_prob_max, routes = torch.max(route_prob, dim=-1)
        indexes_list = [torch.eq(routes, i).nonzero(as_tuple=True)[0] for i in range(self.n_experts)]
        final_output = x.new_zeros(x.shape)
        capacity = int(self.capacity_factor * len(x) / self.n_experts)
        counts = x.new_tensor([len(indexes_list[i]) for i in range(self.n_experts)])
        dropped = []
        if self.drop_tokens:
            for i in range(self.n_experts):
                if len(indexes_list[i]) <= capacity:
                    continue
                indexes_list[i] = indexes_list[i][torch.randperm(len(indexes_list[i]))]
                dropped.append(indexes_list[i][capacity:])
                indexes_list[i] = indexes_list[i][:capacity]
        expert_output = [self.experts[i](x[indexes_list[i], :]) for i in range(self.n_experts)]
        for i in range(self.n_experts):
            final_output[indexes_list[i], :] = expert_output[i]
        if dropped:
            dropped = torch.cat(dropped)
            final_output[dropped, :] = x[dropped, :]
        if self.is_scale_prob:
            final_output = final_output * route_prob_max.view(-1, 1)
        else:
            final_output = final_output * (route_prob_max / route_prob_max.detach()).view(-1, 1)
        final_output = final_output.view(seq_len, batch_size, d_model)
        return final_output, counts, route_prob.sum(0), len(dropped), route_prob_max


class SwitchTransformerLayer(nn.Module):
    def __init__(self, *, d_model: int, attn: MultiHeadAttention, feed_forward: SwitchFeedForward,
                 dropout_prob: float):
        super().__init__()
        self.size = d_model
        self.attn = attn
        self.feed_forward = feed_forward
        self.dropout = nn.Dropout(dropout_prob)
        self.norm_self_attn = nn.LayerNorm([d_model])
        self.norm_ff = nn.LayerNorm([d_model])

    def forward(self, *, x: torch.Tensor, mask: torch.Tensor):
        z = self.norm_self_attn(x)
        self_attn = self.attn(query=z, key=z, value=z, mask=mask)
        x = x + self.dropout(self_attn)
        z = self.norm_ff(x)
        ff, counts, route_prob, n_dropped, route_prob_max = self.feed_forward(z)
        x = x + self.dropout(ff)
        return x, counts, route_prob, n_dropped, route_prob_max


class SwitchTransformer(nn.Module):
    def __init__(self, layer: SwitchTransformerLayer, n_layers: int):
        super().__init__()
        self.layers = clone_module_list(layer, n_layers)
        self.norm = nn.LayerNorm([layer.size])

    def forward(self, x: torch.Tensor, mask: torch.Tensor):
        counts, route_prob, n_dropped, route_prob_max = [], [], [], []
        for layer in self.layers:
            x, f, p, n_d, p_max = layer(x=x, mask=mask)
            counts.append(f)
            route_prob.append(p)
            n_dropped.append(n_d)
            route_prob_max.append(p_max)
        x = self.norm(x)
        return x, torch.stack(counts), torch.stack(route_prob), n_dropped, torch.stack(route_prob_max)


class AutoregressiveModel(nn.Module):
    def __init__(self, n_vocab: int, d_model: int, transformer: nn.Module):
        super().__init__()
        self.src_embed = nn.Embedding(n_vocab, d_model)
        self.transformer = transformer
        self.generator = nn.Linear(d_model, n_vocab)
        self.mask = None

    def forward(self, x: torch.Tensor):
        if self.mask is None or self.mask.size(0) != len(x):
            self.mask = subsequent_mask(len(x)).to(x.device)
        x = self.src_embed(x)
        res, counts, route_prob, n_dropped, route_prob_max = self.transformer(x, self.mask)
        res = self.generator(res)
        return res, counts, route_prob, n_dropped, route_prob_max


# ================================================================ the checks
torch.manual_seed(0)
seq_len, batch, d_model, heads = 6, 2, 16, 4

# shift_right: the example of _test_shift_right
assert shift_right(torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])).tolist() == [[1, 2, 3], [0, 4, 5], [6, 0, 7]]

# plain attention: a causal mask keeps the past from seeing the future
mask = subsequent_mask(seq_len)
assert mask.shape == (seq_len, seq_len, 1) and mask.dtype == torch.bool
mha = MultiHeadAttention(heads, d_model, dropout_prob=0.0)
x = torch.randn(seq_len, batch, d_model)
y = mha(query=x, key=x, value=x, mask=mask)
x2 = x.clone()
x2[-1] += 1.0
y2 = mha(query=x2, key=x2, value=x2, mask=mask)
assert y.shape == (seq_len, batch, d_model) and torch.allclose(y[:-1], y2[:-1], atol=1e-6)
assert torch.allclose(mha.attn.sum(dim=1), torch.ones(seq_len, batch, heads), atol=1e-6)  # softmax over keys (dim 1)

# Transformer-XL: with zero position terms it is plain attention; the relative terms make
# the score of (i, j) depend on i - j only
xl = RelativeMultiHeadAttention(heads, d_model, dropout_prob=0.0)
for name in ("query", "key", "value"):
    getattr(xl, name).linear.weight.data.copy_(getattr(mha, name).linear.weight.data)
xl.value.linear.bias.data.copy_(mha.value.linear.bias.data)
xl.output.load_state_dict(mha.output.state_dict())
mha_nobias = MultiHeadAttention(heads, d_model, dropout_prob=0.0, bias=False)
mha_nobias.load_state_dict({k: v for k, v in mha.state_dict().items()
                            if not (k.startswith(("query", "key")) and k.endswith("bias"))})
assert torch.allclose(xl(query=x, key=x, value=x, mask=mask), mha_nobias(query=x, key=x, value=x, mask=mask), atol=1e-5)
with torch.no_grad():
    xl.key_pos_embeddings.normal_()
    xl.key_pos_bias.normal_()
q = torch.zeros(seq_len, 1, heads, d_model // heads)
q[..., 0] = 1.0
scores = xl.get_scores(q, torch.zeros_like(q))[:, :, 0, 0]      # only the position terms
for i in range(1, seq_len):
    for j in range(1, i + 1):
        assert torch.allclose(scores[i, j], scores[i - 1, j - 1]), (i, j)
assert xl(query=x, key=x, value=x, mask=mask).shape == (seq_len, batch, d_model)

# ALiBi: the slopes of the paper, also for a number of heads that is not a power of two
assert torch.allclose(get_slopes(8), torch.tensor([2.0 ** -i for i in range(1, 9)]))
s12 = get_slopes(12)
assert s12.shape == (12,) and torch.allclose(s12[8:], torch.tensor([2.0 ** (-0.5 * i) for i in (1, 3, 5, 7)]))
biases = get_alibi_biases(4, mask[:, :, 0])
assert biases.shape == (seq_len, seq_len, 4) and not biases.requires_grad
assert torch.allclose(biases[5, :, 0], torch.tensor([1., 2, 3, 4, 5, 6]) * 0.25)   # 4 heads: 2 ** -2 first
alibi = AlibiMultiHeadAttention(heads, d_model, dropout_prob=0.0)
assert alibi(query=x, key=x, value=x, mask=mask).shape == (seq_len, batch, d_model)
assert alibi.alibi_biases.shape == (seq_len, seq_len, heads)

# RoPE: on identical tokens, scores depend on the relative position only
rope = RotaryPEMultiHeadAttention(heads, d_model, rope_percentage=0.5)
same = torch.randn(1, 1, heads, d_model // heads).repeat(seq_len, 1, 1, 1)
sc = rope.get_scores(same, same)[:, :, 0, 0]
assert rope.query_rotary_pe.cos_cached.shape == (seq_len, 1, 1, 2)
for i in range(1, seq_len):
    assert torch.allclose(sc[i, 1:i + 1], sc[i - 1, :i], atol=1e-5)
assert rope(query=x, key=x, value=x, mask=mask).shape == (seq_len, batch, d_model)

# FNet: two 1-d FFTs, the real part: a real 2-d DFT over the sequence and hidden dims
# (labkit.fft arrives with the complex-dtype work: until it is on main, labkit skips this part)
if hasattr(torch, "fft"):
    mixed = FNetMix()(x, x, x)
    assert mixed.dtype == torch.float32 and mixed.shape == x.shape
    ref = torch.fft.fftn(x, dim=(0, 2)).real
    assert torch.allclose(mixed, ref, atol=1e-4)
    assert torch.allclose(mixed[0, :, 0], x.sum(dim=(0, 2)), atol=1e-4)    # the DC term

# the Switch feed-forward: every token goes to one expert, or is dropped past the capacity
ff = SwitchFeedForward(capacity_factor=1.0, drop_tokens=True, is_scale_prob=True, n_experts=4,
                       expert=FeedForward(d_model, 32, dropout=0.0), d_model=d_model)
assert ff.experts[0].layer1.weight is not ff.experts[1].layer1.weight
assert torch.equal(ff.experts[0].layer1.weight, ff.experts[1].layer1.weight)    # deep copies
with torch.no_grad():
    ff.switch.weight.mul_(10)                           # an unbalanced router drops tokens
    out, counts, route_prob_sum, n_dropped, route_prob_max = ff(x)
assert counts.sum().item() == seq_len * batch and counts.dtype == torch.float32
assert torch.allclose(route_prob_sum.sum(), torch.tensor(float(seq_len * batch)), atol=1e-4)
capacity = int(1.0 * seq_len * batch / 4)
assert n_dropped == int(sum(max(0, c - capacity) for c in counts.tolist()))
flat, out_flat = x.view(-1, d_model), out.view(-1, d_model)
passed = [(out_flat[t] / route_prob_max[t] - flat[t]).abs().max() < 1e-4 for t in range(len(flat))]
assert sum(passed) == n_dropped, (sum(passed), n_dropped)        # dropped tokens pass through

# train a small switch-transformer language model with the load-balancing loss
torch.manual_seed(1)
n_tokens, n_experts = 12, 4
model = AutoregressiveModel(n_tokens, d_model, SwitchTransformer(
    SwitchTransformerLayer(d_model=d_model, attn=MultiHeadAttention(heads, d_model, 0.0),
                           feed_forward=SwitchFeedForward(capacity_factor=1.2, drop_tokens=True, is_scale_prob=True,
                                                          n_experts=n_experts,
                                                          expert=FeedForward(d_model, 32, 0.0), d_model=d_model),
                           dropout_prob=0.0), 2))
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
loss_func = nn.CrossEntropyLoss()
text = torch.tensor([i % n_tokens for i in range(0, 3 * 40, 3)])
losses, lb_losses = [], []
for step in range(30):
    starts = torch.randint(0, len(text) - 9, (4,))
    seq = torch.stack([text[s:s + 9] for s in starts], dim=1)   # (seq, batch): sequence first
    data, target = seq[:-1], seq[1:]
    output, counts, route_prob, n_dropped, route_prob_max = model(data)
    cross_entropy_loss = loss_func(output.view(-1, n_tokens), target.reshape(-1))
    total = counts.sum(dim=-1, keepdims=True)
    route_frac = counts / total
    route_prob = route_prob / total
    load_balancing_loss = n_experts * (route_frac * route_prob).sum()
    loss = cross_entropy_loss + 0.01 * load_balancing_loss
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    optimizer.step()
    losses.append(cross_entropy_loss.item())
    lb_losses.append(load_balancing_loss.item())
assert counts.shape == (2, n_experts) and route_prob_max.shape == (2, 8 * 4) and len(n_dropped) == 2
assert all(lb >= 2.0 - 1e-4 for lb in lb_losses)        # >= n_layers: 1 per layer at best balance
assert model.transformer.layers[0].feed_forward.switch.weight.grad is not None
assert sum(losses[-5:]) < sum(losses[:5]), losses
print("labml ok", round(losses[0], 3), round(losses[-1], 3), round(lb_losses[-1], 3))
