"""yunjey/pytorch-tutorial, 03-advanced: variational_autoencoder (VAE with F.sigmoid decode,
reparameterize via torch.exp(log_var/2) and randn_like, F.binary_cross_entropy with the legacy
size_average=False, the KL term, sampling and torch.cat of originals and reconstructions along
dim=3) and generative_adversarial_network (MLP D with LeakyReLU/Sigmoid and G with Tanh, BCELoss
on ones/zeros labels, reset_grad, denorm with clamp), on small synthetic images."""
import os
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
sample_dir = 'samples'
if not os.path.exists(sample_dir):
    os.makedirs(sample_dir)
image_size, h_dim, z_dim, num_epochs, batch_size = 784, 64, 8, 2, 32
images = (torch.rand(128, 1, 28, 28) > 0.7).float()
dataset = torch.utils.data.TensorDataset(images, torch.zeros(128, dtype=torch.long))
data_loader = torch.utils.data.DataLoader(dataset=dataset, batch_size=batch_size, shuffle=True)


class VAE(nn.Module):
    def __init__(self, image_size=784, h_dim=400, z_dim=20):
        super(VAE, self).__init__()
        self.fc1 = nn.Linear(image_size, h_dim)
        self.fc2 = nn.Linear(h_dim, z_dim)
        self.fc3 = nn.Linear(h_dim, z_dim)
        self.fc4 = nn.Linear(z_dim, h_dim)
        self.fc5 = nn.Linear(h_dim, image_size)

    def encode(self, x):
        h = F.relu(self.fc1(x))
        return self.fc2(h), self.fc3(h)

    def reparameterize(self, mu, log_var):
        std = torch.exp(log_var / 2)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h = F.relu(self.fc4(z))
        return F.sigmoid(self.fc5(h))

    def forward(self, x):
        mu, log_var = self.encode(x)
        z = self.reparameterize(mu, log_var)
        x_reconst = self.decode(z)
        return x_reconst, mu, log_var


model = VAE(image_size, h_dim, z_dim).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
first = None
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for epoch in range(num_epochs):
        for i, (x, _) in enumerate(data_loader):
            x = x.to(device).view(-1, image_size)
            x_reconst, mu, log_var = model(x)
            reconst_loss = F.binary_cross_entropy(x_reconst, x, size_average=False)
            kl_div = - 0.5 * torch.sum(1 + log_var - mu.pow(2) - log_var.exp())
            loss = reconst_loss + kl_div
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            first = first or loss.item()
            if (i + 1) % 2 == 0:
                print("Epoch[{}/{}], Step [{}/{}], Reconst Loss: {:.4f}, KL Div: {:.4f}"
                      .format(epoch + 1, num_epochs, i + 1, len(data_loader), reconst_loss.item(),
                              kl_div.item()))
        with torch.no_grad():
            z = torch.randn(batch_size, z_dim).to(device)
            out = model.decode(z).view(-1, 1, 28, 28)
            out, _, _ = model(x)
            x_concat = torch.cat([x.view(-1, 1, 28, 28), out.view(-1, 1, 28, 28)], dim=3)
            print(x_concat.shape, x_concat.requires_grad)
print(sorted({str(w.category.__name__) for w in caught}))
assert any("size_average" in str(w.message) for w in caught)
assert loss.item() < first

latent_size, hidden_size, batch_size = 16, 64, 32
mnist = torch.utils.data.TensorDataset(images * 2 - 1, torch.zeros(128))
data_loader = torch.utils.data.DataLoader(dataset=mnist, batch_size=batch_size, shuffle=True)
D = nn.Sequential(
    nn.Linear(image_size, hidden_size),
    nn.LeakyReLU(0.2),
    nn.Linear(hidden_size, hidden_size),
    nn.LeakyReLU(0.2),
    nn.Linear(hidden_size, 1),
    nn.Sigmoid())
G = nn.Sequential(
    nn.Linear(latent_size, hidden_size),
    nn.ReLU(),
    nn.Linear(hidden_size, hidden_size),
    nn.ReLU(),
    nn.Linear(hidden_size, image_size),
    nn.Tanh())
D = D.to(device)
G = G.to(device)
print(D, G, sep="\n")
criterion = nn.BCELoss()
d_optimizer = torch.optim.Adam(D.parameters(), lr=0.0002)
g_optimizer = torch.optim.Adam(G.parameters(), lr=0.0002)


def denorm(x):
    out = (x + 1) / 2
    return out.clamp(0, 1)


def reset_grad():
    d_optimizer.zero_grad()
    g_optimizer.zero_grad()


total_step = len(data_loader)
num_epochs = 3
for epoch in range(num_epochs):
    for i, (images_, _) in enumerate(data_loader):
        images_ = images_.reshape(batch_size, -1).to(device)
        real_labels = torch.ones(batch_size, 1).to(device)
        fake_labels = torch.zeros(batch_size, 1).to(device)
        outputs = D(images_)
        d_loss_real = criterion(outputs, real_labels)
        real_score = outputs
        z = torch.randn(batch_size, latent_size).to(device)
        fake_images = G(z)
        outputs = D(fake_images)
        d_loss_fake = criterion(outputs, fake_labels)
        fake_score = outputs
        d_loss = d_loss_real + d_loss_fake
        reset_grad()
        d_loss.backward()
        d_optimizer.step()
        z = torch.randn(batch_size, latent_size).to(device)
        fake_images = G(z)
        outputs = D(fake_images)
        g_loss = criterion(outputs, real_labels)
        reset_grad()
        g_loss.backward()
        g_optimizer.step()
        if (i + 1) % 2 == 0:
            print('Epoch [{}/{}], Step [{}/{}], d_loss: {:.4f}, g_loss: {:.4f}, D(x): {:.2f}, '
                  'D(G(z)): {:.2f}'.format(epoch, num_epochs, i + 1, total_step, d_loss.item(),
                                           g_loss.item(), real_score.mean().item(),
                                           fake_score.mean().item()))
    fake_images = fake_images.reshape(fake_images.size(0), 1, 28, 28)
    shown = denorm(fake_images)
    print(shown.shape, bool(shown.min() >= 0), bool(shown.max() <= 1))
torch.save(G.state_dict(), 'G.ckpt')
torch.save(D.state_dict(), 'D.ckpt')
G.load_state_dict(torch.load('G.ckpt'))
assert real_score.mean().item() > fake_score.mean().item() - 0.5
