"""pytorch/examples reinforcement_learning/reinforce.py: a Policy with nn.Dropout and
F.softmax(dim=1), torch.distributions.Categorical(probs) sample/log_prob, action.item(),
discounted returns normalised with np.finfo(np.float32).eps.item(), torch.cat(policy_loss).sum()
and `del policy.rewards[:]`; the CartPole environment is swapped for a tiny numpy task."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

gamma = 0.99
torch.manual_seed(543)
rng = np.random.RandomState(543)


class SignEnv:
    """Observe 4 numbers; action 1 pays when the first is positive, action 0 otherwise."""

    def reset(self):
        self.t = 0
        self.state = rng.randn(4).astype(np.float64)
        return self.state, {}

    def step(self, action):
        reward = 1.0 if (action == 1) == (self.state[0] > 0) else 0.0
        self.t += 1
        self.state = rng.randn(4)
        return self.state, reward, self.t >= 10, False, {}


class Policy(nn.Module):
    def __init__(self):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(4, 128)
        self.dropout = nn.Dropout(p=0.6)
        self.affine2 = nn.Linear(128, 2)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = self.affine1(x)
        x = self.dropout(x)
        x = F.relu(x)
        action_scores = self.affine2(x)
        return F.softmax(action_scores, dim=1)


policy = Policy()
optimizer = optim.Adam(policy.parameters(), lr=1e-2)
eps = np.finfo(np.float32).eps.item()
env = SignEnv()


def select_action(state):
    state = torch.from_numpy(state).float().unsqueeze(0)
    probs = policy(state)
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode():
    R = 0
    policy_loss = []
    returns = []
    for r in policy.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    policy_loss = torch.cat(policy_loss).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]


rewards_per_episode = []
for i_episode in range(150):
    state, _ = env.reset()
    ep_reward = 0
    for t in range(1, 10000):
        action = select_action(state)
        assert isinstance(action, int) and action in (0, 1)
        state, reward, done, _, _ = env.step(action)
        policy.rewards.append(reward)
        ep_reward += reward
        if done:
            break
    finish_episode()
    rewards_per_episode.append(ep_reward)

m = Categorical(torch.tensor([[0.25, 0.75]]))
assert m.log_prob(torch.tensor([1])).shape == (1,)
assert torch.allclose(m.log_prob(torch.tensor([1])), torch.log(torch.tensor([0.75])))
first, last = np.mean(rewards_per_episode[:30]), np.mean(rewards_per_episode[-30:])
print(f"mean reward {first:.2f} -> {last:.2f}")
assert last > first + 1.5
