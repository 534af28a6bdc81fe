"""DCGAN-style alternating updates on 1-D data: BCELoss with real_label/fake_label targets made by
torch.full, fake.detach() for the discriminator step, two Adam optimizers with betas=(0.5, 0.999)."""
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)
nz = 4
netG = nn.Sequential(nn.Linear(nz, 16), nn.ReLU(), nn.Linear(16, 2))
netD = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2, inplace=True), nn.Linear(16, 1), nn.Sigmoid())
criterion = nn.BCELoss()
real_label, fake_label = 1., 0.
optimizerD = optim.Adam(netD.parameters(), lr=2e-3, betas=(0.5, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=2e-3, betas=(0.5, 0.999))
G_losses, D_losses = [], []
for i in range(60):
    real = torch.randn(32, 2) * 0.2 + torch.tensor([2.0, -1.0])
    b_size = real.size(0)
    netD.zero_grad()
    label = torch.full((b_size,), real_label, dtype=torch.float)
    output = netD(real).view(-1)
    errD_real = criterion(output, label)
    errD_real.backward()
    D_x = output.mean().item()
    noise = torch.randn(b_size, nz)
    fake = netG(noise)
    label.fill_(fake_label)
    output = netD(fake.detach()).view(-1)
    errD_fake = criterion(output, label)
    errD_fake.backward()
    errD = errD_real + errD_fake
    optimizerD.step()
    netG.zero_grad()
    label.fill_(real_label)
    output = netD(fake).view(-1)
    errG = criterion(output, label)
    errG.backward()
    optimizerG.step()
    G_losses.append(errG.item())
    D_losses.append(errD.item())
assert 0 <= D_x <= 1 and len(G_losses) == 60
with torch.no_grad():
    centre = netG(torch.randn(256, nz)).mean(0)
print("generated mean", centre)
assert (centre - torch.tensor([2.0, -1.0])).abs().max() < 1.5
