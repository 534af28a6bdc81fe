"""UvA Deep Learning tutorial 8 (Deep Energy-Based Generative Models, Phillip Lippe), the
training logic without Lightning: the Swish activation, CNNModel(...).squeeze(dim=-1), the
Sampler with a replay buffer of torch.rand((1,) + img_shape) * 2 - 1 examples, np.random.binomial
for the share of fresh noise, torch.cat(random.choices(self.examples, k=...), dim=0),
generate_samples as a @staticmethod doing Langevin dynamics: model.eval() and p.requires_grad =
False for the parameters, inp_imgs.requires_grad = True, torch.is_grad_enabled() /
torch.set_grad_enabled(True), noise.normal_(0, 0.005), inp_imgs.data.add_(noise.data),
inp_imgs.data.clamp_(min=-1.0, max=1.0), out_imgs = -model(inp_imgs), out_imgs.sum().backward(),
inp_imgs.grad.data.clamp_(-0.03, 0.03), inp_imgs.data.add_(-step_size * inp_imgs.grad.data),
inp_imgs.grad.detach_(), inp_imgs.grad.zero_(), then restoring requires_grad / train mode /
grad mode; the buffer update by list(inp_imgs.chunk(sample_size, dim=0)); the contrastive
divergence loss with real_imgs.add_(torch.randn_like(real_imgs) * small_noise), chunk(2, dim=0)
of the scores, the alpha regularizer, Adam(betas=(0.0, 0.999)) and StepLR(step_size=1,
gamma=0.97)."""
import random

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim


class Swish(nn.Module):
    def forward(self, x):
        return x * torch.sigmoid(x)


class CNNModel(nn.Module):
    def __init__(self, hidden_features=8, out_dim=1, **kwargs):
        super().__init__()
        c_hid1 = hidden_features // 2
        c_hid2 = hidden_features
        c_hid3 = hidden_features * 2
        self.cnn_layers = nn.Sequential(
            nn.Conv2d(1, c_hid1, kernel_size=5, stride=2, padding=4),
            Swish(),
            nn.Conv2d(c_hid1, c_hid2, kernel_size=3, stride=2, padding=1),
            Swish(),
            nn.Conv2d(c_hid2, c_hid3, kernel_size=3, stride=2, padding=1),
            Swish(),
            nn.Flatten(),
            nn.Linear(c_hid3 * 2 * 2, c_hid3),
            Swish(),
            nn.Linear(c_hid3, out_dim)
        )

    def forward(self, x):
        x = self.cnn_layers(x).squeeze(dim=-1)
        return x


class Sampler:
    def __init__(self, model, img_shape, sample_size, max_len=64):
        super().__init__()
        self.model = model
        self.img_shape = img_shape
        self.sample_size = sample_size
        self.max_len = max_len
        self.examples = [(torch.rand((1,) + img_shape) * 2 - 1) for _ in range(self.sample_size)]

    def sample_new_exmps(self, steps=60, step_size=10):
        n_new = np.random.binomial(self.sample_size, 0.05)
        rand_imgs = torch.rand((n_new,) + self.img_shape) * 2 - 1
        old_imgs = torch.cat(random.choices(self.examples, k=self.sample_size - n_new), dim=0)
        inp_imgs = torch.cat([rand_imgs, old_imgs], dim=0).detach()
        inp_imgs = Sampler.generate_samples(self.model, inp_imgs, steps=steps, step_size=step_size)
        self.examples = list(inp_imgs.to(torch.device("cpu")).chunk(self.sample_size, dim=0)) + self.examples
        self.examples = self.examples[:self.max_len]
        return inp_imgs

    @staticmethod
    def generate_samples(model, inp_imgs, steps=60, step_size=10, return_img_per_step=False):
        is_training = model.training
        model.eval()
        for p in model.parameters():
            p.requires_grad = False
        inp_imgs.requires_grad = True
        had_gradients_enabled = torch.is_grad_enabled()
        torch.set_grad_enabled(True)
        noise = torch.randn(inp_imgs.shape, device=inp_imgs.device)
        imgs_per_step = []
        for _ in range(steps):
            noise.normal_(0, 0.005)
            inp_imgs.data.add_(noise.data)
            inp_imgs.data.clamp_(min=-1.0, max=1.0)
            out_imgs = -model(inp_imgs)
            out_imgs.sum().backward()
            inp_imgs.grad.data.clamp_(-0.03, 0.03)
            inp_imgs.data.add_(-step_size * inp_imgs.grad.data)
            inp_imgs.grad.detach_()
            inp_imgs.grad.zero_()
            inp_imgs.data.clamp_(min=-1.0, max=1.0)
            if return_img_per_step:
                imgs_per_step.append(inp_imgs.clone().detach())
        for p in model.parameters():
            p.requires_grad = True
        model.train(is_training)
        torch.set_grad_enabled(had_gradients_enabled)
        if return_img_per_step:
            return torch.stack(imgs_per_step, dim=0)
        else:
            return inp_imgs


random.seed(42)
np.random.seed(42)
torch.manual_seed(42)
img_shape = (1, 12, 12)
batch_size = 8
cnn = CNNModel(hidden_features=8)
sampler = Sampler(cnn, img_shape=img_shape, sample_size=batch_size)
optimizer = optim.Adam(cnn.parameters(), lr=1e-3, betas=(0.0, 0.999))
scheduler = optim.lr_scheduler.StepLR(optimizer, 1, gamma=0.97)
alpha = 0.1

# "real" images: a bright square on a dark background, with jitter
def real_batch(n):
    imgs = -torch.ones((n,) + img_shape)
    for i in range(n):
        r, c = np.random.randint(2, 6, size=2)
        imgs[i, 0, r:r + 5, c:c + 5] = 1.0
    return imgs

for step in range(8):
    real_imgs = real_batch(batch_size)
    small_noise = torch.randn_like(real_imgs) * 0.005
    real_imgs.add_(small_noise).clamp_(min=-1.0, max=1.0)
    fake_imgs = sampler.sample_new_exmps(steps=10, step_size=10)
    inp_imgs = torch.cat([real_imgs, fake_imgs], dim=0)
    real_out, fake_out = cnn(inp_imgs).chunk(2, dim=0)
    reg_loss = alpha * (real_out ** 2 + fake_out ** 2).mean()
    cdiv_loss = fake_out.mean() - real_out.mean()
    loss = reg_loss + cdiv_loss
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()
    print(f"step {step}: loss {loss.item():.4f} cdiv {cdiv_loss.item():.4f} reg {reg_loss.item():.4f}")

assert len(sampler.examples) == 64
assert all(e.shape == (1,) + img_shape for e in sampler.examples)
assert all(p.requires_grad for p in cnn.parameters()) and cnn.training and torch.is_grad_enabled()
assert abs(optimizer.param_groups[0]['lr'] - 1e-3 * 0.97 ** 8) < 1e-9

# Langevin steps raise the energy score of the samples the model sees
torch.manual_seed(0)
start = torch.rand((4,) + img_shape) * 2 - 1
imgs_per_step = Sampler.generate_samples(cnn, start.clone(), steps=20, step_size=10, return_img_per_step=True)
print(imgs_per_step.shape)
assert imgs_per_step.shape == (20, 4) + img_shape
assert imgs_per_step.min() >= -1.0 and imgs_per_step.max() <= 1.0
with torch.no_grad():
    before, after = cnn(start).mean().item(), cnn(imgs_per_step[-1]).mean().item()
print(f"score before {before:.4f}, after {after:.4f}")
assert after > before
assert all(p.grad is None or p.grad.abs().sum() >= 0 for p in cnn.parameters())
