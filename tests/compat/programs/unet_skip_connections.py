"""A miniature U-Net: Conv2d + GroupNorm + SiLU blocks, MaxPool2d down, nn.Upsample(scale_factor=2)
up, torch.cat skip connections along channels, nn.Identity as a no-op branch; trained to denoise."""
import torch
import torch.nn as nn


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.GroupNorm(2, cout), nn.SiLU())


class MiniUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.down1 = block(1, 8)
        self.down2 = block(8, 16)
        self.pool = nn.MaxPool2d(2)
        self.up = nn.Upsample(scale_factor=2, mode='nearest')
        self.dec = block(16 + 8, 8)
        self.out = nn.Conv2d(8, 1, 1)
        self.skip = nn.Identity()

    def forward(self, x):
        d1 = self.down1(x)
        d2 = self.down2(self.pool(d1))
        u = self.up(d2)
        return self.out(self.dec(torch.cat([u, self.skip(d1)], dim=1)))


torch.manual_seed(0)
clean = torch.zeros(8, 1, 8, 8)
clean[:, :, 2:6, 2:6] = 1.0
noisy = clean + 0.3 * torch.randn_like(clean)
model = MiniUNet()
assert model(noisy).shape == clean.shape
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
first = None
for _ in range(40):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(noisy), clean)
    first = first or loss.item()
    loss.backward()
    opt.step()
assert loss.item() < first / 3
