"""Vision-transformer and x-transformers building blocks as lucidrains writes them (vit-pytorch's
simple_vit.py / vit.py and x-transformers' x_transformers.py), with einops' rearrange / repeat
spelled out as reshape / permute / expand since only torch may be imported: posemb_sincos_2d
(torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij"), omega = 1.0 / (temperature **
omega), y.flatten()[:, None] * omega[None, :], torch.cat((x.sin(), x.cos(), y.sin(), y.cos()),
dim=1)), FeedForward with nn.LayerNorm + nn.GELU, Attention with to_qkv(x).chunk(3, dim=-1),
nn.Softmax(dim=-1) as self.attend, torch.matmul(q, k.transpose(-1, -2)) * self.scale, the patch
embedding (x.unfold-free reshape of images into (b, h*w, p*p*c) patches), a class token
nn.Parameter(torch.randn(1, 1, dim)) expanded with repeat and torch.cat, mean pooling vs cls
pooling, nn.Identity as to_latent; and from x-transformers: RMSNorm as F.normalize(x, dim=-1) *
self.scale * self.g with scale = dim ** 0.5, ScaleNorm, GLU/GEGLU feed-forward (x, gate =
self.proj(x).chunk(2, dim=-1); x * F.gelu(gate)), RotaryEmbedding (inv_freq buffer from
torch.arange(0, dim, 2).float() / dim, torch.einsum('i , j -> i j', t, inv_freq), rotate_half via
x.unbind(dim=-1) on (..., d/2, 2) pairs), the ALiBi bias (slopes from a geometric series,
-torch.abs(j_arange[None, :] - i_arange[:, None]) * slopes), attention written with
torch.einsum('b h i d, b h j d -> b h i j') and a causal mask filled with
-torch.finfo(sim.dtype).max, and a tiny ViT trained to tell horizontal from vertical stripes."""
import math

import torch
import torch.nn.functional as F
from torch import nn


def pair(t):
    return t if isinstance(t, tuple) else (t, t)


def posemb_sincos_2d(h, w, dim, temperature: int = 10000, dtype=torch.float32):
    y, x = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
    assert (dim % 4) == 0, "feature dimension must be multiple of 4 for sincos emb"
    omega = torch.arange(dim // 4) / (dim // 4 - 1)
    omega = 1.0 / (temperature ** omega)
    y = y.flatten()[:, None] * omega[None, :]
    x = x.flatten()[:, None] * omega[None, :]
    pe = torch.cat((x.sin(), x.cos(), y.sin(), y.cos()), dim=1)
    return pe.type(dtype)


class FeedForward(nn.Module):
    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.net = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, hidden_dim), nn.GELU(),
                                 nn.Linear(hidden_dim, dim))

    def forward(self, x):
        return self.net(x)


class Attention(nn.Module):
    def __init__(self, dim, heads=8, dim_head=64):
        super().__init__()
        inner_dim = dim_head * heads
        self.heads = heads
        self.scale = dim_head ** -0.5
        self.norm = nn.LayerNorm(dim)
        self.attend = nn.Softmax(dim=-1)
        self.to_qkv = nn.Linear(dim, inner_dim * 3, bias=False)
        self.to_out = nn.Linear(inner_dim, dim, bias=False)

    def forward(self, x):
        x = self.norm(x)
        qkv = self.to_qkv(x).chunk(3, dim=-1)
        b, n, _ = x.shape
        q, k, v = map(lambda t: t.reshape(b, n, self.heads, -1).permute(0, 2, 1, 3), qkv)
        dots = torch.matmul(q, k.transpose(-1, -2)) * self.scale
        attn = self.attend(dots)
        out = torch.matmul(attn, v)
        out = out.permute(0, 2, 1, 3).reshape(b, n, -1)
        return self.to_out(out)


class Transformer(nn.Module):
    def __init__(self, dim, depth, heads, dim_head, mlp_dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.layers = nn.ModuleList([])
        for _ in range(depth):
            self.layers.append(nn.ModuleList([Attention(dim, heads=heads, dim_head=dim_head),
                                              FeedForward(dim, mlp_dim)]))

    def forward(self, x):
        for attn, ff in self.layers:
            x = attn(x) + x
            x = ff(x) + x
        return self.norm(x)


class SimpleViT(nn.Module):
    def __init__(self, *, image_size, patch_size, num_classes, dim, depth, heads, mlp_dim, channels=3,
                 dim_head=64, pool="mean"):
        super().__init__()
        image_height, image_width = pair(image_size)
        patch_height, patch_width = pair(patch_size)
        assert image_height % patch_height == 0 and image_width % patch_width == 0, \
            'Image dimensions must be divisible by the patch size.'
        self.patch_height, self.patch_width = patch_height, patch_width
        patch_dim = channels * patch_height * patch_width
        self.to_patch_embedding = nn.Sequential(nn.LayerNorm(patch_dim), nn.Linear(patch_dim, dim), nn.LayerNorm(dim))
        self.register_buffer("pos_embedding", posemb_sincos_2d(h=image_height // patch_height,
                                                               w=image_width // patch_width, dim=dim),
                             persistent=False)
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim))
        self.transformer = Transformer(dim, depth, heads, dim_head, mlp_dim)
        self.pool = pool
        self.to_latent = nn.Identity()
        self.linear_head = nn.Linear(dim, num_classes)

    def patchify(self, img):
        # rearrange('b c (h p1) (w p2) -> b (h w) (p1 p2 c)')
        b, c, H, W = img.shape
        p1, p2 = self.patch_height, self.patch_width
        x = img.reshape(b, c, H // p1, p1, W // p2, p2)
        x = x.permute(0, 2, 4, 3, 5, 1)
        return x.reshape(b, (H // p1) * (W // p2), p1 * p2 * c)

    def forward(self, img):
        device = img.device
        x = self.to_patch_embedding(self.patchify(img))
        x = x + self.pos_embedding.to(device, dtype=x.dtype)
        if self.pool == "cls":
            cls_tokens = self.cls_token.expand(x.shape[0], -1, -1)   # repeat('1 1 d -> b 1 d')
            x = torch.cat((cls_tokens, x), dim=1)
        x = self.transformer(x)
        x = x[:, 0] if self.pool == "cls" else x.mean(dim=1)
        x = self.to_latent(x)
        return self.linear_head(x)


pe = posemb_sincos_2d(2, 3, 8)
print(pe)
assert pe.shape == (6, 8) and torch.allclose(pe[0], torch.tensor([0., 0., 1., 1., 0., 0., 1., 1.]))

torch.manual_seed(0)
v = SimpleViT(image_size=8, patch_size=4, num_classes=2, dim=32, depth=2, heads=4, mlp_dim=64,
              channels=1, dim_head=8)
img = torch.randn(3, 1, 8, 8)
patches = v.patchify(img)
assert patches.shape == (3, 4, 16)
assert torch.equal(patches[1, 1], img[1, 0, 0:4, 4:8].reshape(-1))
print(v(img).shape, "pos_embedding" in v.state_dict())


def stripes(n, g):
    imgs = torch.rand(n, 1, 8, 8, generator=g) * 0.3
    labels = torch.randint(0, 2, (n,), generator=g)
    for i in range(n):
        k = int(torch.randint(0, 8, (1,), generator=g))
        if labels[i] == 0:
            imgs[i, 0, k, :] += 1.0
        else:
            imgs[i, 0, :, k] += 1.0
    return imgs, labels


g = torch.Generator().manual_seed(0)
for pool in ("mean", "cls"):
    torch.manual_seed(0)
    model = SimpleViT(image_size=8, patch_size=2, num_classes=2, dim=32, depth=2, heads=4, mlp_dim=64,
                      channels=1, dim_head=8, pool=pool)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    for step in range(40):
        x, y = stripes(32, g)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    x, y = stripes(128, g)
    with torch.no_grad():
        acc = (model(x).argmax(-1) == y).float().mean().item()
    print(pool, f"loss {loss.item():.3f} acc {acc:.3f}")
    assert acc > 0.8


# x-transformers pieces
class RMSNorm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = dim ** 0.5
        self.g = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return F.normalize(x, dim=-1) * self.scale * self.g


class ScaleNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.g = nn.Parameter(torch.ones(1) * (dim ** -0.5))

    def forward(self, x):
        norm = torch.norm(x, dim=-1, keepdim=True)
        return x / norm.clamp(min=self.eps) * self.g


class GEGLU(nn.Module):
    def __init__(self, dim_in, dim_out):
        super().__init__()
        self.proj = nn.Linear(dim_in, dim_out * 2)

    def forward(self, x):
        x, gate = self.proj(x).chunk(2, dim=-1)
        return x * F.gelu(gate)


class RotaryEmbedding(nn.Module):
    def __init__(self, dim, base=10000):
        super().__init__()
        inv_freq = 1. / (base ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer('inv_freq', inv_freq)

    def forward(self, seq_len):
        t = torch.arange(seq_len, device=self.inv_freq.device).type_as(self.inv_freq)
        freqs = torch.einsum('i , j -> i j', t, self.inv_freq)
        return torch.stack((freqs, freqs), dim=-1).flatten(-2)   # '... d r -> ... (d r)'


def rotate_half(x):
    x = x.reshape(*x.shape[:-1], -1, 2)                        # '... (d r) -> ... d r', r = 2
    x1, x2 = x.unbind(dim=-1)
    x = torch.stack((-x2, x1), dim=-1)
    return x.flatten(-2)


def apply_rotary_pos_emb(t, freqs):
    return (t * freqs.cos()) + (rotate_half(t) * freqs.sin())


def alibi_slopes(heads):
    def get_slopes_power_of_2(n):
        start = (2 ** (-2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio ** i for i in range(n)]
    return torch.tensor(get_slopes_power_of_2(heads)).reshape(heads, 1, 1)


def alibi_bias(heads, i, j):
    i_arange = torch.arange(j - i, j)
    j_arange = torch.arange(j)
    bias = -torch.abs(j_arange[None, None, :] - i_arange[None, :, None])
    return bias * alibi_slopes(heads)


def attend(q, k, v, causal=True, attn_bias=None):
    scale = q.shape[-1] ** -0.5
    sim = torch.einsum('b h i d, b h j d -> b h i j', q, k) * scale
    if attn_bias is not None:
        sim = sim + attn_bias
    mask_value = -torch.finfo(sim.dtype).max
    if causal:
        i, j = sim.shape[-2:]
        causal_mask = torch.ones((i, j), dtype=torch.bool).triu(j - i + 1)
        sim = sim.masked_fill(causal_mask, mask_value)
    attn = sim.softmax(dim=-1)
    return torch.einsum('b h i j, b h j d -> b h i d', attn, v)


x = torch.randn(2, 5, 16)
print(RMSNorm(16)(x).pow(2).mean(-1)[0])
assert torch.allclose(RMSNorm(16)(x).pow(2).mean(-1), torch.ones(2, 5), atol=1e-4)
assert torch.allclose(ScaleNorm(16)(x).norm(dim=-1), torch.full((2, 5), 0.25), atol=1e-5)
assert GEGLU(16, 32)(x).shape == (2, 5, 32)

rot = RotaryEmbedding(8)
freqs = rot(5)
q = torch.randn(2, 4, 5, 8)
k = torch.randn(2, 4, 5, 8)
qr, kr = apply_rotary_pos_emb(q, freqs), apply_rotary_pos_emb(k, freqs)
assert torch.allclose(qr.norm(dim=-1), q.norm(dim=-1), atol=1e-5)   # rotations keep lengths
# relative: shifting both positions by the same offset leaves q.k unchanged
f_all = rot(8)
d1 = (apply_rotary_pos_emb(q[..., 1:2, :], f_all[1:2]) * apply_rotary_pos_emb(k[..., 0:1, :], f_all[0:1])).sum(-1)
d2 = (apply_rotary_pos_emb(q[..., 1:2, :], f_all[4:5]) * apply_rotary_pos_emb(k[..., 0:1, :], f_all[3:4])).sum(-1)
assert torch.allclose(d1, d2, atol=1e-5)

print(alibi_slopes(4).flatten())
bias = alibi_bias(4, 5, 5)
print(bias[0])
out = attend(qr, kr, torch.randn(2, 4, 5, 8), causal=True, attn_bias=bias)
ref = F.scaled_dot_product_attention(qr, kr, out.new_zeros(()).expand(2, 4, 5, 8) + 0, is_causal=True)
assert out.shape == (2, 4, 5, 8) and ref.shape == out.shape
vv = torch.randn(2, 4, 5, 8)
mine = attend(qr, kr, vv, causal=True)
theirs = F.scaled_dot_product_attention(qr, kr, vv, is_causal=True)
torch.testing.assert_close(mine, theirs, rtol=1e-4, atol=1e-5)
with_bias = F.scaled_dot_product_attention(qr, kr, vv, attn_mask=bias + torch.zeros(5, 5).masked_fill(
    torch.ones(5, 5, dtype=torch.bool).triu(1), float("-inf")))
torch.testing.assert_close(attend(qr, kr, vv, causal=True, attn_bias=bias), with_bias, rtol=1e-4, atol=1e-5)
