"""Fit a 1-D Gaussian mixture by gradient descent on -log_prob, the torch.distributions way:
MixtureSameFamily(Categorical(logits=w), Normal(mu, softplus(s))), then check the learned means
against the true ones, sample from it, and compare its mean / variance / cdf with the formulas.
Also the 2-D version with Independent components and a MultivariateNormal sanity check."""
import torch
import torch.nn.functional as F
from torch.distributions import (Categorical, Independent, MixtureSameFamily,
                                 MultivariateNormal, Normal)

torch.manual_seed(0)
true_means = torch.tensor([-3.0, 0.5, 4.0])
comp = torch.randint(0, 3, (600,))
data = true_means[comp] + 0.5 * torch.randn(600)

w = torch.zeros(3, requires_grad=True)
mu = torch.tensor([-1.0, 0.0, 1.0], requires_grad=True)
s = torch.zeros(3, requires_grad=True)
opt = torch.optim.Adam([w, mu, s], lr=0.05)
for step in range(400):
    gmm = MixtureSameFamily(Categorical(logits=w), Normal(mu, F.softplus(s)))
    nll = -gmm.log_prob(data).mean()
    opt.zero_grad()
    nll.backward()
    opt.step()
learned = mu.detach().sort().values
print("means", [round(v, 2) for v in learned.tolist()], "nll", round(nll.item(), 3))
assert (learned - true_means).abs().max() < 0.3

with torch.no_grad():
    gmm = MixtureSameFamily(Categorical(logits=w), Normal(mu, F.softplus(s)))
    p = gmm.mixture_distribution.probs
    m = (p * mu).sum()
    assert torch.allclose(gmm.mean, m, atol=1e-5)
    var = (p * (F.softplus(s) ** 2 + mu ** 2)).sum() - m ** 2
    assert torch.allclose(gmm.variance, var, atol=1e-4)
    assert torch.allclose(gmm.cdf(torch.tensor(0.0)), (p * Normal(mu, F.softplus(s)).cdf(torch.tensor(0.0))).sum(), atol=1e-5)
    x = gmm.sample((1000,))
    assert x.shape == (1000,) and abs(x.mean().item() - m.item()) < 0.5

    comp2 = Independent(Normal(torch.randn(4, 2), torch.ones(4, 2)), 1)
    gmm2 = MixtureSameFamily(Categorical(torch.ones(4)), comp2)
    pts = gmm2.sample((5,))
    assert pts.shape == (5, 2) and gmm2.log_prob(pts).shape == (5,)
    mvn = MultivariateNormal(torch.zeros(2), covariance_matrix=torch.eye(2))
    assert torch.allclose(mvn.log_prob(pts), Independent(Normal(torch.zeros(2), torch.ones(2)), 1).log_prob(pts), atol=1e-5)
