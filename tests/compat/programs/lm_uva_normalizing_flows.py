"""UvA Deep Learning tutorial 11 (Normalizing Flows for image modeling, Phillip Lippe) without
Lightning, on tiny 4x4 "images" with 8 grey levels: ImageFlow with
torch.distributions.normal.Normal(loc=0.0, scale=1.0) as prior, _get_likelihood summing
log_prob over dim=[1, 2, 3] and bits per dimension with np.log2(np.exp(1)) / np.prod(shape[1:]),
sample() from prior.sample(sample_shape=...), Dequantization (torch.rand_like(z).detach(),
sigmoid with ldj += (-z - 2 * F.softplus(-z)).sum(dim=[1, 2, 3]), the inverse via torch.log and
np.log(1 - alpha), torch.floor(z).clamp(min=0, max=quants - 1).to(torch.int32)), CouplingLayer
with a registered mask buffer and scaling_factor = nn.Parameter(torch.zeros(c_in)) (s =
torch.tanh(s / s_fac) * s_fac), create_checkerboard_mask (torch.meshgrid(x, y, indexing='ij'),
torch.fmod(xx + yy, 2)) and create_channel_mask, ConcatELU (torch.cat([F.elu(x), F.elu(-x)],
dim=1)), LayerNormChannels (permute around nn.LayerNorm), GatedConv (out.chunk(2, dim=1), val *
torch.sigmoid(gate)), GatedConvNet zero-initialising its last conv (layers[-1].weight.data.
zero_()), SqueezeFlow (reshape / permute to 4C x H/2 x W/2 and back), SplitFlow, and training
with optim.Adam plus StepLR(step_size=1, gamma=0.99)."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class ImageFlow(nn.Module):
    def __init__(self, flows, import_samples=8):
        super().__init__()
        self.flows = nn.ModuleList(flows)
        self.import_samples = import_samples
        self.prior = torch.distributions.normal.Normal(loc=0.0, scale=1.0)

    def forward(self, imgs):
        return self._get_likelihood(imgs)

    def encode(self, imgs):
        z, ldj = imgs, torch.zeros(imgs.shape[0], device=imgs.device)
        for flow in self.flows:
            z, ldj = flow(z, ldj, reverse=False)
        return z, ldj

    def _get_likelihood(self, imgs, return_ll=False):
        z, ldj = self.encode(imgs)
        log_pz = self.prior.log_prob(z).sum(dim=[1, 2, 3])
        log_px = ldj + log_pz
        nll = -log_px
        bpd = nll * np.log2(np.exp(1)) / np.prod(imgs.shape[1:])
        return bpd.mean() if not return_ll else log_px

    @torch.no_grad()
    def sample(self, img_shape, z_init=None):
        if z_init is None:
            z = self.prior.sample(sample_shape=img_shape)
        else:
            z = z_init
        ldj = torch.zeros(img_shape[0])
        for flow in reversed(self.flows):
            z, ldj = flow(z, ldj, reverse=True)
        return z


class Dequantization(nn.Module):
    def __init__(self, alpha=1e-5, quants=256):
        super().__init__()
        self.alpha = alpha
        self.quants = quants

    def forward(self, z, ldj, reverse=False):
        if not reverse:
            z, ldj = self.dequant(z, ldj)
            z, ldj = self.sigmoid(z, ldj, reverse=True)
        else:
            z, ldj = self.sigmoid(z, ldj, reverse=False)
            z = z * self.quants
            ldj += np.log(self.quants) * np.prod(z.shape[1:])
            z = torch.floor(z).clamp(min=0, max=self.quants - 1).to(torch.int32)
        return z, ldj

    def sigmoid(self, z, ldj, reverse=False):
        if not reverse:
            ldj += (-z - 2 * F.softplus(-z)).sum(dim=[1, 2, 3])
            z = torch.sigmoid(z)
        else:
            z = z * (1 - self.alpha) + 0.5 * self.alpha
            ldj += np.log(1 - self.alpha) * np.prod(z.shape[1:])
            ldj += (-torch.log(z) - torch.log(1 - z)).sum(dim=[1, 2, 3])
            z = torch.log(z) - torch.log(1 - z)
        return z, ldj

    def dequant(self, z, ldj):
        z = z.to(torch.float32)
        z = z + torch.rand_like(z).detach()
        z = z / self.quants
        ldj -= np.log(self.quants) * np.prod(z.shape[1:])
        return z, ldj


class CouplingLayer(nn.Module):
    def __init__(self, network, mask, c_in):
        super().__init__()
        self.network = network
        self.scaling_factor = nn.Parameter(torch.zeros(c_in))
        self.register_buffer('mask', mask)

    def forward(self, z, ldj, reverse=False, orig_img=None):
        z_in = z * self.mask
        if orig_img is None:
            nn_out = self.network(z_in)
        else:
            nn_out = self.network(torch.cat([z_in, orig_img], dim=1))
        s, t = nn_out.chunk(2, dim=1)
        s_fac = self.scaling_factor.exp().view(1, -1, 1, 1)
        s = torch.tanh(s / s_fac) * s_fac
        s = s * (1 - self.mask)
        t = t * (1 - self.mask)
        if not reverse:
            z = (z + t) * torch.exp(s)
            ldj += s.sum(dim=[1, 2, 3])
        else:
            z = (z * torch.exp(-s)) - t
            ldj -= s.sum(dim=[1, 2, 3])
        return z, ldj


def create_checkerboard_mask(h, w, invert=False):
    x, y = torch.arange(h, dtype=torch.int32), torch.arange(w, dtype=torch.int32)
    xx, yy = torch.meshgrid(x, y, indexing='ij')
    mask = torch.fmod(xx + yy, 2)
    mask = mask.to(torch.float32).view(1, 1, h, w)
    if invert:
        mask = 1 - mask
    return mask


def create_channel_mask(c_in, invert=False):
    mask = torch.cat([torch.ones(c_in // 2, dtype=torch.float32),
                      torch.zeros(c_in - c_in // 2, dtype=torch.float32)])
    mask = mask.view(1, c_in, 1, 1)
    if invert:
        mask = 1 - mask
    return mask


class ConcatELU(nn.Module):
    def forward(self, x):
        return torch.cat([F.elu(x), F.elu(-x)], dim=1)


class LayerNormChannels(nn.Module):
    def __init__(self, c_in, eps=1e-5):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(1, c_in, 1, 1))
        self.beta = nn.Parameter(torch.zeros(1, c_in, 1, 1))
        self.eps = eps

    def forward(self, x):
        mean = x.mean(dim=1, keepdim=True)
        var = x.var(dim=1, unbiased=False, keepdim=True)
        y = (x - mean) / torch.sqrt(var + self.eps)
        y = y * self.gamma + self.beta
        return y


class GatedConv(nn.Module):
    def __init__(self, c_in, c_hidden):
        super().__init__()
        self.net = nn.Sequential(
            ConcatELU(),
            nn.Conv2d(2 * c_in, c_hidden, kernel_size=3, padding=1),
            ConcatELU(),
            nn.Conv2d(2 * c_hidden, 2 * c_in, kernel_size=1)
        )

    def forward(self, x):
        out = self.net(x)
        val, gate = out.chunk(2, dim=1)
        return x + val * torch.sigmoid(gate)


class GatedConvNet(nn.Module):
    def __init__(self, c_in, c_hidden=32, c_out=-1, num_layers=2):
        super().__init__()
        c_out = c_out if c_out > 0 else 2 * c_in
        layers = []
        layers += [nn.Conv2d(c_in, c_hidden, kernel_size=3, padding=1)]
        for layer_index in range(num_layers):
            layers += [GatedConv(c_hidden, c_hidden), LayerNormChannels(c_hidden)]
        layers += [ConcatELU(), nn.Conv2d(2 * c_hidden, c_out, kernel_size=3, padding=1)]
        self.nn = nn.Sequential(*layers)
        self.nn[-1].weight.data.zero_()
        self.nn[-1].bias.data.zero_()

    def forward(self, x):
        return self.nn(x)


class SqueezeFlow(nn.Module):
    def forward(self, z, ldj, reverse=False):
        B, C, H, W = z.shape
        if not reverse:
            z = z.reshape(B, C, H // 2, 2, W // 2, 2)
            z = z.permute(0, 1, 3, 5, 2, 4)
            z = z.reshape(B, 4 * C, H // 2, W // 2)
        else:
            z = z.reshape(B, C // 4, 2, 2, H, W)
            z = z.permute(0, 1, 4, 2, 5, 3)
            z = z.reshape(B, C // 4, H * 2, W * 2)
        return z, ldj


class SplitFlow(nn.Module):
    def __init__(self):
        super().__init__()
        self.prior = torch.distributions.normal.Normal(loc=0.0, scale=1.0)

    def forward(self, z, ldj, reverse=False):
        if not reverse:
            z, z_split = z.chunk(2, dim=1)
            ldj += self.prior.log_prob(z_split).sum(dim=[1, 2, 3])
        else:
            z_split = self.prior.sample(sample_shape=z.shape).to(z.device)
            z = torch.cat([z, z_split], dim=1)
            ldj -= self.prior.log_prob(z_split).sum(dim=[1, 2, 3])
        return z, ldj


print(create_checkerboard_mask(4, 4))
print(create_channel_mask(4).flatten())

sq_flow = SqueezeFlow()
rand_img = torch.arange(1, 17).view(1, 1, 4, 4)
print("Image (before)\n", rand_img)
forward_img, _ = sq_flow(rand_img, ldj=None, reverse=False)
print("\nImage (forward)\n", forward_img.permute(0, 2, 3, 1))
reconst_img, _ = sq_flow(forward_img, ldj=None, reverse=True)
assert torch.equal(reconst_img, rand_img)

torch.manual_seed(42)
np.random.seed(42)
QUANTS = 8


def create_multiscale_flow():
    flow_layers = []
    flow_layers += [Dequantization(quants=QUANTS)]
    flow_layers += [CouplingLayer(network=GatedConvNet(c_in=1, c_hidden=8),
                                  mask=create_checkerboard_mask(h=4, w=4, invert=(i % 2 == 1)),
                                  c_in=1) for i in range(2)]
    flow_layers += [SqueezeFlow()]
    for i in range(2):
        flow_layers += [CouplingLayer(network=GatedConvNet(c_in=4, c_hidden=16),
                                      mask=create_channel_mask(c_in=4, invert=(i % 2 == 1)),
                                      c_in=4)]
    flow_layers += [SplitFlow(), SqueezeFlow()]
    flow_layers += [CouplingLayer(network=GatedConvNet(c_in=8, c_hidden=16),
                                  mask=create_channel_mask(c_in=8, invert=(i % 2 == 1)),
                                  c_in=8) for i in range(2)]
    return ImageFlow(flow_layers)


flow = create_multiscale_flow()
print(sum(p.numel() for p in flow.parameters()), [k for k in flow.state_dict() if k.endswith("mask")][:2])

# the flow is invertible: encode then run the layers backwards (skipping the random split)
imgs = torch.randint(0, QUANTS, (5, 1, 4, 4))
with torch.no_grad():
    z, ldj = imgs, torch.zeros(5)
    for f in flow.flows[:6]:
        z, ldj = f(z, ldj)
    back, _ = z, torch.zeros(5)
    for f in reversed(flow.flows[:6]):
        back, _ = f(back, torch.zeros(5), reverse=True)
assert torch.equal(back, imgs.to(torch.int32)), (back, imgs)

# data: vertical bars of random grey levels
def batch(n):
    lv = torch.randint(0, QUANTS, (n, 1, 1, 4))
    return lv.expand(n, 1, 4, 4).clone()

optimizer = optim.Adam(flow.parameters(), lr=1e-2)
scheduler = optim.lr_scheduler.StepLR(optimizer, 1, gamma=0.99)
first = None
for step in range(40):
    loss = flow(batch(32))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()
    first = first if first is not None else loss.item()
    if step % 10 == 0:
        print(f"step {step}: bpd {loss.item():.3f}")
print(f"bpd {first:.3f} -> {loss.item():.3f}")
assert loss.item() < first
samples = flow.sample(img_shape=[4, 8, 1, 1])
print(samples.shape, samples.dtype)
assert samples.shape == (4, 1, 4, 4) and samples.dtype == torch.int32
assert samples.min() >= 0 and samples.max() < QUANTS
