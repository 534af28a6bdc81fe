"""A SAC-style squashed Gaussian policy (as in CleanRL / Spinning Up): the actor outputs mean and
log_std, the action distribution is TransformedDistribution(Normal(mu, std), [TanhTransform(),
AffineTransform(bias, scale)]), actions come from rsample() so the actor loss
alpha * log_prob - Q(s, a) is differentiated through the sample, and the entropy temperature
alpha is tuned against a target entropy. Checks: log_prob equals the hand-written
Normal.log_prob - log(scale * (1 - tanh^2)) correction, and the critic-free objective improves."""
import math

import torch
import torch.nn as nn
from torch.distributions import Normal, TransformedDistribution
from torch.distributions.transforms import AffineTransform, TanhTransform

torch.manual_seed(0)
obs_dim, act_dim = 3, 2
low, high = torch.tensor([-2.0, -1.0]), torch.tensor([2.0, 1.0])
scale, bias = (high - low) / 2, (high + low) / 2


class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 32), nn.ReLU())
        self.mu = nn.Linear(32, act_dim)
        self.log_std = nn.Linear(32, act_dim)

    def forward(self, s):
        h = self.net(s)
        log_std = torch.clamp(self.log_std(h), -5, 2)
        base = Normal(self.mu(h), log_std.exp())
        return TransformedDistribution(base, [TanhTransform(cache_size=1),
                                              AffineTransform(bias, scale)])


def q_value(s, a):      # a fixed critic: prefers actions near 0.5 * high
    return -((a - 0.5 * high) ** 2).sum(-1)


actor = Actor()
log_alpha = torch.zeros(1, requires_grad=True)
opt = torch.optim.Adam(actor.parameters(), lr=3e-3)
opt_alpha = torch.optim.Adam([log_alpha], lr=3e-3)
target_entropy = -float(act_dim)
states = torch.randn(128, obs_dim)

with torch.no_grad():
    dist = actor(states)
    u = dist.base_dist.rsample()
    a = dist.transforms[1](dist.transforms[0](u))
    by_hand = dist.base_dist.log_prob(u) - torch.log(scale * (1 - torch.tanh(u).pow(2)) + 1e-12)
    assert torch.allclose(dist.log_prob(a), by_hand, atol=1e-3), "tanh correction"

first = None
for step in range(150):
    dist = actor(states)
    a = dist.rsample()
    logp = dist.log_prob(a).sum(-1)
    alpha = log_alpha.exp().detach()
    loss = (alpha * logp - q_value(states, a)).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    alpha_loss = -(log_alpha * (logp.detach() + target_entropy)).mean()
    opt_alpha.zero_grad()
    alpha_loss.backward()
    opt_alpha.step()
    first = loss.item() if first is None else first
    assert a.abs().le(high.abs() + 1e-5).all(), "actions stay in the box"
print(f"actor loss {first:.3f} -> {loss.item():.3f}, alpha {log_alpha.exp().item():.3f}")
assert loss.item() < first and math.isfinite(log_alpha.item())
