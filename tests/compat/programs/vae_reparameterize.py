"""pytorch/examples' VAE: reparameterize with torch.randn_like(std) and torch.exp(0.5*logvar),
F.binary_cross_entropy(..., reduction='sum') plus the KL term, trained a few steps."""
import torch
from torch import nn, optim
from torch.nn import functional as F


class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()
        self.fc1 = nn.Linear(64, 32)
        self.fc21 = nn.Linear(32, 4)
        self.fc22 = nn.Linear(32, 4)
        self.fc3 = nn.Linear(4, 32)
        self.fc4 = nn.Linear(32, 64)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        return torch.sigmoid(self.fc4(F.relu(self.fc3(z))))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 64))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 64), reduction='sum')
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


torch.manual_seed(0)
data = (torch.rand(128, 1, 8, 8) > 0.5).float()
model = VAE()
optimizer = optim.Adam(model.parameters(), lr=1e-2)
losses = []
for epoch in range(20):
    recon_batch, mu, logvar = model(data)
    loss = loss_function(recon_batch, data, mu, logvar)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item() / len(data))
assert losses[-1] < losses[0]
with torch.no_grad():
    sample = model.decode(torch.randn(8, 4))
assert sample.shape == (8, 64) and 0 <= sample.min() and sample.max() <= 1
