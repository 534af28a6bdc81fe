"""pytorch/examples reinforcement_learning/actor_critic.py: one body, an action head and a value
head, SavedAction namedtuple, Categorical(probs) with m.log_prob, advantage with R - value.item(),
F.smooth_l1_loss(value, torch.tensor([R])), torch.stack(...).sum() of both loss lists,
Categorical.entropy; the gym environment is a small numpy bandit-like task."""
from collections import namedtuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

SavedAction = namedtuple('SavedAction', ['log_prob', 'value'])
torch.manual_seed(0)
rng = np.random.RandomState(0)
gamma = 0.9


class Policy(nn.Module):
    def __init__(self):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(3, 64)
        self.action_head = nn.Linear(64, 3)
        self.value_head = nn.Linear(64, 1)
        self.saved_actions = []
        self.rewards = []

    def forward(self, x):
        x = F.relu(self.affine1(x))
        action_prob = F.softmax(self.action_head(x), dim=-1)
        state_values = self.value_head(x)
        return action_prob, state_values


model = Policy()
optimizer = optim.Adam(model.parameters(), lr=3e-2)
eps = np.finfo(np.float32).eps.item()


def select_action(state):
    state = torch.from_numpy(state).float()
    probs, state_value = model(state)
    m = Categorical(probs)
    action = m.sample()
    model.saved_actions.append(SavedAction(m.log_prob(action), state_value))
    return action.item()


def finish_episode():
    R = 0
    saved_actions = model.saved_actions
    policy_losses = []
    value_losses = []
    returns = []
    for r in model.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for (log_prob, value), R in zip(saved_actions, returns):
        advantage = R - value.item()
        policy_losses.append(-log_prob * advantage)
        value_losses.append(F.smooth_l1_loss(value, torch.tensor([R])))
    optimizer.zero_grad()
    loss = torch.stack(policy_losses).sum() + torch.stack(value_losses).sum()
    loss.backward()
    optimizer.step()
    del model.rewards[:]
    del model.saved_actions[:]
    return loss.item()


scores = []
for episode in range(120):
    ep = 0.0
    for t in range(8):
        state = np.eye(3)[rng.randint(3)]          # the right action is the hot index
        action = select_action(state)
        reward = float(state[action] == 1.0)
        model.rewards.append(reward)
        ep += reward
    finish_episode()
    scores.append(ep)

with torch.no_grad():
    probs, values = model(torch.eye(3))
    entropy = Categorical(probs=probs).entropy()
assert probs.shape == (3, 3) and values.shape == (3, 1) and entropy.shape == (3,)
assert torch.equal(probs.argmax(dim=1), torch.arange(3))
assert (entropy < Categorical(logits=torch.zeros(3)).entropy()).all()
print(f"mean score {np.mean(scores[:20]):.2f} -> {np.mean(scores[-20:]):.2f}")
assert np.mean(scores[-20:]) > np.mean(scores[:20]) + 2
