"""A VAE written with torch.distributions, as in many course notebooks and Pyro-style examples:
the encoder returns mu and log-variance, q = Normal(mu, torch.exp(0.5 * logvar)), z = q.rsample(),
the prior p = Normal(torch.zeros_like(mu), torch.ones_like(std)), the KL term by
torch.distributions.kl_divergence(q, p).sum(-1) (checked against the closed form of the
pytorch/examples VAE: -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())), a Bernoulli(logits=)
decoder likelihood with Independent(..., 1).log_prob, and samples from the prior."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Bernoulli, Independent, Normal, kl_divergence

torch.manual_seed(0)
# toy binary "images": two prototypes plus bit flips
protos = (torch.rand(2, 16) > 0.5).float()
labels = torch.randint(0, 2, (256,))
flips = (torch.rand(256, 16) < 0.05).float()
data = (protos[labels] + flips) % 2


class VAE(nn.Module):
    def __init__(self, d=16, h=32, z=2):
        super().__init__()
        self.fc1 = nn.Linear(d, h)
        self.fc21 = nn.Linear(h, z)
        self.fc22 = nn.Linear(h, z)
        self.fc3 = nn.Linear(z, h)
        self.fc4 = nn.Linear(h, d)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def decode(self, z):
        return self.fc4(F.relu(self.fc3(z)))

    def forward(self, x):
        mu, logvar = self.encode(x)
        std = torch.exp(0.5 * logvar)
        q = Normal(mu, std)
        z = q.rsample()
        return self.decode(z), q, mu, logvar


def loss_function(x, logits, q, mu, logvar):
    likelihood = Independent(Bernoulli(logits=logits), 1)
    recon = -likelihood.log_prob(x)
    prior = Normal(torch.zeros_like(mu), torch.ones_like(q.stddev))
    kl = kl_divergence(q, prior).sum(-1)
    closed_form = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=-1)
    assert torch.allclose(kl, closed_form, atol=1e-5)
    bce = F.binary_cross_entropy_with_logits(logits, x, reduction='none').sum(-1)
    assert torch.allclose(recon, bce, atol=1e-4)
    return (recon + kl).mean()


model = VAE()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
losses = []
for epoch in range(15):
    for i in range(0, 256, 32):
        x = data[i:i + 32]
        logits, q, mu, logvar = model(x)
        loss = loss_function(x, logits, q, mu, logvar)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
print(f"ELBO loss {losses[0]:.2f} -> {losses[-1]:.2f}")
assert losses[-1] < losses[0] - 4

with torch.no_grad():
    prior = Normal(torch.zeros(2), torch.ones(2))
    z = prior.sample((8,))
    assert z.shape == (8, 2) and not z.requires_grad
    samples = Bernoulli(logits=model.decode(z)).sample()
    assert samples.shape == (8, 16) and set(samples.unique().tolist()) <= {0.0, 1.0}
    q = Normal(torch.tensor([0.5]), torch.tensor([2.0]))
    assert q.batch_shape == torch.Size([1]) and q.event_shape == torch.Size([])
    assert torch.allclose(q.entropy(), 0.5 + 0.5 * torch.log(2 * torch.pi * q.variance))
