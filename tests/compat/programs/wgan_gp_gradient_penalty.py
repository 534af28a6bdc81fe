"""WGAN-GP as the popular PyTorch implementations write it (eriklindernoren's PyTorch-GAN
wgan_gp.py and its descendants): compute_gradient_penalty with alpha = torch.rand(n, 1),
interpolates = (alpha * real + ((1 - alpha) * fake)).requires_grad_(True),
autograd.grad(outputs=, inputs=, grad_outputs=torch.ones(...), create_graph=True,
retain_graph=True, only_inputs=True)[0], ((gradients.norm(2, dim=1) - 1) ** 2).mean(),
a critic with LeakyReLU(0.2, inplace=True) and LayerNorm (no batchnorm), Adam with
betas=(0.0, 0.9), n_critic steps per generator step, fake.detach(), and the original WGAN's
weight clipping p.data.clamp_(-c, c) for comparison."""
import numpy as np
import torch
import torch.autograd as autograd
import torch.nn as nn

torch.manual_seed(0)
latent_dim, data_dim, lambda_gp, n_critic = 4, 2, 10, 5
Tensor = torch.FloatTensor


def sample_real(n):
    angles = torch.rand(n) * 2 * np.pi
    return torch.stack([torch.cos(angles), torch.sin(angles)], dim=1) * 2 + 0.05 * torch.randn(n, 2)


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()
        self.model = nn.Sequential(
            nn.Linear(latent_dim, 32), nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(32, 32), nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(32, data_dim))

    def forward(self, z):
        return self.model(z)


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.model = nn.Sequential(
            nn.Linear(data_dim, 32), nn.LayerNorm(32), nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(32, 32), nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(32, 1))

    def forward(self, x):
        return self.model(x)


def compute_gradient_penalty(D, real_samples, fake_samples):
    alpha = Tensor(np.random.random((real_samples.size(0), 1)))
    interpolates = (alpha * real_samples + ((1 - alpha) * fake_samples)).requires_grad_(True)
    d_interpolates = D(interpolates)
    fake = Tensor(real_samples.shape[0], 1).fill_(1.0).requires_grad_(False)
    gradients = autograd.grad(
        outputs=d_interpolates,
        inputs=interpolates,
        grad_outputs=fake,
        create_graph=True,
        retain_graph=True,
        only_inputs=True,
    )[0]
    gradients = gradients.view(gradients.size(0), -1)
    gradient_penalty = ((gradients.norm(2, dim=1) - 1) ** 2).mean()
    return gradient_penalty


np.random.seed(0)
generator, discriminator = Generator(), Discriminator()
optimizer_G = torch.optim.Adam(generator.parameters(), lr=2e-3, betas=(0.0, 0.9))
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=2e-3, betas=(0.0, 0.9))


def radius_error():
    with torch.no_grad():
        r = generator(torch.randn(256, latent_dim)).norm(dim=1)
    return (r - 2).abs().mean().item()


before = radius_error()
penalties = []
for i in range(300):
    real_imgs = sample_real(64)
    optimizer_D.zero_grad()
    z = Tensor(np.random.normal(0, 1, (real_imgs.shape[0], latent_dim)))
    fake_imgs = generator(z)
    real_validity = discriminator(real_imgs)
    fake_validity = discriminator(fake_imgs.detach())
    gradient_penalty = compute_gradient_penalty(discriminator, real_imgs.data, fake_imgs.data)
    d_loss = -torch.mean(real_validity) + torch.mean(fake_validity) + lambda_gp * gradient_penalty
    d_loss.backward()
    optimizer_D.step()
    penalties.append(gradient_penalty.item())
    optimizer_G.zero_grad()
    if i % n_critic == 0:
        fake_imgs = generator(z)
        fake_validity = discriminator(fake_imgs)
        g_loss = -torch.mean(fake_validity)
        g_loss.backward()
        optimizer_G.step()
after = radius_error()
print(f"|radius - 2|: {before:.3f} -> {after:.3f}; gradient penalty {np.mean(penalties[:20]):.3f} "
      f"-> {np.mean(penalties[-20:]):.3f}")
assert after < before * 0.7
assert discriminator.model[0].weight.grad is not None

# the original WGAN's weight clipping
clip_value = 0.01
for p in discriminator.parameters():
    p.data.clamp_(-clip_value, clip_value)
assert max(p.abs().max().item() for p in discriminator.parameters()) <= clip_value

# the penalty's gradient reaches the critic's first layer through the double backward
x = sample_real(8)
discriminator.zero_grad()
compute_gradient_penalty(discriminator, x, sample_real(8)).backward()
assert discriminator.model[0].weight.grad.abs().sum() > 0
