"""A Fourier Neural Operator at toy size, written the way the FNO reference code writes its
spectral convolution: rfft of the signal, a learned complex matrix (cfloat Parameter) on the
lowest modes via einsum, the other modes zero in a torch.zeros(..., dtype=torch.cfloat), and
irfft(n=...) back. The 1-D model learns the periodic heat equation's solution operator (which
is diagonal in Fourier space) from random initial conditions with Adam; a 2-D layer uses
rfft2/irfft2 with the two corner blocks of modes. Also: FFT convolution equals circular
convolution, with gradients; Parseval's identity with norm='ortho'."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class SpectralConv1d(nn.Module):
    def __init__(self, in_channels, out_channels, modes):
        super().__init__()
        self.in_channels, self.out_channels, self.modes = in_channels, out_channels, modes
        self.scale = 1 / (in_channels * out_channels)
        self.weights = nn.Parameter(
            self.scale * torch.rand(in_channels, out_channels, modes, dtype=torch.cfloat))

    @staticmethod
    def compl_mul1d(inputs, weights):
        # (batch, in_channel, x), (in_channel, out_channel, x) -> (batch, out_channel, x)
        return torch.einsum("bix,iox->box", inputs, weights)

    def forward(self, x):
        batchsize = x.shape[0]
        x_ft = torch.fft.rfft(x)
        out_ft = torch.zeros(batchsize, self.out_channels, x.size(-1) // 2 + 1,
                             device=x.device, dtype=torch.cfloat)
        out_ft[:, :, :self.modes] = self.compl_mul1d(x_ft[:, :, :self.modes], self.weights)
        return torch.fft.irfft(out_ft, n=x.size(-1))


class FNO1d(nn.Module):
    def __init__(self, modes, width):
        super().__init__()
        self.fc0 = nn.Linear(2, width)               # (u0(x), x)
        self.convs = nn.ModuleList(SpectralConv1d(width, width, modes) for _ in range(2))
        self.ws = nn.ModuleList(nn.Conv1d(width, width, 1) for _ in range(2))
        self.fc1 = nn.Linear(width, 32)
        self.fc2 = nn.Linear(32, 1)

    def forward(self, x):
        grid = torch.linspace(0, 1, x.shape[1]).reshape(1, -1, 1).repeat(x.shape[0], 1, 1)
        x = self.fc0(torch.cat((x, grid), dim=-1)).permute(0, 2, 1)
        for i, (conv, w) in enumerate(zip(self.convs, self.ws)):
            x = conv(x) + w(x)
            if i < len(self.convs) - 1:
                x = F.gelu(x)
        x = self.fc2(F.gelu(self.fc1(x.permute(0, 2, 1))))
        return x


class SpectralConv2d(nn.Module):
    def __init__(self, in_channels, out_channels, modes1, modes2):
        super().__init__()
        self.out_channels, self.modes1, self.modes2 = out_channels, modes1, modes2
        scale = 1 / (in_channels * out_channels)
        self.weights1 = nn.Parameter(
            scale * torch.rand(in_channels, out_channels, modes1, modes2, dtype=torch.cfloat))
        self.weights2 = nn.Parameter(
            scale * torch.rand(in_channels, out_channels, modes1, modes2, dtype=torch.cfloat))

    def forward(self, x):
        b = x.shape[0]
        x_ft = torch.fft.rfft2(x)
        out_ft = torch.zeros(b, self.out_channels, x.size(-2), x.size(-1) // 2 + 1,
                             dtype=torch.cfloat, device=x.device)
        mul = lambda a, w: torch.einsum("bixy,ioxy->boxy", a, w)
        out_ft[:, :, :self.modes1, :self.modes2] = mul(
            x_ft[:, :, :self.modes1, :self.modes2], self.weights1)
        out_ft[:, :, -self.modes1:, :self.modes2] = mul(
            x_ft[:, :, -self.modes1:, :self.modes2], self.weights2)
        return torch.fft.irfft2(out_ft, s=(x.size(-2), x.size(-1)))


torch.manual_seed(0)
n, batch = 32, 24
k = torch.fft.rfftfreq(n, d=1.0 / n)                      # integer wavenumbers 0..n/2
decay = torch.exp(-0.01 * (2 * math.pi * k) ** 2)          # heat kernel at t = 0.01


def heat(u0):
    return torch.fft.irfft(torch.fft.rfft(u0) * decay, n=u0.shape[-1])


def random_fields(count):
    coeffs = torch.randn(count, 6, dtype=torch.cfloat) / (1 + torch.arange(6.0))
    spec = torch.zeros(count, n // 2 + 1, dtype=torch.cfloat)
    spec[:, 1:7] = coeffs
    return torch.fft.irfft(spec, n=n, norm="forward")

u0 = random_fields(batch)
u1 = heat(u0)
assert u0.dtype == torch.float32 and u1.shape == (batch, n)
# Parseval with norm="ortho": the transform keeps the energy
full = torch.fft.fft(u0, norm="ortho")
assert torch.allclose((full.abs() ** 2).sum(-1), (u0 ** 2).sum(-1), rtol=1e-4)
# FFT convolution is circular convolution, values and gradients
sig = torch.randn(n, requires_grad=True)
ker = torch.randn(n, requires_grad=True)
via_fft = torch.fft.irfft(torch.fft.rfft(sig) * torch.fft.rfft(ker), n=n)
direct = torch.stack([(sig * torch.roll(torch.flip(ker, [0]), s + 1)).sum() for s in range(n)])
assert torch.allclose(via_fft, direct, atol=1e-4)
g = torch.randn(n)
ga = torch.autograd.grad(via_fft, (sig, ker), g)
gb = torch.autograd.grad(direct, (sig, ker), g)
assert all(torch.allclose(a, b, atol=1e-4) for a, b in zip(ga, gb))

model = FNO1d(modes=8, width=12)
assert all(p.dtype == torch.cfloat for c in model.convs for p in c.parameters())
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
x, y = u0.unsqueeze(-1), u1.unsqueeze(-1)
losses = []
for step in range(60):
    opt.zero_grad()
    loss = F.mse_loss(model(x), y) / (y ** 2).mean()
    loss.backward()
    opt.step()
    losses.append(loss.item())
assert losses[-1] < 0.2 * losses[0], (losses[0], losses[-1])
assert model.convs[0].weights.grad.dtype == torch.cfloat
state = opt.state[model.convs[0].weights]
assert state["exp_avg"].dtype == torch.cfloat and state["exp_avg_sq"].dtype == torch.cfloat
with torch.no_grad():
    test = random_fields(8)
    err = ((model(test.unsqueeze(-1)).squeeze(-1) - heat(test)) ** 2).mean() / (heat(test) ** 2).mean()
assert err < 0.3, err.item()

layer = SpectralConv2d(3, 4, modes1=3, modes2=3)
img = torch.randn(2, 3, 8, 10, requires_grad=True)
out = layer(img)
assert out.shape == (2, 4, 8, 10) and out.dtype == torch.float32
out.square().sum().backward()
assert img.grad.shape == img.shape and layer.weights2.grad.dtype == torch.cfloat
# a shifted input gives a shifted output: the spectral layer is translation-equivariant
shifted = layer(torch.roll(img.detach(), 3, dims=-1))
assert torch.allclose(shifted, torch.roll(out.detach(), 3, dims=-1), atol=1e-5)
print(f"FNO: loss {losses[0]:.3f} -> {losses[-1]:.4f}, test relative error {err.item():.4f}")
