"""labml.ai's annotated implementations of three attention alternatives for autoregressive
language models (labml_nn/transformers/gmlp, aft, primer_ez, with mha.py and utils.py), at toy
size, sequence first, each trained a few steps behind a causal mask: gMLP's GMLPBlock and
SpacialGatingUnit (torch.chunk, a (seq, seq) weight nn.Parameter(torch.zeros(...).uniform_()),
masked by the causal mask, einsum('ij,jbd->ibd')), the Attention Free Transformer's AFTLocal
(a bool nn.Parameter(..., requires_grad=False) local window from torch.tril / torch.triu with
diagonals, pos_bias.masked_fill_(~mask, float('-inf')), key.max(dim=0, keepdims=True)[0],
exp-normalised einsum('ijb,jbd->ibd') numerator / denominator, nn.Sigmoid gating), and
Primer-EZ (SquaredReLU, SpatialDepthWiseConvolution: a grouped nn.Conv1d with padding
kernel_size - 1 trimmed to stay causal, x.permute(1, 2, 3, 0).view(...); MultiDConvHeadAttention
wrapping the projections in nn.Sequential(self.query, ...)). Each model must not see the future:
changing the last token changes no earlier output."""
import math
from typing import List, Optional

import torch
from torch import nn


def subsequent_mask(seq_len):
    return torch.tril(torch.ones(seq_len, seq_len)).to(torch.bool).unsqueeze(-1)


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

    def get_scores(self, query, key):
        return torch.einsum('ibhd,jbhd->ijbh', query, key)

    def prepare_mask(self, mask: torch.Tensor, query_shape: List[int], key_shape: List[int]):
        assert mask.shape[0] == 1 or mask.shape[0] == query_shape[0]
        assert mask.shape[1] == key_shape[0]
        assert mask.shape[2] == 1 or mask.shape[2] == query_shape[1]
        return mask.unsqueeze(-1)

    def forward(self, *, query, key, value, mask=None):
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
        attn = self.dropout(self.softmax(scores))
        x = torch.einsum("ijbh,jbhd->ibhd", attn, value)
        x = x.reshape(seq_len, batch_size, -1)
        return self.output(x)


# ---------------------------------------------------------------- gMLP
class SpacialGatingUnit(nn.Module):
    def __init__(self, d_z: int, seq_len: int):
        super().__init__()
        self.norm = nn.LayerNorm([d_z // 2])
        self.weight = nn.Parameter(torch.zeros(seq_len, seq_len).uniform_(-0.01, 0.01), requires_grad=True)
        self.bias = nn.Parameter(torch.ones(seq_len), requires_grad=True)

    def forward(self, z: torch.Tensor, mask: Optional[torch.Tensor] = None):
        seq_len = z.shape[0]
        z1, z2 = torch.chunk(z, 2, dim=-1)
        if mask is not None:
            assert mask.shape[0] == 1 or mask.shape[0] == seq_len
            assert mask.shape[1] == seq_len
            assert mask.shape[2] == 1
            mask = mask[:, :, 0]
        z2 = self.norm(z2)
        weight = self.weight[:seq_len, :seq_len]
        if mask is not None:
            weight = weight * mask
        z2 = torch.einsum('ij,jbd->ibd', weight, z2) + self.bias[:seq_len, None, None]
        return z1 * z2


class GMLPBlock(nn.Module):
    def __init__(self, d_model: int, d_ffn: int, seq_len: int):
        super().__init__()
        self.norm = nn.LayerNorm([d_model])
        self.activation = nn.GELU()
        self.proj1 = nn.Linear(d_model, d_ffn)
        self.sgu = SpacialGatingUnit(d_ffn, seq_len)
        self.proj2 = nn.Linear(d_ffn // 2, d_model)
        self.size = d_model

    def forward(self, *, x: torch.Tensor, mask: Optional[torch.Tensor] = None):
        shortcut = x
        x = self.norm(x)
        z = self.activation(self.proj1(x))
        z = self.sgu(z, mask)
        z = self.proj2(z)
        return z + shortcut


# ---------------------------------------------------------------- AFT
class AFTLocal(nn.Module):
    def __init__(self, d_model: int, seq_len: int, local_window_size: int, bias: bool = True):
        super().__init__()
        self.local_window_size = local_window_size
        self.query = nn.Linear(d_model, d_model, bias=bias)
        self.key = nn.Linear(d_model, d_model, bias=bias)
        self.value = nn.Linear(d_model, d_model, bias=bias)
        self.pos_bias = nn.Parameter(torch.zeros(seq_len, seq_len), requires_grad=True)
        self.local_mask = nn.Parameter(self.create_local_mask(seq_len, local_window_size), requires_grad=False)
        self.activation = nn.Sigmoid()
        self.output = nn.Linear(d_model, d_model)

    @staticmethod
    def create_local_mask(seq_len, local_window_size):
        local_mask = torch.ones(seq_len, seq_len, dtype=torch.bool)
        local_mask = torch.tril(local_mask, local_window_size - 1)
        local_mask = torch.triu(local_mask, -(local_window_size - 1))
        return local_mask

    def forward(self, *, query, key, value, mask=None):
        seq_len, _, _ = query.shape
        if mask is not None:
            assert mask.shape[0] == 1 or mask.shape[0] == query.shape[0]
            assert mask.shape[1] == key.shape[0]
            assert mask.shape[2] == 1 or mask.shape[2] == query.shape[1]
        query = self.query(query)
        key = self.key(key)
        value = self.value(value)
        pos_bias = self.pos_bias[:seq_len, :seq_len] * self.local_mask[:seq_len, :seq_len]
        pos_bias = pos_bias.unsqueeze(-1)
        pos_bias.masked_fill_(~mask, float('-inf'))
        max_key = key.max(dim=0, keepdims=True)[0]
        max_pos_bias = pos_bias.max(dim=1, keepdims=True)[0]
        exp_key = torch.exp(key - max_key)
        exp_pos_bias = torch.exp(pos_bias - max_pos_bias)
        num = torch.einsum('ijb,jbd->ibd', exp_pos_bias, exp_key * value)
        den = torch.einsum('ijb,jbd->ibd', exp_pos_bias, exp_key)
        y = self.activation(query) * num / den
        return self.output(y)


# ---------------------------------------------------------------- Primer EZ
class SquaredReLU(nn.Module):
    def __init__(self):
        super().__init__()
        self.relu = nn.ReLU()

    def forward(self, x: torch.Tensor):
        x = self.relu(x)
        return x * x


class SpatialDepthWiseConvolution(nn.Module):
    def __init__(self, d_k: int, kernel_size: int = 3):
        super().__init__()
        self.kernel_size = kernel_size
        self.conv = nn.Conv1d(in_channels=d_k, out_channels=d_k, kernel_size=(kernel_size,),
                              padding=(kernel_size - 1,), groups=d_k)

    def forward(self, x: torch.Tensor):
        seq_len, batch_size, heads, d_k = x.shape
        x = x.permute(1, 2, 3, 0)
        x = x.view(batch_size * heads, d_k, seq_len)
        x = self.conv(x)
        x = x[:, :, :-(self.kernel_size - 1)]
        x = x.view(batch_size, heads, d_k, seq_len)
        return x.permute(3, 0, 1, 2)


class MultiDConvHeadAttention(MultiHeadAttention):
    def __init__(self, heads: int, d_model: int, dropout_prob: float = 0.1):
        super().__init__(heads, d_model, dropout_prob)
        self.query = nn.Sequential(self.query, SpatialDepthWiseConvolution(self.d_k))
        self.key = nn.Sequential(self.key, SpatialDepthWiseConvolution(self.d_k))
        self.value = nn.Sequential(self.value, SpatialDepthWiseConvolution(self.d_k))


# ---------------------------------------------------------------- a tiny autoregressive wrapper
class Block(nn.Module):
    def __init__(self, kind, d_model, seq_len):
        super().__init__()
        self.kind = kind
        self.norm = nn.LayerNorm(d_model)
        if kind == "gmlp":
            self.mixer = GMLPBlock(d_model, 4 * d_model, seq_len)
        elif kind == "aft":
            self.mixer = AFTLocal(d_model, seq_len, local_window_size=4)
        else:
            self.mixer = MultiDConvHeadAttention(4, d_model, dropout_prob=0.0)
        self.ff = nn.Sequential(nn.Linear(d_model, 2 * d_model), SquaredReLU(), nn.Linear(2 * d_model, d_model))

    def forward(self, x, mask):
        if self.kind == "gmlp":
            x = self.mixer(x=x, mask=mask)
        else:
            z = self.norm(x)
            x = x + self.mixer(query=z, key=z, value=z, mask=mask)
        return x + self.ff(x)


class AutoregressiveModel(nn.Module):
    def __init__(self, kind, n_tokens, d_model, seq_len):
        super().__init__()
        self.src_embed = nn.Embedding(n_tokens, d_model)
        self.blocks = nn.ModuleList([Block(kind, d_model, seq_len) for _ in range(2)])
        self.generator = nn.Linear(d_model, n_tokens)
        self.mask = None

    def forward(self, x):
        if self.mask is None or self.mask.size(0) != len(x):
            self.mask = subsequent_mask(len(x)).to(x.device)
        h = self.src_embed(x)
        for block in self.blocks:
            h = block(h, self.mask)
        return self.generator(h)


# ================================================================ the checks
assert AFTLocal.create_local_mask(10, 4).int().tolist()[5] == [0, 0, 1, 1, 1, 1, 1, 1, 1, 0]
sq = SquaredReLU()(torch.tensor([-2.0, 0.5, 3.0]))
assert sq.tolist() == [0.0, 0.25, 9.0]
conv = SpatialDepthWiseConvolution(4)
xs = torch.randn(6, 2, 3, 4)
ys = conv(xs)
xs2 = xs.clone()
xs2[4:] += 1.0
assert ys.shape == xs.shape and torch.equal(conv(xs2)[:4], ys[:4])          # causal
assert conv.conv.weight.shape == (4, 1, 3) and conv.conv.groups == 4

seq_len, n_tokens, d_model = 12, 10, 16
text = torch.tensor([(3 * i) % n_tokens for i in range(80)])
for kind in ("gmlp", "aft", "primer"):
    torch.manual_seed(0)
    model = AutoregressiveModel(kind, n_tokens, d_model, seq_len)
    if kind == "aft":
        aft = model.blocks[0].mixer
        assert aft.local_mask.dtype == torch.bool and not aft.local_mask.requires_grad
        assert sum(p.numel() for p in model.parameters() if p.requires_grad) < sum(p.numel() for p in model.parameters())
    x = text[:seq_len].view(seq_len, 1)
    with torch.no_grad():
        y = model(x)
        x2 = x.clone()
        x2[-1] = (x2[-1] + 1) % n_tokens
        y2 = model(x2)
    assert y.shape == (seq_len, 1, n_tokens)
    assert torch.allclose(y[:-1], y2[:-1], atol=1e-5), kind           # no peeking ahead
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=3e-3)
    losses = []
    for step in range(15):
        starts = torch.randint(0, len(text) - seq_len - 1, (4,))
        batch = torch.stack([text[s:s + seq_len + 1] for s in starts], dim=1)
        out = model(batch[:-1])
        loss = nn.functional.cross_entropy(out.view(-1, n_tokens), batch[1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert sum(losses[-5:]) < sum(losses[:5]), (kind, losses)
    if kind == "aft":
        assert model.blocks[0].mixer.pos_bias.grad is not None and model.blocks[0].mixer.local_mask.grad is None
    if kind == "gmlp":
        assert model.blocks[0].mixer.sgu.weight.grad[0, 5] == 0          # the future is masked out
    print(kind, "ok", round(losses[0], 3), round(losses[-1], 3))
