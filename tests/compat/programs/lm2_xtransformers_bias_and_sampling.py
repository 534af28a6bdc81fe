"""lucidrains' x-transformers (x_transformers/x_transformers.py and autoregressive_wrapper.py) at toy
size, the position biases, small modules and sampling helpers, with einops / einx calls spelled
out in torch (rearrange 'i j h -> h i j' as permute, einx.subtract as broadcasting): the T5
RelativePositionBias (_relative_position_bucket: (n < 0).long(), torch.abs, torch.max with
torch.zeros_like, log-spaced buckets with .long(), torch.min with torch.full_like, torch.where),
DynamicPositionBias (an MLP of nn.Linear(1, dim) / nn.SiLU over continuous relative positions,
torch.sign * torch.log(abs + 1), gathered with pos[indices]), AbsolutePositionalEmbedding with
seq_start_pos (.clamp(min=0)), ScaledSinusoidalEmbedding (theta ** -freq_seq, einsum 'i, j -> i j'),
DynamicTanh and Derf (torch.erf) norms built from torch.tensor parameters, GRUGating around
nn.GRUCell, ShiftTokens with pad_at_dim's negative F.pad, sinkhorn (F.normalize p=1 in turns),
calc_entropy, calc_z_loss (logsumexp, torch.square, boolean-mask mean), softclamp; and the
wrapper's top_p (F.pad of a bool tensor by (1, -1), sorted_logits.scatter), top_k
(probs.scatter_), top_a / min_p (torch.where(cond, float('-inf'), logits)), gumbel_sample,
align_right (advanced indexing t[batch_arange, prompt_len_arange + offset[..., None], ...]) and
contrastive_decode_fn; then a small causal LM with the T5 bias and the z-loss is trained."""
from math import ceil, log as mlog
import math

import torch
import torch.nn.functional as F
from torch import nn, tensor, cat, arange


def exists(val):
    return val is not None


def default(val, d):
    return val if exists(val) else d


def divisible_by(num, den):
    return (num % den) == 0


def log(t, eps=1e-20):
    return t.clamp(min=eps).log()


def softclamp(t, value):
    return (t / value).tanh() * value


def calc_entropy(t, is_prob=False):
    prob = t.softmax(dim=-1) if not is_prob else t
    return -(prob * log(prob)).sum(dim=-1)


def calc_z_loss(pre_softmax_attns, mask=None, weight=1.):
    lse = 0.
    for attn in pre_softmax_attns:
        lse = lse + attn.logsumexp(dim=-1)
    loss = torch.square(lse)
    loss = loss.sum(dim=1)                       # reduce(loss, 'b h n -> b n', 'sum')
    if not exists(mask):
        return loss.mean() * weight
    loss = loss[mask].sum() / mask.sum().clamp(min=1e-5)
    return loss * weight


def pad_at_dim(t, pad, dim=-1, value=0.):
    if pad == (0, 0):
        return t
    dims_from_right = (- dim - 1) if dim < 0 else (t.ndim - dim - 1)
    zeros = ((0, 0) * dims_from_right)
    return F.pad(t, (*zeros, *pad), value=value)


def shift(t, amount, mask=None):
    if amount == 0:
        return t
    amount = min(amount, t.shape[1])
    if exists(mask):
        t = t.masked_fill(~mask[..., None], 0.)
    return pad_at_dim(t, (amount, -amount), dim=- 2, value=0.)


class ShiftTokens(nn.Module):
    def __init__(self, shifts, fn):
        super().__init__()
        self.fn = fn
        self.shifts = tuple(shifts)

    def forward(self, x, **kwargs):
        mask = kwargs.get('mask', None)
        shifts = self.shifts
        segments = len(shifts)
        feats_per_shift = x.shape[-1] // segments
        splitted = x.split(feats_per_shift, dim=-1)
        segments_to_shift, rest = splitted[:segments], splitted[segments:]
        segments_to_shift = [shift(*args, mask=mask) for args in zip(segments_to_shift, shifts)]
        x = cat((*segments_to_shift, *rest), dim=-1)
        return self.fn(x, **kwargs)


def sinkhorn(t, iters=20):
    dtype = t.dtype
    t = t.float()
    t = t.softmax(dim=-2)
    for _ in range(iters):
        t = F.normalize(t, p=1, dim=-1)
        t = F.normalize(t, p=1, dim=-2)
    return t.to(dtype)


class AbsolutePositionalEmbedding(nn.Module):
    def __init__(self, dim, max_seq_len, l2norm_embed=False):
        super().__init__()
        self.scale = dim ** -0.5 if not l2norm_embed else 1.
        self.max_seq_len = max_seq_len
        self.l2norm_embed = l2norm_embed
        self.emb = nn.Embedding(max_seq_len, dim)

    def forward(self, x, pos=None, seq_start_pos=None, offset=0):
        seq_len, device = x.shape[1], x.device
        assert seq_len <= self.max_seq_len, f'you are passing in a sequence length of {seq_len} but your absolute positional embedding has a max sequence length of {self.max_seq_len}'
        if not exists(pos):
            pos = arange(seq_len, device=device) + offset
        if exists(seq_start_pos):
            pos = (pos - seq_start_pos[..., None]).clamp(min=0)
        pos_emb = self.emb(pos)
        return pos_emb * self.scale


class ScaledSinusoidalEmbedding(nn.Module):
    def __init__(self, dim, theta=10000):
        super().__init__()
        assert divisible_by(dim, 2)
        self.scale = nn.Parameter(torch.ones(1) * dim ** -0.5)
        half_dim = dim // 2
        freq_seq = arange(half_dim).float() / half_dim
        inv_freq = theta ** -freq_seq
        self.register_buffer('inv_freq', inv_freq, persistent=False)

    def forward(self, x, pos=None, seq_start_pos=None, offset=0):
        seq_len, device = x.shape[1], x.device
        if not exists(pos):
            pos = arange(seq_len, device=device) + offset
        if exists(seq_start_pos):
            pos = pos - seq_start_pos[..., None]
        emb = torch.einsum('i, j -> i j', pos, self.inv_freq)
        emb = cat((emb.sin(), emb.cos()), dim=-1)
        return emb * self.scale


class RelativePositionBias(nn.Module):
    def __init__(self, scale, causal=False, num_buckets=32, max_distance=128, heads=8):
        super().__init__()
        self.scale = scale
        self.causal = causal
        self.num_buckets = num_buckets
        self.max_distance = max_distance
        self.relative_attention_bias = nn.Embedding(num_buckets, heads)

    @staticmethod
    def _relative_position_bucket(relative_position, causal=True, num_buckets=32, max_distance=128):
        ret = 0
        n = -relative_position
        if not causal:
            num_buckets //= 2
            ret += (n < 0).long() * num_buckets
            n = torch.abs(n)
        else:
            n = torch.max(n, torch.zeros_like(n))
        max_exact = num_buckets // 2
        is_small = n < max_exact
        val_if_large = max_exact + (
            torch.log(n.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
        ).long()
        val_if_large = torch.min(val_if_large, torch.full_like(val_if_large, num_buckets - 1))
        ret += torch.where(is_small, n, val_if_large)
        return ret

    @property
    def device(self):
        return next(self.parameters()).device

    def forward(self, i, j):
        device = self.device
        q_pos = arange(j - i, j, dtype=torch.long, device=device)
        k_pos = arange(j, dtype=torch.long, device=device)
        rel_pos = k_pos[None, :] - q_pos[:, None]          # einx.subtract('j, i -> i j', k_pos, q_pos)
        rp_bucket = self._relative_position_bucket(rel_pos, causal=self.causal, num_buckets=self.num_buckets,
                                                   max_distance=self.max_distance)
        values = self.relative_attention_bias(rp_bucket)
        bias = values.permute(2, 0, 1)                     # rearrange(values, 'i j h -> h i j')
        return bias * self.scale


class DynamicPositionBias(nn.Module):
    def __init__(self, dim, *, heads, depth, log_distance=False, norm=False):
        super().__init__()
        assert depth >= 1, 'depth for dynamic position bias MLP must be greater or equal to 1'
        self.log_distance = log_distance
        self.mlp = nn.ModuleList([])
        self.mlp.append(nn.Sequential(nn.Linear(1, dim), nn.LayerNorm(dim) if norm else nn.Identity(), nn.SiLU()))
        for _ in range(depth - 1):
            self.mlp.append(nn.Sequential(nn.Linear(dim, dim), nn.LayerNorm(dim) if norm else nn.Identity(), nn.SiLU()))
        self.mlp.append(nn.Linear(dim, heads))

    @property
    def device(self):
        return next(self.parameters()).device

    def forward(self, i, j):
        device = self.device
        seq_arange = arange(j - i, j, device=device)
        context_arange = arange(j, device=device)
        indices = seq_arange[:, None] - context_arange[None, :]     # einx.subtract('i, j -> i j', ...)
        indices += (j - 1)
        pos = arange(-j + 1, j, device=device).float()
        pos = pos[..., None]                                         # rearrange(pos, '... -> ... 1')
        if self.log_distance:
            pos = torch.sign(pos) * torch.log(pos.abs() + 1)
        for layer in self.mlp:
            pos = layer(pos)
        bias = pos[indices]
        return bias.permute(2, 0, 1)


class DynamicTanh(nn.Module):
    def __init__(self, dim, init_alpha=1., gamma=1., beta=0., unit_offset=False):
        super().__init__()
        self.pre_tanh_scale = nn.Parameter(tensor(init_alpha))
        self.gamma = nn.Parameter(torch.ones(dim))
        self.beta = nn.Parameter(torch.zeros(dim))
        self.pre_tanh_scale_offset = init_alpha if unit_offset else 0.
        self.gamma_offset = float(unit_offset)
        nn.init.constant_(self.pre_tanh_scale, 0 if unit_offset else init_alpha)
        nn.init.constant_(self.gamma, 1. - float(unit_offset))

    def forward(self, x):
        pre_tanh_scale = self.pre_tanh_scale + self.pre_tanh_scale_offset
        gamma = self.gamma + self.gamma_offset
        return (x * pre_tanh_scale).tanh() * gamma + self.beta


class Derf(nn.Module):
    def __init__(self, dim, init_alpha=0.5, init_bias=0., unit_offset=False):
        super().__init__()
        scale_offset = 1. if unit_offset else 0.
        self.alpha = nn.Parameter(tensor(init_alpha) - scale_offset)
        self.s = nn.Parameter(tensor(init_bias))
        self.gamma = nn.Parameter(torch.ones(dim) - scale_offset)
        self.beta = nn.Parameter(torch.zeros(dim))
        self.scale_offset = scale_offset

    def forward(self, x):
        x = x * (self.alpha + self.scale_offset) + self.s
        activated = torch.erf(x)
        return activated * (self.gamma + self.scale_offset) + self.beta


class GRUGating(nn.Module):
    def __init__(self, dim, scale_residual=False, **kwargs):
        super().__init__()
        self.gru = nn.GRUCell(dim, dim)
        self.residual_scale = nn.Parameter(torch.ones(dim)) if scale_residual else None

    def forward(self, x, residual, **kwargs):
        if exists(self.residual_scale):
            residual = residual * self.residual_scale
        gated_output = self.gru(x.reshape(-1, x.shape[-1]), residual.reshape(-1, residual.shape[-1]))
        return gated_output.reshape_as(x)


# ---------------------------------------------------------------- autoregressive_wrapper.py
def gumbel_noise(t):
    return -log(-log(torch.rand_like(t)))


def gumbel_sample(logits, temperature=1., eps=1e-6):
    noise = gumbel_noise(logits)
    return ((logits / max(temperature, eps)) + noise).argmax(dim=-1)


def align_right(t, lens, pad_id=0):
    batch, seq_len, device, dtype = *t.shape[:2], t.device, t.dtype
    assert lens.ndim == 1 and lens.shape[0] == batch
    assert lens.amax() <= seq_len
    pad_lens = seq_len - lens
    max_pad_len = pad_lens.amax()
    batch_arange = torch.arange(batch, device=device, dtype=torch.long)[..., None]
    prompt_len_arange = torch.arange(seq_len, device=device, dtype=torch.long)
    t = pad_at_dim(t, (max_pad_len, 0), value=pad_id, dim=1)
    offset = max_pad_len - pad_lens
    return t[batch_arange, prompt_len_arange + offset[..., None], ...]


def top_p(logits, thres=0.9):
    sorted_logits, sorted_indices = torch.sort(logits, descending=True)
    cum_probs = torch.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
    sorted_indices_to_remove = cum_probs > thres
    sorted_indices_to_remove = F.pad(sorted_indices_to_remove, (1, -1), value=False)
    sorted_logits[sorted_indices_to_remove] = float('-inf')
    return sorted_logits.scatter(1, sorted_indices, sorted_logits)


def top_k(logits, frac_num_tokens=0.1, k=None):
    num_tokens = logits.shape[-1]
    k = default(k, ceil(frac_num_tokens * num_tokens))
    k = min(k, num_tokens)
    val, ind = torch.topk(logits, k)
    probs = torch.full_like(logits, float('-inf'))
    probs.scatter_(1, ind, val)
    return probs


def top_a(logits, min_p_pow=2.0, min_p_ratio=0.02):
    probs = logits.softmax(dim=-1)
    max_probs = probs.amax(dim=-1, keepdim=True)
    limit = torch.pow(max_probs, min_p_pow) * min_p_ratio
    return torch.where(probs < limit, float('-inf'), logits)


def min_p(logits, min_p=0.1):
    probs = logits.softmax(dim=-1)
    max_probs = probs.amax(dim=-1, keepdim=True)
    limit = min_p * max_probs
    return torch.where(probs < limit, float('-inf'), logits)


def contrastive_decode_fn(expert_logits, amateur_logits, alpha=0.1, beta=0.5):
    cutoff = log(alpha) + expert_logits.amax(dim=-1, keepdim=True)
    diffs = (1 + beta) * expert_logits - beta * amateur_logits
    return diffs.masked_fill(expert_logits < cutoff, -torch.finfo(expert_logits.dtype).max)


# ================================================================ the checks
torch.manual_seed(0)


def t5_bucket(rel, bidirectional, num_buckets=32, max_distance=128):
    """The bucket of one relative position, in plain Python (as T5 defines it)."""
    ret, n = 0, -rel
    if bidirectional:
        num_buckets //= 2
        ret += num_buckets if n < 0 else 0
        n = abs(n)
    else:
        n = max(n, 0)
    max_exact = num_buckets // 2
    if n < max_exact:
        return ret + n
    return ret + min(num_buckets - 1, max_exact + int(mlog(n / max_exact) / mlog(max_distance / max_exact) * (num_buckets - max_exact)))


rel = torch.arange(-200, 201)
for causal in (True, False):
    got = RelativePositionBias._relative_position_bucket(rel, causal=causal)
    assert got.dtype == torch.long
    assert got.tolist() == [t5_bucket(r, not causal) for r in range(-200, 201)], causal

rpb = RelativePositionBias(scale=8 ** 0.5, causal=True, num_buckets=16, max_distance=32, heads=4)
bias = rpb(6, 10)
assert bias.shape == (4, 6, 10)
assert torch.allclose(bias[:, 0, 4], rpb.relative_attention_bias.weight[0] * 8 ** 0.5)      # distance 0
assert torch.allclose(bias[:, 0, 9], bias[:, 0, 4])          # causal: the future all falls in bucket 0

dpb = DynamicPositionBias(dim=8, heads=4, depth=2, log_distance=True, norm=True)
dbias = dpb(5, 7)
assert dbias.shape == (4, 5, 7)
assert torch.allclose(dbias[:, 1, 2], dbias[:, 3, 4]) and not torch.allclose(dbias[:, 1, 2], dbias[:, 1, 3])
dbias.sum().backward()
assert dpb.mlp[0][0].weight.grad is not None

x = torch.randn(2, 5, 16)
ape = AbsolutePositionalEmbedding(16, max_seq_len=8)
e = ape(x, seq_start_pos=torch.tensor([0, 2]))
assert e.shape == (2, 5, 16) and torch.equal(e[1, 0], e[1, 2]) and torch.equal(e[1, 2], e[0, 0])
try:
    ape(torch.randn(1, 9, 16))
    raise RuntimeError("too long")
except AssertionError as err:
    assert "max sequence length of 8" in str(err)
sin_emb = ScaledSinusoidalEmbedding(16)
s = sin_emb(x)
assert s.shape == (5, 16) and torch.allclose(s[0], torch.cat([torch.zeros(8), torch.ones(8)]) * 16 ** -0.5)
assert "inv_freq" not in sin_emb.state_dict()

for norm in (DynamicTanh(16), DynamicTanh(16, unit_offset=True), Derf(16), Derf(16, unit_offset=True)):
    y = norm(x)
    assert y.shape == x.shape
    y.pow(2).mean().backward()
    assert all(p.grad is not None for p in norm.parameters())
assert torch.allclose(Derf(16)(x), torch.erf(0.5 * x), atol=1e-6)
assert DynamicTanh(16).pre_tanh_scale.dim() == 0

gate = GRUGating(16, scale_residual=True)
assert gate(x, torch.randn(2, 5, 16)).shape == x.shape

identity = lambda t, **kwargs: t
shifted = ShiftTokens((0, 1), identity)(x)
assert torch.equal(shifted[..., :8], x[..., :8])
assert torch.equal(shifted[:, 1:, 8:], x[:, :-1, 8:]) and shifted[:, 0, 8:].abs().sum() == 0
mask = torch.tensor([[True] * 5, [True, True, True, False, False]])
shifted_m = ShiftTokens((1,), identity)(x, mask=mask)
assert shifted_m[1, 4].abs().sum() == 0 and torch.equal(shifted_m[1, 3], x[1, 2])

ds = sinkhorn(torch.randn(2, 4, 4), iters=50)
assert torch.allclose(ds.sum(-1), torch.ones(2, 4), atol=1e-3) and torch.allclose(ds.sum(-2), torch.ones(2, 4), atol=1e-3)

attn_logits = [torch.randn(2, 4, 5, 5), torch.randn(2, 4, 5, 5)]
z = calc_z_loss(attn_logits)
z_masked = calc_z_loss(attn_logits, mask=torch.tensor([[True, True, False, False, False]] * 2))
lse = attn_logits[0].logsumexp(-1) + attn_logits[1].logsumexp(-1)
assert torch.allclose(z, lse.square().sum(1).mean()) and torch.allclose(z_masked, lse.square().sum(1)[:, :2].mean())
ent = calc_entropy(torch.zeros(3, 8))
assert torch.allclose(ent, torch.full((3,), math.log(8)), atol=1e-5)
assert torch.allclose(softclamp(torch.tensor([0.0, 100.0]), 5.0), torch.tensor([0.0, 5.0]), atol=1e-4)

# sampling filters
logits = torch.tensor([[2.0, 1.0, 0.5, -1.0, 3.0, 0.0]])
tp = top_p(logits.clone(), thres=0.85)      # probabilities .61 .22 .08 ...: three kept
assert torch.isfinite(tp).tolist() == [[True, True, False, False, True, False]], tp
tk = top_k(logits, k=2)
assert torch.isfinite(tk).sum().item() == 2 and tk[0, 4].item() == 3.0
assert torch.isfinite(top_k(logits)).sum().item() == 1                # ceil(0.1 * 6) = 1
mp = min_p(logits, min_p=0.2)
assert torch.isfinite(mp).tolist() == [[True, False, False, False, True, False]], mp
ta = top_a(logits, min_p_pow=2.0, min_p_ratio=0.5)
assert torch.isfinite(ta).sum().item() >= 1 and ta[0, 4] == 3.0
draws = torch.stack([gumbel_sample(logits, temperature=1.0) for _ in range(300)])
freq = torch.bincount(draws.flatten(), minlength=6).float() / 300
assert torch.allclose(freq, logits.softmax(-1)[0], atol=0.08), freq
assert gumbel_sample(logits, temperature=0.0).item() == 4
cd = contrastive_decode_fn(logits, torch.zeros_like(logits), alpha=torch.tensor(0.1), beta=0.5)   # log is the clamped one
assert cd[0, 3].item() == -torch.finfo(torch.float32).max and cd[0, 4].item() == 4.5

prompts = torch.tensor([[5, 6, 7, 0, 0], [1, 2, 3, 4, 9]])
aligned = align_right(prompts, torch.tensor([3, 5]))
assert aligned.tolist() == [[0, 0, 5, 6, 7], [1, 2, 3, 4, 9]]


# a small causal LM with the T5 relative bias, trained with the attention z-loss
class TinyT5BiasLM(nn.Module):
    def __init__(self, num_tokens, dim, heads):
        super().__init__()
        self.heads = heads
        self.emb = nn.Embedding(num_tokens, dim)
        self.rel_pos = RelativePositionBias(scale=(dim // heads) ** 0.5, causal=True, num_buckets=8,
                                            max_distance=16, heads=heads)
        self.to_qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.norm = DynamicTanh(dim)
        self.ff = ShiftTokens((0, 1), nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim)))
        self.to_logits = nn.Linear(dim, num_tokens)

    def forward(self, ids):
        b, n = ids.shape
        x = self.emb(ids)
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)
        q, k, v = (t.view(b, n, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        sim = q @ k.transpose(-1, -2) * q.shape[-1] ** -0.5 + self.rel_pos(n, n)
        causal = torch.ones(n, n, dtype=torch.bool).triu(1)
        sim = sim.masked_fill(causal, -torch.finfo(sim.dtype).max)
        out = (sim.softmax(dim=-1) @ v).transpose(1, 2).reshape(b, n, -1)
        x = x + out
        x = x + self.ff(self.norm(x))
        return self.to_logits(x), sim


torch.manual_seed(1)
lm = TinyT5BiasLM(10, 16, 4)
opt = torch.optim.Adam(lm.parameters(), lr=1e-2)
seq = torch.tensor([[i % 10 for i in range(s, s + 13)] for s in range(4)])
losses = []
for _ in range(25):
    logits, sim = lm(seq[:, :-1])
    ce = F.cross_entropy(logits.reshape(-1, 10), seq[:, 1:].reshape(-1))
    loss = ce + 1e-4 * calc_z_loss([sim])
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(ce.item())
assert lm.rel_pos.relative_attention_bias.weight.grad is not None
assert losses[-1] < 0.5 * losses[0], losses
print("x-transformers ok", round(losses[0], 3), round(losses[-1], 3))
