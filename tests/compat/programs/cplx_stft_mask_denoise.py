"""Speech-enhancement style denoising at toy size, the way spectral-masking recipes write it:
torch.stft with a Hann window to a complex spectrogram, a small network that predicts a
time-frequency mask from the log-magnitude, the mask applied to the magnitude while the noisy
phase is kept (torch.polar(mag * mask, angle)), torch.istft back to a waveform, and an L1 +
spectral-convergence loss trained with Adam. Checks: istft(stft(x)) == x, the SNR improves."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
n_fft, hop, length, batch = 64, 16, 512, 8
window = torch.hann_window(n_fft)
t = torch.arange(length) / 8000.0


def clean_batch(count):
    freqs = 200 + 1500 * torch.rand(count, 3, 1)
    amps = 0.3 + torch.rand(count, 3, 1)
    phases = 2 * math.pi * torch.rand(count, 3, 1)
    return (amps * torch.sin(2 * math.pi * freqs * t + phases)).sum(1) / 3


def spectrogram(x):
    return torch.stft(x, n_fft, hop_length=hop, window=window, return_complex=True)


def waveform(spec):
    return torch.istft(spec, n_fft, hop_length=hop, window=window, length=length)


def snr_db(ref, est):
    return 10 * torch.log10((ref ** 2).sum(-1) / ((ref - est) ** 2).sum(-1))


class MaskNet(nn.Module):
    def __init__(self, bins=n_fft // 2 + 1, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Conv1d(bins, hidden, 3, padding=1), nn.ReLU(),
                                 nn.Conv1d(hidden, bins, 3, padding=1))

    def forward(self, noisy):
        spec = spectrogram(noisy)                          # (batch, bins, frames), complex64
        mag, phase = spec.abs(), spec.angle()
        mask = torch.sigmoid(self.net(torch.log1p(mag)))
        return waveform(torch.polar(mag * mask, phase)), spec


x = clean_batch(batch)
spec = spectrogram(x)
assert spec.dtype == torch.complex64 and spec.shape == (batch, n_fft // 2 + 1, length // hop + 1)
assert torch.allclose(waveform(spec), x, atol=1e-5)
# the same spectrogram through view_as_real: (real, imaginary) pairs in the last dim
pairs = torch.view_as_real(spec)
assert pairs.shape == (*spec.shape, 2)
assert torch.allclose(torch.sqrt(pairs.pow(2).sum(-1)), spec.abs(), atol=1e-6)

model = MaskNet()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
history = []
for step in range(40):
    clean = clean_batch(batch)
    noisy = clean + 0.3 * torch.randn(batch, length)
    est, noisy_spec = model(noisy)
    est_spec = spectrogram(est)
    clean_spec = spectrogram(clean)
    sc = torch.linalg.vector_norm(clean_spec.abs() - est_spec.abs()) / \
        torch.linalg.vector_norm(clean_spec.abs())
    loss = F.l1_loss(est, clean) + sc
    opt.zero_grad()
    loss.backward()
    opt.step()
    history.append(loss.item())
assert history[-1] < history[0], (history[0], history[-1])

with torch.no_grad():
    clean = clean_batch(16)
    noisy = clean + 0.3 * torch.randn(16, length)
    est, _ = model(noisy)
    before, after = snr_db(clean, noisy).mean().item(), snr_db(clean, est).mean().item()
assert after > before + 3.0, (before, after)
print(f"mask denoiser: loss {history[0]:.3f} -> {history[-1]:.3f}, "
      f"SNR {before:.1f} dB -> {after:.1f} dB")
