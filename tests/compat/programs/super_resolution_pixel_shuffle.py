"""pytorch/examples super_resolution: the sub-pixel CNN (Conv2d with tuple kernel/stride/padding
arguments, nn.PixelShuffle(upscale_factor)), _initialize_weights with init.orthogonal_(weight,
init.calculate_gain('relu')), MSELoss training with Adam, PSNR as 10 * log10(1 / mse.item()),
evaluation under torch.no_grad(), and torch.save/torch.load of the model's state_dict. The BSDS300
images are swapped for smooth synthetic images downsampled by average pooling."""
import io
from math import log10

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.init as init
import torch.optim as optim


class Net(nn.Module):
    def __init__(self, upscale_factor):
        super(Net, self).__init__()
        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 16, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(16, 16, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(16, 8, (3, 3), (1, 1), (1, 1))
        self.conv4 = nn.Conv2d(8, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)
        self._initialize_weights()

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.relu(self.conv3(x))
        x = self.pixel_shuffle(self.conv4(x))
        return x

    def _initialize_weights(self):
        init.orthogonal_(self.conv1.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv2.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv3.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv4.weight)


torch.manual_seed(123)
upscale_factor = 2


def make_images(n, size=16):
    ys, xs = torch.meshgrid(torch.linspace(0, 1, size), torch.linspace(0, 1, size), indexing="ij")
    freq = torch.rand(n, 2, 1, 1) * 4 + 1
    phase = torch.rand(n, 1, 1, 1) * 6.28
    img = 0.5 + 0.5 * torch.sin(freq[:, :1] * xs * 6.28 + phase) * torch.cos(freq[:, 1:] * ys * 3.14)
    return img


targets = make_images(64)
inputs = F.avg_pool2d(targets, upscale_factor)
assert inputs.shape == (64, 1, 8, 8) and targets.shape == (64, 1, 16, 16)
model = Net(upscale_factor=upscale_factor)
w = model.conv2.weight.view(16, -1)
assert torch.allclose(w @ w.t(), 2.0 * torch.eye(16), atol=1e-4)
criterion = nn.MSELoss()
optimizer = optim.Adam(model.parameters(), lr=0.003)


def test():
    avg_psnr = 0
    with torch.no_grad():
        for i in range(0, 64, 16):
            prediction = model(inputs[i:i + 16])
            mse = criterion(prediction, targets[i:i + 16])
            psnr = 10 * log10(1 / mse.item())
            avg_psnr += psnr
    return avg_psnr / 4


before = test()
for epoch in range(1, 16):
    epoch_loss = 0
    for i in range(0, 64, 16):
        input, target = inputs[i:i + 16], targets[i:i + 16]
        optimizer.zero_grad()
        loss = criterion(model(input), target)
        epoch_loss += loss.item()
        loss.backward()
        optimizer.step()
after = test()
bicubic = 10 * log10(1 / F.mse_loss(F.interpolate(inputs, scale_factor=2, mode='nearest'), targets).item())
print(f"PSNR {before:.2f} dB -> {after:.2f} dB (nearest-neighbour upscaling: {bicubic:.2f} dB)")
assert after > before + 5

buffer = io.BytesIO()
torch.save(model.state_dict(), buffer)
buffer.seek(0)
restored = Net(upscale_factor)
restored.load_state_dict(torch.load(buffer, weights_only=True))
with torch.no_grad():
    assert torch.equal(restored(inputs[:2]), model(inputs[:2]))
