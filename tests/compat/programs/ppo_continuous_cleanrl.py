"""CleanRL's ppo_continuous_action.py at toy size: layer_init with torch.nn.init.orthogonal_
(layer.weight, std) and constant_(bias), an Agent with critic/actor_mean heads and
nn.Parameter(torch.zeros(1, act_dim)) log-std expanded with .expand_as, Normal(action_mean,
action_std) with log_prob(...).sum(1) and entropy().sum(1), rollout buffers filled under
torch.no_grad(), GAE with reversed(range(num_steps)), minibatches from np.random.shuffle of
indices, ratio = logratio.exp(), approx_kl, clipfracs, torch.clamp(ratio, 1 - clip, 1 + clip),
torch.max(pg_loss1, pg_loss2).mean(), clipped value loss, clip_grad_norm_, and the explained
variance. The gym environment is swapped for a 1-D reach-the-target task in torch."""
import random

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.distributions.normal import Normal

seed = 1
random.seed(seed)
np.random.seed(seed)
torch.manual_seed(seed)
torch.backends.cudnn.deterministic = True
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

num_envs, num_steps, obs_dim, act_dim = 4, 32, 2, 1
gamma, gae_lambda, clip_coef, ent_coef, vf_coef, max_grad_norm = 0.9, 0.95, 0.2, 0.0, 0.5, 0.5
batch_size = num_envs * num_steps
minibatch_size = batch_size // 4


class ReachEnv:
    """obs = (position, target); action moves the position; reward = -|position - target|."""

    def reset(self):
        self.pos = torch.zeros(num_envs)
        self.target = torch.rand(num_envs) * 2 - 1
        self.t = 0
        return torch.stack([self.pos, self.target], dim=1)

    def step(self, action):
        self.pos = (self.pos + 0.5 * action.clamp(-1, 1).squeeze(1)).clamp(-2, 2)
        reward = -(self.pos - self.target).abs()
        self.t += 1
        done = torch.full((num_envs,), float(self.t % 8 == 0))
        if self.t % 8 == 0:
            obs = self.reset_some()
        else:
            obs = torch.stack([self.pos, self.target], dim=1)
        return obs, reward, done

    def reset_some(self):
        t = self.t
        obs = self.reset()
        self.t = t
        return obs


def layer_init(layer, std=np.sqrt(2), bias_const=0.0):
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self):
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_dim, 32)), nn.Tanh(),
            layer_init(nn.Linear(32, 32)), nn.Tanh(),
            layer_init(nn.Linear(32, 1), std=1.0),
        )
        self.actor_mean = nn.Sequential(
            layer_init(nn.Linear(obs_dim, 32)), nn.Tanh(),
            layer_init(nn.Linear(32, 32)), nn.Tanh(),
            layer_init(nn.Linear(32, act_dim), std=0.01),
        )
        self.actor_logstd = nn.Parameter(torch.zeros(1, act_dim))

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, action=None):
        action_mean = self.actor_mean(x)
        action_logstd = self.actor_logstd.expand_as(action_mean)
        action_std = torch.exp(action_logstd)
        probs = Normal(action_mean, action_std)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action).sum(1), probs.entropy().sum(1), self.critic(x)


agent = Agent().to(device)
w = agent.actor_mean[0].weight
assert torch.allclose(w @ w.T, 2.0 * torch.eye(32)[:32, :32][:w.shape[0], :w.shape[0]], atol=1e-5) \
    or torch.allclose(w.T @ w, 2.0 * torch.eye(obs_dim), atol=1e-5)
optimizer = optim.Adam(agent.parameters(), lr=3e-3, eps=1e-5)
obs = torch.zeros((num_steps, num_envs, obs_dim)).to(device)
actions = torch.zeros((num_steps, num_envs, act_dim)).to(device)
logprobs = torch.zeros((num_steps, num_envs)).to(device)
rewards = torch.zeros((num_steps, num_envs)).to(device)
dones = torch.zeros((num_steps, num_envs)).to(device)
values = torch.zeros((num_steps, num_envs)).to(device)
env = ReachEnv()
next_obs = env.reset()
next_done = torch.zeros(num_envs).to(device)
mean_rewards = []
for iteration in range(1, 26):
    for step in range(0, num_steps):
        obs[step] = next_obs
        dones[step] = next_done
        with torch.no_grad():
            action, logprob, _, value = agent.get_action_and_value(next_obs)
            values[step] = value.flatten()
        actions[step] = action
        logprobs[step] = logprob
        next_obs, reward, next_done = env.step(action)
        rewards[step] = torch.tensor(reward).to(device).view(-1) if not torch.is_tensor(reward) \
            else reward.view(-1)
    mean_rewards.append(rewards.mean().item())

    with torch.no_grad():
        next_value = agent.get_value(next_obs).reshape(1, -1)
        advantages = torch.zeros_like(rewards).to(device)
        lastgaelam = 0
        for t in reversed(range(num_steps)):
            if t == num_steps - 1:
                nextnonterminal = 1.0 - next_done
                nextvalues = next_value
            else:
                nextnonterminal = 1.0 - dones[t + 1]
                nextvalues = values[t + 1]
            delta = rewards[t] + gamma * nextvalues * nextnonterminal - values[t]
            advantages[t] = lastgaelam = delta + gamma * gae_lambda * nextnonterminal * lastgaelam
        returns = advantages + values

    b_obs = obs.reshape((-1, obs_dim))
    b_logprobs = logprobs.reshape(-1)
    b_actions = actions.reshape((-1, act_dim))
    b_advantages = advantages.reshape(-1)
    b_returns = returns.reshape(-1)
    b_values = values.reshape(-1)

    b_inds = np.arange(batch_size)
    clipfracs = []
    for epoch in range(4):
        np.random.shuffle(b_inds)
        for start in range(0, batch_size, minibatch_size):
            end = start + minibatch_size
            mb_inds = b_inds[start:end]
            _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb_inds], b_actions[mb_inds])
            logratio = newlogprob - b_logprobs[mb_inds]
            ratio = logratio.exp()
            with torch.no_grad():
                old_approx_kl = (-logratio).mean()
                approx_kl = ((ratio - 1) - logratio).mean()
                clipfracs += [((ratio - 1.0).abs() > clip_coef).float().mean().item()]
            mb_advantages = b_advantages[mb_inds]
            mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)
            pg_loss1 = -mb_advantages * ratio
            pg_loss2 = -mb_advantages * torch.clamp(ratio, 1 - clip_coef, 1 + clip_coef)
            pg_loss = torch.max(pg_loss1, pg_loss2).mean()
            newvalue = newvalue.view(-1)
            v_loss_unclipped = (newvalue - b_returns[mb_inds]) ** 2
            v_clipped = b_values[mb_inds] + torch.clamp(newvalue - b_values[mb_inds], -clip_coef, clip_coef)
            v_loss_clipped = (v_clipped - b_returns[mb_inds]) ** 2
            v_loss_max = torch.max(v_loss_unclipped, v_loss_clipped)
            v_loss = 0.5 * v_loss_max.mean()
            entropy_loss = entropy.mean()
            loss = pg_loss - ent_coef * entropy_loss + v_loss * vf_coef
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), max_grad_norm)
            optimizer.step()

    y_pred, y_true = b_values.cpu().numpy(), b_returns.cpu().numpy()
    var_y = np.var(y_true)
    explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y

print(f"mean reward {np.mean(mean_rewards[:3]):.3f} -> {np.mean(mean_rewards[-3:]):.3f}, "
      f"approx_kl {approx_kl.item():.4f}, clipfrac {np.mean(clipfracs):.3f}, "
      f"explained variance {explained_var:.2f}")
assert np.mean(mean_rewards[-3:]) > np.mean(mean_rewards[:3]) + 0.1
assert 0.0 <= np.mean(clipfracs) <= 1.0 and np.isfinite(old_approx_kl.item())
