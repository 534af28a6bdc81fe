"""lucidrains/vit-pytorch, vit_pytorch/simple_vit.py (SimpleViT, "Better plain ViT baselines"),
trained a few steps on synthetic 16x16 images. einops' rearrange and the Rearrange layer are
written with the torch ops they stand for (reshape / permute in a small nn.Module).

APIs: torch.meshgrid(..., indexing="ij"), posemb_sincos_2d (y.flatten()[:, None] * omega[None, :],
torch.cat((x.sin(), x.cos(), y.sin(), y.cos()), dim=1), pe.type(dtype)), nn.Sequential with
nn.LayerNorm / nn.Linear / nn.GELU, nn.Softmax(dim = -1) as a module, to_qkv(x).chunk(3, dim = -1)
with map(lambda ...), torch.matmul(q, k.transpose(-1, -2)) * scale, nn.ModuleList of
nn.ModuleList pairs unpacked in a for loop, x += self.pos_embedding.to(device) (in place on a
non-leaf), x.mean(dim = 1), nn.Identity, keyword-only constructor, AdamW + cross_entropy.
"""
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


class Rearrange(nn.Module):
    """einops.layers.torch.Rearrange("b c (h p1) (w p2) -> b (h w) (p1 p2 c)")"""

    def __init__(self, p1, p2):
        super().__init__()
        self.p1, self.p2 = p1, p2

    def forward(self, img):
        b, c, H, W = img.shape
        h, w = H // self.p1, W // self.p2
        x = img.reshape(b, c, h, self.p1, w, self.p2)
        x = x.permute(0, 2, 4, 3, 5, 1)                # b h w p1 p2 c
        return x.reshape(b, h * w, self.p1 * self.p2 * c)


class FeedForward(nn.Module):
    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.net = nn.Sequential(
            nn.LayerNorm(dim),
            nn.Linear(dim, hidden_dim),
            nn.GELU(),
            nn.Linear(hidden_dim, dim),
        )

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
        # rearrange(t, 'b n (h d) -> b h n d', h = self.heads)
        q, k, v = map(lambda t: t.unflatten(-1, (self.heads, -1)).transpose(1, 2), qkv)
        dots = torch.matmul(q, k.transpose(-1, -2)) * self.scale
        attn = self.attend(dots)
        out = torch.matmul(attn, v)
        out = out.transpose(1, 2).flatten(2)           # 'b h n d -> b n (h d)'
        return self.to_out(out)


class Transformer(nn.Module):
    def __init__(self, dim, depth, heads, dim_head, mlp_dim):
        super().__init__()
        self.layers = nn.ModuleList([])
        for _ in range(depth):
            self.layers.append(nn.ModuleList([
                Attention(dim, heads=heads, dim_head=dim_head),
                FeedForward(dim, mlp_dim)
            ]))

    def forward(self, x):
        for attn, ff in self.layers:
            x = attn(x) + x
            x = ff(x) + x
        return x


class SimpleViT(nn.Module):
    def __init__(self, *, image_size, patch_size, num_classes, dim, depth, heads, mlp_dim,
                 channels=3, dim_head=64):
        super().__init__()
        image_height, image_width = pair(image_size)
        patch_height, patch_width = pair(patch_size)
        assert image_height % patch_height == 0 and image_width % patch_width == 0, \
            'Image dimensions must be divisible by the patch size.'
        num_patches = (image_height // patch_height) * (image_width // patch_width)
        patch_dim = channels * patch_height * patch_width

        self.to_patch_embedding = nn.Sequential(
            Rearrange(p1=patch_height, p2=patch_width),
            nn.LayerNorm(patch_dim),
            nn.Linear(patch_dim, dim),
            nn.LayerNorm(dim),
        )
        self.pos_embedding = posemb_sincos_2d(
            h=image_height // patch_height,
            w=image_width // patch_width,
            dim=dim,
        )
        self.transformer = Transformer(dim, depth, heads, dim_head, mlp_dim)
        self.to_latent = nn.Identity()
        self.linear_head = nn.Sequential(
            nn.LayerNorm(dim),
            nn.Linear(dim, num_classes)
        )

    def forward(self, img):
        device = img.device
        x = self.to_patch_embedding(img)
        x += self.pos_embedding.to(device)
        x = self.transformer(x)
        x = x.mean(dim=1)
        x = self.to_latent(x)
        return self.linear_head(x)


torch.manual_seed(0)
pe = posemb_sincos_2d(4, 4, 16)
assert pe.shape == (16, 16) and pe.dtype == torch.float32
assert torch.allclose(pe[0], torch.tensor([0., 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1]))
assert posemb_sincos_2d(2, 2, 8, dtype=torch.float64).dtype == torch.float64

v = SimpleViT(image_size=16, patch_size=4, num_classes=3, dim=32, depth=2, heads=4,
              mlp_dim=64, dim_head=8)
img = torch.randn(2, 3, 16, 16)
assert v(img).shape == (2, 3)
# the patch rearrangement is the einops one: patch (0, 1) of image 0, pixel (p1, p2, c)
patches = v.to_patch_embedding[0](img)
assert patches.shape == (2, 16, 48)
assert torch.equal(patches[0, 1].view(4, 4, 3), img[0, :, 0:4, 4:8].permute(1, 2, 0))
assert 'pos_embedding' not in v.state_dict()   # a plain attribute, neither buffer nor parameter

# a learnable toy task: the class is which third of the image is bright
N = 24
labels = torch.arange(N) % 3
images = torch.randn(N, 3, 16, 16) * 0.3
for i, c in enumerate(labels.tolist()):
    images[i, :, :, c * 5:c * 5 + 5] += 1.5
opt = torch.optim.AdamW(v.parameters(), lr=3e-3)
for epoch in range(15):
    logits = v(images)
    loss = F.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
acc = (v(images).argmax(dim=-1) == labels).float().mean().item()
assert acc > 0.9, (acc, loss.item())
print("simple vit ok", loss.item(), acc)
