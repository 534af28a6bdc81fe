"""fastai/course22p2 nbs/27_attention.ipynb, smaller (x = torch.randn(8,32,8,8)): the image as a
sequence (x.view(*x.shape[:2], -1).transpose(1, 2)), separate q/k/v nn.Linear layers, the
SelfAttention module with nn.GroupNorm(1, ni), a residual, s.softmax(dim=-1)@v and
transpose(1,2).reshape(n,c,h,w); checked, in place of diffusers' AttentionBlock, against
nn.MultiheadAttention(num_heads=1) given the same weights (cp_parms assigning Parameters);
then one qkv Linear split with torch.chunk(.., 3, dim=-1), the BatchNorm2d versions (the draft
that skips the view raises the shape error on both),
heads_to_batch / batch_to_heads, einops.rearrange (the two patterns the lesson uses, written
with the lesson's own reshape/transpose helpers, einops not being installed),
SelfAttentionMultiHead (checked against F.scaled_dot_product_attention per head), and
nn.MultiheadAttention(32, num_heads=8, batch_first=True) with average_attn_weights."""
import math
import random

import numpy as np
import torch
from torch import nn


def set_seed(seed, deterministic=False):
    torch.use_deterministic_algorithms(deterministic)
    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)


set_seed(42)
x = torch.randn(8, 32, 8, 8)
t = x.view(*x.shape[:2], -1).transpose(1, 2)
assert t.shape == (8, 64, 32) and not t.is_contiguous()
ni = 32
sk = nn.Linear(ni, ni)
sq = nn.Linear(ni, ni)
sv = nn.Linear(ni, ni)
k = sk(t)
q = sq(t)
v = sv(t)
assert (q@k.transpose(1, 2)).shape == (8, 64, 64)


class SelfAttention(nn.Module):
    def __init__(self, ni):
        super().__init__()
        self.scale = math.sqrt(ni)
        self.norm = nn.GroupNorm(1, ni)
        self.q = nn.Linear(ni, ni)
        self.k = nn.Linear(ni, ni)
        self.v = nn.Linear(ni, ni)
        self.proj = nn.Linear(ni, ni)

    def forward(self, x):
        inp = x
        n, c, h, w = x.shape
        x = self.norm(x)
        x = x.view(n, c, -1).transpose(1, 2)
        q = self.q(x)
        k = self.k(x)
        v = self.v(x)
        s = (q@k.transpose(1, 2))/self.scale
        x = s.softmax(dim=-1)@v
        x = self.proj(x)
        x = x.transpose(1, 2).reshape(n, c, h, w)
        return x+inp


sa = SelfAttention(32)
ra = sa(x)
assert ra.shape == x.shape
print(ra[0, 0, 0])


def cp_parms(a, b):
    b.weight = a.weight
    b.bias = a.bias


# the same attention from nn.MultiheadAttention, sharing the weights
mha = nn.MultiheadAttention(32, num_heads=1, batch_first=True)
with torch.no_grad():
    mha.in_proj_weight.copy_(torch.cat([sa.q.weight, sa.k.weight, sa.v.weight]))
    mha.in_proj_bias.copy_(torch.cat([sa.q.bias, sa.k.bias, sa.v.bias]))
cp_parms(sa.proj, mha.out_proj)
assert mha.out_proj.weight is sa.proj.weight
xn = sa.norm(x).view(8, 32, -1).transpose(1, 2)
rb, w = mha(xn, xn, xn)
rb = rb.transpose(1, 2).reshape(x.shape) + x
assert w.shape == (8, 64, 64) and torch.allclose(w.sum(-1), torch.ones(8, 64))
assert torch.allclose(ra, rb, atol=1e-5), (ra - rb).abs().max()
ra.sum().backward()
assert sa.proj.weight.grad is not None and sa.norm.weight.grad.shape == (32,)

sqkv = nn.Linear(ni, ni*3)
st = sqkv(t)
assert st.shape == (8, 64, 96)
q, k, v = torch.chunk(st, 3, dim=-1)
assert q.shape == (8, 64, 32) and torch.equal(k, st[..., 32:64])
assert (k@q.transpose(1, 2)).shape == (8, 64, 64)


class SelfAttention(nn.Module):
    def __init__(self, ni):
        super().__init__()
        self.scale = math.sqrt(ni)
        self.norm = nn.BatchNorm2d(ni)
        self.qkv = nn.Linear(ni, ni*3)
        self.proj = nn.Linear(ni, ni)

    def forward(self, inp):
        n, c, h, w = inp.shape
        x = self.norm(inp).view(n, c, -1).transpose(1, 2)
        q, k, v = torch.chunk(self.qkv(x), 3, dim=-1)
        s = (q@k.transpose(1, 2))/self.scale
        x = s.softmax(dim=-1)@v
        x = self.proj(x).transpose(1, 2).reshape(n, c, h, w)
        return x+inp


sa4 = SelfAttention(32)
assert sa4(x).shape == x.shape


class SelfAttention(nn.Module):
    def __init__(self, ni):
        super().__init__()
        self.scale = math.sqrt(ni)
        self.norm = nn.BatchNorm2d(ni)
        self.qkv = nn.Linear(ni, ni*3)
        self.proj = nn.Linear(ni, ni)

    def forward(self, x):
        x = self.norm(x).transpose(1, 2)
        q, k, v = torch.chunk(self.qkv(x), 3, dim=-1)
        s = (q@k.transpose(1, 2))/self.scale
        x = s.softmax(dim=-1)@v
        return self.proj(x).transpose(1, 2)


# this draft in the lesson forgets the view to a sequence: the Linear meets the width, 8
sa = SelfAttention(32)
try:
    sa(x)
    raise AssertionError('expected a shape error')
except RuntimeError as e:
    print(e)
    assert '8' in str(e) and '32' in str(e)


def heads_to_batch(x, heads):
    n, sl, d = x.shape
    x = x.reshape(n, sl, heads, -1)
    return x.transpose(2, 1).reshape(n*heads, sl, -1)


def batch_to_heads(x, heads):
    n, sl, d = x.shape
    x = x.reshape(-1, heads, sl, d)
    return x.transpose(2, 1).reshape(-1, sl, d*heads)


def rearrange(x, pattern, h):   # einops.rearrange, for the lesson's two patterns
    if pattern == 'n s (h d) -> (n h) s d': return heads_to_batch(x, h)
    if pattern == '(n h) s d -> n s (h d)': return batch_to_heads(x, h)
    raise NotImplementedError(pattern)


t2 = rearrange(t, 'n s (h d) -> (n h) s d', h=8)
assert t2.shape == (64, 64, 4)
assert torch.equal(t2[8 + 3], t[1, :, 12:16])        # batch 1, head 3
t3 = rearrange(t2, '(n h) s d -> n s (h d)', h=8)
assert t3.shape == t.shape and bool((t == t3).all())


class SelfAttentionMultiHead(nn.Module):
    def __init__(self, ni, nheads):
        super().__init__()
        self.nheads = nheads
        self.scale = math.sqrt(ni/nheads)
        self.norm = nn.BatchNorm2d(ni)
        self.qkv = nn.Linear(ni, ni*3)
        self.proj = nn.Linear(ni, ni)

    def forward(self, inp):
        n, c, h, w = inp.shape
        x = self.norm(inp).view(n, c, -1).transpose(1, 2)
        x = self.qkv(x)
        x = rearrange(x, 'n s (h d) -> (n h) s d', h=self.nheads)
        q, k, v = torch.chunk(x, 3, dim=-1)
        s = (q@k.transpose(1, 2))/self.scale
        x = s.softmax(dim=-1)@v
        x = rearrange(x, '(n h) s d -> n s (h d)', h=self.nheads)
        x = self.proj(x).transpose(1, 2).reshape(n, c, h, w)
        return x+inp


sa = SelfAttentionMultiHead(32, 4)
sx = sa(x)
assert sx.shape == x.shape
print(sx.mean(), sx.std())
# each head attends within its own 24 = 3*8 columns of qkv: heads are independent
with torch.no_grad():
    xn = sa.norm(x).view(8, 32, -1).transpose(1, 2)
    heads = rearrange(sa.qkv(xn), 'n s (h d) -> (n h) s d', h=4)
    q, k, v = torch.chunk(heads, 3, dim=-1)
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v)
    ref = sa.proj(rearrange(ref, '(n h) s d -> n s (h d)', h=4)).transpose(1, 2).reshape(x.shape) + x
assert torch.allclose(sx, ref, atol=1e-5)
assert abs(sx.mean().item() - x.mean().item()) < 0.5

nm = nn.MultiheadAttention(32, num_heads=8, batch_first=True)
nmx, nmw = nm(t, t, t)
nmx = nmx+t
assert nmx.shape == t.shape and nmw.shape == (8, 64, 64)   # weights averaged over the heads
print(nmx.mean(), nmx.std())
nmx2, nmw2 = nm(t, t, t, average_attn_weights=False)
assert nmw2.shape == (8, 8, 64, 64) and torch.allclose(nmw2.mean(1), nmw, atol=1e-6)
