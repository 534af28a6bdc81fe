"""johnma2006/mamba-minimal (model.py + demo.ipynb's generate) at toy size. einops'
rearrange / repeat / einsum are written with the torch ops they stand for (permute, expand,
torch.einsum), as the repo's issues suggest for an einops-free copy.

APIs: dataclass ModelArgs with __post_init__ (dt_rank 'auto', vocab padding), nn.Embedding with
lm_head.weight = embedding.weight (tying), nn.ModuleList, depthwise nn.Conv1d(groups=d_inner,
padding=d_conv - 1) sliced [:, :, :l], Tensor.split(split_size=[...], dim=...), F.silu,
F.softplus, A_log = nn.Parameter(torch.log(A)), -torch.exp(self.A_log.float()), torch.einsum with
three operands, a Python-loop selective scan with torch.zeros((b, d_in, n)) and
torch.stack(ys, dim=2), RMSNorm with torch.rsqrt, load_state_dict of keys renamed by
key.replace('backbone.', ''), and generate: softmax, torch.topk, probs[probs < values[:, -1, None]] = 0,
probs.sum(axis=1, keepdims=True) (numpy keyword names), torch.multinomial, torch.argmax(...)[:, None].
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Union

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class ModelArgs:
    d_model: int
    n_layer: int
    vocab_size: int
    d_state: int = 16
    expand: int = 2
    dt_rank: Union[int, str] = 'auto'
    d_conv: int = 4
    pad_vocab_size_multiple: int = 8
    conv_bias: bool = True
    bias: bool = False

    def __post_init__(self):
        self.d_inner = int(self.expand * self.d_model)
        if self.dt_rank == 'auto':
            self.dt_rank = math.ceil(self.d_model / 16)
        if self.vocab_size % self.pad_vocab_size_multiple != 0:
            self.vocab_size += (self.pad_vocab_size_multiple
                                - self.vocab_size % self.pad_vocab_size_multiple)


class Mamba(nn.Module):
    def __init__(self, args: ModelArgs):
        super().__init__()
        self.args = args
        self.embedding = nn.Embedding(args.vocab_size, args.d_model)
        self.layers = nn.ModuleList([ResidualBlock(args) for _ in range(args.n_layer)])
        self.norm_f = RMSNorm(args.d_model)
        self.lm_head = nn.Linear(args.d_model, args.vocab_size, bias=False)
        self.lm_head.weight = self.embedding.weight  # Tie output projection to embedding weights.

    def forward(self, input_ids):
        x = self.embedding(input_ids)
        for layer in self.layers:
            x = layer(x)
        x = self.norm_f(x)
        logits = self.lm_head(x)
        return logits


class ResidualBlock(nn.Module):
    def __init__(self, args: ModelArgs):
        super().__init__()
        self.args = args
        self.mixer = MambaBlock(args)
        self.norm = RMSNorm(args.d_model)

    def forward(self, x):
        output = self.mixer(self.norm(x)) + x
        return output


class MambaBlock(nn.Module):
    def __init__(self, args: ModelArgs):
        super().__init__()
        self.args = args
        self.in_proj = nn.Linear(args.d_model, args.d_inner * 2, bias=args.bias)
        self.conv1d = nn.Conv1d(
            in_channels=args.d_inner,
            out_channels=args.d_inner,
            bias=args.conv_bias,
            kernel_size=args.d_conv,
            groups=args.d_inner,
            padding=args.d_conv - 1,
        )
        self.x_proj = nn.Linear(args.d_inner, args.dt_rank + args.d_state * 2, bias=False)
        self.dt_proj = nn.Linear(args.dt_rank, args.d_inner, bias=True)
        # repeat(torch.arange(1, n + 1), 'n -> d n', d=d_inner)
        A = torch.arange(1, args.d_state + 1).unsqueeze(0).expand(args.d_inner, args.d_state)
        self.A_log = nn.Parameter(torch.log(A))
        self.D = nn.Parameter(torch.ones(args.d_inner))
        self.out_proj = nn.Linear(args.d_inner, args.d_model, bias=args.bias)

    def forward(self, x):
        (b, l, d) = x.shape
        x_and_res = self.in_proj(x)  # shape (b, l, 2 * d_in)
        x_and_res = x_and_res.permute(0, 2, 1)  # 'b l x -> b x l'
        (x, res) = x_and_res.split(split_size=[self.args.d_inner, self.args.d_inner], dim=1)
        x = self.conv1d(x)[:, :, :l]
        x = F.silu(x)
        y = self.ssm(x)
        y = y * F.silu(res)
        output = self.out_proj(y.permute(0, 2, 1))  # 'b d_model l -> b l d_model'
        return output

    def ssm(self, x):
        (d_in, n) = self.A_log.shape
        A = -torch.exp(self.A_log.float())  # shape (d_in, n)
        D = self.D.float()
        x_dbl = x.permute(0, 2, 1)  # 'b d l -> b l d'
        x_dbl = self.x_proj(x_dbl)  # (b, l, dt_rank + 2*n)
        (delta, B, C) = x_dbl.split(split_size=[self.args.dt_rank, n, n], dim=-1)
        delta = F.softplus(self.dt_proj(delta))  # (b, l, d_in)
        y = self.selective_scan(x, delta, A, B, C, D)
        return y

    def selective_scan(self, u, delta, A, B, C, D):
        (b, d_in, l) = u.shape
        n = A.shape[1]
        # einsum(delta, A, 'b l d_in, d_in n -> b d_in l n')
        deltaA = torch.exp(torch.einsum('bld,dn->bdln', delta, A))
        # einsum(delta, B, u, 'b l d_in, b l n, b d_in l -> b d_in l n')
        deltaB_u = torch.einsum('bld,bln,bdl->bdln', delta, B, u)
        x = torch.zeros((b, d_in, n))
        ys = []
        for i in range(l):
            x = deltaA[:, :, i] * x + deltaB_u[:, :, i]
            y = torch.einsum('bdn,bn->bd', x, C[:, i, :])
            ys.append(y)
        y = torch.stack(ys, dim=2)  # (b d_in l)
        if D is not None:
            y = y + u * D[:, None]  # rearrange(D, 'd_in -> d_in 1')
        return y


class RMSNorm(nn.Module):
    def __init__(self, d_model: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))

    def forward(self, x):
        output = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
        return output


def generate(model, input_ids, n_tokens_to_gen: int = 8, sample: bool = True, top_k: int = 4):
    model.eval()
    for token_n in range(n_tokens_to_gen):
        with torch.no_grad():
            indices_to_input = input_ids
            next_token_logits = model(indices_to_input)[:, -1]
        probs = F.softmax(next_token_logits, dim=-1)
        (batch, vocab_size) = probs.shape
        if top_k is not None:
            (values, indices) = torch.topk(probs, k=top_k)
            probs[probs < values[:, -1, None]] = 0
            probs = probs / probs.sum(axis=1, keepdims=True)
        if sample:
            next_indices = torch.multinomial(probs, num_samples=1)
        else:
            next_indices = torch.argmax(probs, dim=-1)[:, None]
        input_ids = torch.cat([input_ids, next_indices], dim=1)
    return input_ids


torch.manual_seed(0)
text = "abcabdabcabdabcabd" * 4
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)

args = ModelArgs(d_model=16, n_layer=2, vocab_size=len(chars), d_state=4)
assert args.vocab_size == 8 and args.dt_rank == 1 and args.d_inner == 32
model = Mamba(args)
assert model.lm_head.weight is model.embedding.weight
assert model.layers[0].mixer.A_log.dtype == torch.float32
# the tied weight is one parameter: counted once
assert len(list(model.parameters())) == len({id(p) for p in model.parameters()})
assert 'lm_head.weight' in model.state_dict()

# from_pretrained's key renaming: a 'backbone.'-prefixed state dict loads into a fresh model
state_dict = {'backbone.' + k: v.clone() for k, v in model.state_dict().items()}
new_state_dict = {}
for key in state_dict:
    new_key = key.replace('backbone.', '')
    new_state_dict[new_key] = state_dict[key]
fresh = Mamba(args)
fresh.load_state_dict(new_state_dict)
assert torch.equal(fresh.layers[1].mixer.conv1d.weight, model.layers[1].mixer.conv1d.weight)

opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
block = 12
losses = []
for step in range(30):
    ix = torch.randint(len(data) - block, (4,))
    xb = torch.stack([data[i:i + block] for i in ix])
    yb = torch.stack([data[i + 1:i + block + 1] for i in ix])
    logits = model(xb)
    assert logits.shape == (4, block, args.vocab_size)
    loss = F.cross_entropy(logits.view(-1, logits.size(-1)), yb.view(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    losses.append(loss.item())
assert model.layers[0].mixer.A_log.grad is not None
assert sum(losses[-5:]) / 5 < losses[0], losses

out = generate(model, data[None, :6].clone(), n_tokens_to_gen=6, sample=True, top_k=2)
assert out.shape == (1, 12) and out.dtype == torch.long
greedy = generate(model, data[None, :6].clone(), n_tokens_to_gen=6, sample=False, top_k=None)
assert greedy.shape == (1, 12)
assert int(greedy.max()) < args.vocab_size
print("mamba-minimal ok", losses[0], losses[-1])
