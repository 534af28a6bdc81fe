"""PyTorch tutorial "DCGAN Tutorial" (beginner_source/dcgan_faces_tutorial.py) with generated
64x64 "faces" (coloured discs) instead of CelebA and narrow nets (ngf = ndf = 4): weights_init
dispatching on m.__class__.__name__ (nn.init.normal_(m.weight.data, 0.0, 0.02), BatchNorm weight
~ N(1, 0.02), bias 0), the Generator (ConvTranspose2d(nz, ngf * 8, 4, 1, 0) ... Tanh) and the
Discriminator (Conv2d(nc, ndf, 4, 2, 1), LeakyReLU(0.2, inplace=True) ... Sigmoid) applied with
.apply(weights_init), nn.BCELoss, torch.full((b_size,), real_label), label.fill_(fake_label),
netD(fake.detach()).view(-1), the two Adam optimizers with betas=(beta1, 0.999), and the training
loop's D and G updates, losses and fixed_noise snapshots under torch.no_grad()."""
import random

import torch
import torch.nn as nn
import torch.optim as optim
import torch.utils.data

# Set random seed for reproducibility
manualSeed = 999
random.seed(manualSeed)
torch.manual_seed(manualSeed)
torch.use_deterministic_algorithms(True)  # Needed for reproducible results

batch_size = 8
image_size = 64
nc = 3
nz = 16
ngf = 4
ndf = 4
num_epochs = 3
lr = 0.0002
beta1 = 0.5
ngpu = 0

# generated "faces": a bright disc of random colour and place on a dark background, in [-1, 1]
# as transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5)) leaves them
n_images = 32
yy, xx = torch.meshgrid(torch.arange(64.), torch.arange(64.), indexing="ij")
centres = 16 + 32 * torch.rand(n_images, 2)
colours = torch.rand(n_images, 3, 1, 1)
disc = (((yy - centres[:, 0, None, None]) ** 2 + (xx - centres[:, 1, None, None]) ** 2)
        < 12 ** 2).float().unsqueeze(1)
images = (disc * colours) * 2 - 1
dataset = torch.utils.data.TensorDataset(images, torch.zeros(n_images, dtype=torch.long))
dataloader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, shuffle=True)

device = torch.device("cuda:0" if (torch.cuda.is_available() and ngpu > 0) else "cpu")


# custom weights initialization called on ``netG`` and ``netD``
def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Conv') != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find('BatchNorm') != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)


class Generator(nn.Module):
    def __init__(self, ngpu):
        super(Generator, self).__init__()
        self.ngpu = ngpu
        self.main = nn.Sequential(
            # input is Z, going into a convolution
            nn.ConvTranspose2d( nz, ngf * 8, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 8),
            nn.ReLU(True),
            # state size. ``(ngf*8) x 4 x 4``
            nn.ConvTranspose2d(ngf * 8, ngf * 4, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf * 4),
            nn.ReLU(True),
            # state size. ``(ngf*4) x 8 x 8``
            nn.ConvTranspose2d( ngf * 4, ngf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            # state size. ``(ngf*2) x 16 x 16``
            nn.ConvTranspose2d( ngf * 2, ngf, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf),
            nn.ReLU(True),
            # state size. ``(ngf) x 32 x 32``
            nn.ConvTranspose2d( ngf, nc, 4, 2, 1, bias=False),
            nn.Tanh()
            # state size. ``(nc) x 64 x 64``
        )

    def forward(self, input):
        return self.main(input)


# Create the generator
netG = Generator(ngpu).to(device)

# Apply the ``weights_init`` function to randomly initialize all weights
#  to ``mean=0``, ``stdev=0.02``.
netG.apply(weights_init)

# Print the model
print(netG)
w = netG.main[0].weight
assert abs(float(w.mean())) < 0.005 and abs(float(w.std()) - 0.02) < 0.004
assert torch.equal(netG.main[1].bias, torch.zeros(ngf * 8))
assert abs(float(netG.main[1].weight.mean()) - 1.0) < 0.03


class Discriminator(nn.Module):
    def __init__(self, ngpu):
        super(Discriminator, self).__init__()
        self.ngpu = ngpu
        self.main = nn.Sequential(
            # input is ``(nc) x 64 x 64``
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            # state size. ``(ndf) x 32 x 32``
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            # state size. ``(ndf*2) x 16 x 16``
            nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 4),
            nn.LeakyReLU(0.2, inplace=True),
            # state size. ``(ndf*4) x 8 x 8``
            nn.Conv2d(ndf * 4, ndf * 8, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 8),
            nn.LeakyReLU(0.2, inplace=True),
            # state size. ``(ndf*8) x 4 x 4``
            nn.Conv2d(ndf * 8, 1, 4, 1, 0, bias=False),
            nn.Sigmoid()
        )

    def forward(self, input):
        return self.main(input)


# Create the Discriminator
netD = Discriminator(ngpu).to(device)

# Apply the ``weights_init`` function to randomly initialize all weights
# like this: ``to mean=0, stdev=0.2``.
netD.apply(weights_init)

# Print the model
print(netD)
assert "LeakyReLU(negative_slope=0.2, inplace=True)" in str(netD)

# Initialize the ``BCELoss`` function
criterion = nn.BCELoss()

# Create batch of latent vectors that we will use to visualize
#  the progression of the generator
fixed_noise = torch.randn(16, nz, 1, 1, device=device)

# Establish convention for real and fake labels during training
real_label = 1.
fake_label = 0.

# Setup Adam optimizers for both G and D
optimizerD = optim.Adam(netD.parameters(), lr=lr, betas=(beta1, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=lr, betas=(beta1, 0.999))

with torch.no_grad():
    sample = netG(fixed_noise)
    assert sample.shape == (16, nc, 64, 64)
    assert float(sample.abs().max()) <= 1.0
    assert netD(sample).shape == (16, 1, 1, 1)

# Training Loop

# Lists to keep track of progress
img_list = []
G_losses = []
D_losses = []
D_xs, D_G_z1s = [], []
iters = 0

print("Starting Training Loop...")
# For each epoch
for epoch in range(num_epochs):
    # For each batch in the dataloader
    for i, data in enumerate(dataloader, 0):

        ############################
        # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
        ###########################
        ## Train with all-real batch
        netD.zero_grad()
        # Format batch
        real_cpu = data[0].to(device)
        b_size = real_cpu.size(0)
        label = torch.full((b_size,), real_label, dtype=torch.float, device=device)
        # Forward pass real batch through D
        output = netD(real_cpu).view(-1)
        # Calculate loss on all-real batch
        errD_real = criterion(output, label)
        # Calculate gradients for D in backward pass
        errD_real.backward()
        D_x = output.mean().item()

        ## Train with all-fake batch
        # Generate batch of latent vectors
        noise = torch.randn(b_size, nz, 1, 1, device=device)
        # Generate fake image batch with G
        fake = netG(noise)
        label.fill_(fake_label)
        # Classify all fake batch with D
        output = netD(fake.detach()).view(-1)
        # Calculate D's loss on the all-fake batch
        errD_fake = criterion(output, label)
        # Calculate the gradients for this batch, accumulated (summed) with previous gradients
        errD_fake.backward()
        D_G_z1 = output.mean().item()
        # Compute error of D as sum over the fake and the real batches
        errD = errD_real + errD_fake
        if iters == 0:
            # fake.detach(): D's losses sent nothing into G
            assert all(p.grad is None for p in netG.parameters())
            assert abs(errD_fake.item() + torch.log(1 - output).mean().item()) < 1e-5
        # Update D
        optimizerD.step()

        ############################
        # (2) Update G network: maximize log(D(G(z)))
        ###########################
        netG.zero_grad()
        label.fill_(real_label)  # fake labels are real for generator cost
        # Since we just updated D, perform another forward pass of all-fake batch through D
        output = netD(fake).view(-1)
        # Calculate G's loss based on this output
        errG = criterion(output, label)
        # Calculate gradients for G
        errG.backward()
        D_G_z2 = output.mean().item()
        # Update G
        optimizerG.step()

        # Output training stats
        if i % 50 == 0:
            print('[%d/%d][%d/%d]\tLoss_D: %.4f\tLoss_G: %.4f\tD(x): %.4f\tD(G(z)): %.4f / %.4f'
                  % (epoch, num_epochs, i, len(dataloader),
                     errD.item(), errG.item(), D_x, D_G_z1, D_G_z2))

        # Save Losses for plotting later
        G_losses.append(errG.item())
        D_losses.append(errD.item())
        D_xs.append(D_x)
        D_G_z1s.append(D_G_z1)

        # Check how the generator is doing by saving G's output on fixed_noise
        if (iters % 500 == 0) or ((epoch == num_epochs-1) and (i == len(dataloader)-1)):
            with torch.no_grad():
                fake = netG(fixed_noise).detach().cpu()
            img_list.append(fake)

        iters += 1

assert iters == num_epochs * len(dataloader) == 12
assert len(img_list) == 2 and img_list[-1].shape == (16, 3, 64, 64)
assert not torch.equal(img_list[0], img_list[-1])   # G changed
assert all(0 < v < 1 for v in D_xs + D_G_z1s)
# D learns to tell the discs from G's early output: D(x) rises above D(G(z))
assert sum(D_xs[-4:]) / 4 > sum(D_G_z1s[-4:]) / 4
assert sum(D_losses[-4:]) < sum(D_losses[:4])
