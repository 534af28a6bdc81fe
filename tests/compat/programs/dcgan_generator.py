"""DCGAN's generator on a small scale: nn.ConvTranspose2d(bias=False) + BatchNorm2d + ReLU stacks
from a (N, nz, 1, 1) noise tensor to a Tanh image, and weights_init with m.__class__.__name__."""
import torch
import torch.nn as nn

nz, ngf, nc = 8, 4, 3


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Conv') != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find('BatchNorm') != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 4, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 4),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, nc, 4, 2, 1, bias=False),
            nn.Tanh()
        )

    def forward(self, input):
        return self.main(input)


torch.manual_seed(0)
netG = Generator()
netG.apply(weights_init)
fixed_noise = torch.randn(5, nz, 1, 1)
fake = netG(fixed_noise)
assert fake.shape == (5, nc, 16, 16) and fake.abs().max() <= 1
assert abs(netG.main[0].weight.std().item() - 0.02) < 0.005
fake.mean().backward()
assert netG.main[0].weight.grad.shape == (nz, ngf * 4, 4, 4)
