"""dome272/Diffusion-Models-pytorch (modules.py + ddpm_conditional.py + utils.one_param):
class-conditional DDPM with a small UNet, EMA and classifier-free guidance, at toy size
(8x8 images, 10 noise steps, channel widths divided by 8) on synthetic data.

APIs: nn.MultiheadAttention(channels, 4, batch_first=True), nn.LayerNorm([channels]),
x.view(...).swapaxes(1, 2), nn.Conv2d(bias=False), nn.GroupNorm(1, C), nn.GELU / F.gelu,
nn.MaxPool2d(2), nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True), nn.SiLU,
emb[:, :, None, None].repeat(1, 1, H, W), sinusoidal pos_encoding with t.repeat(1, channels // 2),
next(iter(m.parameters())).device, nn.Embedding label_emb with t += ..., torch.linspace noise
schedule, torch.cumprod(alpha, dim=0), alpha_hat[t][:, None, None, None], torch.randn_like,
torch.randint(low=1, high=..., size=(n,)), copy.deepcopy(model).eval().requires_grad_(False),
EMA through ma_params.data = old * beta + (1 - beta) * new and load_state_dict, AdamW with
weight_decay, OneCycleLR(max_lr=, steps_per_epoch=, epochs=), nn.MSELoss,
`with torch.autocast("cuda") and (torch.inference_mode() if not train else torch.enable_grad())`,
@torch.inference_mode() sampling with reversed(range(1, T)), (torch.ones(n) * i).long(),
torch.lerp for classifier-free guidance, x.clamp(-1, 1), (x * 255).type(torch.uint8), and
torch.save of the model, EMA model and optimizer state dicts.
"""
import copy
import os
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim
from torch.utils.data import DataLoader, TensorDataset


def one_param(m):
    "get model first parameter"
    return next(iter(m.parameters()))


class EMA:
    def __init__(self, beta):
        super().__init__()
        self.beta = beta
        self.step = 0

    def update_model_average(self, ma_model, current_model):
        for current_params, ma_params in zip(current_model.parameters(), ma_model.parameters()):
            old_weight, up_weight = ma_params.data, current_params.data
            ma_params.data = self.update_average(old_weight, up_weight)

    def update_average(self, old, new):
        if old is None:
            return new
        return old * self.beta + (1 - self.beta) * new

    def step_ema(self, ema_model, model, step_start_ema=2000):
        if self.step < step_start_ema:
            self.reset_parameters(ema_model, model)
            self.step += 1
            return
        self.update_model_average(ema_model, model)
        self.step += 1

    def reset_parameters(self, ema_model, model):
        ema_model.load_state_dict(model.state_dict())


class SelfAttention(nn.Module):
    def __init__(self, channels):
        super(SelfAttention, self).__init__()
        self.channels = channels
        self.mha = nn.MultiheadAttention(channels, 4, batch_first=True)
        self.ln = nn.LayerNorm([channels])
        self.ff_self = nn.Sequential(
            nn.LayerNorm([channels]),
            nn.Linear(channels, channels),
            nn.GELU(),
            nn.Linear(channels, channels),
        )

    def forward(self, x):
        size = x.shape[-1]
        x = x.view(-1, self.channels, size * size).swapaxes(1, 2)
        x_ln = self.ln(x)
        attention_value, _ = self.mha(x_ln, x_ln, x_ln)
        attention_value = attention_value + x
        attention_value = self.ff_self(attention_value) + attention_value
        return attention_value.swapaxes(2, 1).view(-1, self.channels, size, size)


class DoubleConv(nn.Module):
    def __init__(self, in_channels, out_channels, mid_channels=None, residual=False):
        super().__init__()
        self.residual = residual
        if not mid_channels:
            mid_channels = out_channels
        self.double_conv = nn.Sequential(
            nn.Conv2d(in_channels, mid_channels, kernel_size=3, padding=1, bias=False),
            nn.GroupNorm(1, mid_channels),
            nn.GELU(),
            nn.Conv2d(mid_channels, out_channels, kernel_size=3, padding=1, bias=False),
            nn.GroupNorm(1, out_channels),
        )

    def forward(self, x):
        if self.residual:
            return F.gelu(x + self.double_conv(x))
        else:
            return self.double_conv(x)


class Down(nn.Module):
    def __init__(self, in_channels, out_channels, emb_dim=32):
        super().__init__()
        self.maxpool_conv = nn.Sequential(
            nn.MaxPool2d(2),
            DoubleConv(in_channels, in_channels, residual=True),
            DoubleConv(in_channels, out_channels),
        )
        self.emb_layer = nn.Sequential(nn.SiLU(), nn.Linear(emb_dim, out_channels))

    def forward(self, x, t):
        x = self.maxpool_conv(x)
        emb = self.emb_layer(t)[:, :, None, None].repeat(1, 1, x.shape[-2], x.shape[-1])
        return x + emb


class Up(nn.Module):
    def __init__(self, in_channels, out_channels, emb_dim=32):
        super().__init__()
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
        self.conv = nn.Sequential(
            DoubleConv(in_channels, in_channels, residual=True),
            DoubleConv(in_channels, out_channels, in_channels // 2),
        )
        self.emb_layer = nn.Sequential(nn.SiLU(), nn.Linear(emb_dim, out_channels))

    def forward(self, x, skip_x, t):
        x = self.up(x)
        x = torch.cat([skip_x, x], dim=1)
        x = self.conv(x)
        emb = self.emb_layer(t)[:, :, None, None].repeat(1, 1, x.shape[-2], x.shape[-1])
        return x + emb


class UNet(nn.Module):
    def __init__(self, c_in=3, c_out=3, time_dim=32):
        super().__init__()
        self.time_dim = time_dim
        self.inc = DoubleConv(c_in, 8)
        self.down1 = Down(8, 16)
        self.sa1 = SelfAttention(16)
        self.down2 = Down(16, 32)
        self.sa2 = SelfAttention(32)
        self.down3 = Down(32, 32)
        self.sa3 = SelfAttention(32)

        self.bot1 = DoubleConv(32, 64)
        self.bot2 = DoubleConv(64, 64)
        self.bot3 = DoubleConv(64, 32)

        self.up1 = Up(64, 16)
        self.sa4 = SelfAttention(16)
        self.up2 = Up(32, 8)
        self.sa5 = SelfAttention(8)
        self.up3 = Up(16, 8)
        self.sa6 = SelfAttention(8)
        self.outc = nn.Conv2d(8, c_out, kernel_size=1)

    def pos_encoding(self, t, channels):
        inv_freq = 1.0 / (
            10000
            ** (torch.arange(0, channels, 2, device=one_param(self).device).float() / channels)
        )
        pos_enc_a = torch.sin(t.repeat(1, channels // 2) * inv_freq)
        pos_enc_b = torch.cos(t.repeat(1, channels // 2) * inv_freq)
        pos_enc = torch.cat([pos_enc_a, pos_enc_b], dim=-1)
        return pos_enc

    def unet_forwad(self, x, t):
        x1 = self.inc(x)
        x2 = self.down1(x1, t)
        x2 = self.sa1(x2)
        x3 = self.down2(x2, t)
        x3 = self.sa2(x3)
        x4 = self.down3(x3, t)
        x4 = self.sa3(x4)

        x4 = self.bot1(x4)
        x4 = self.bot2(x4)
        x4 = self.bot3(x4)

        x = self.up1(x4, x3, t)
        x = self.sa4(x)
        x = self.up2(x, x2, t)
        x = self.sa5(x)
        x = self.up3(x, x1, t)
        x = self.sa6(x)
        output = self.outc(x)
        return output

    def forward(self, x, t):
        t = t.unsqueeze(-1).type(torch.float)
        t = self.pos_encoding(t, self.time_dim)
        return self.unet_forwad(x, t)


class UNet_conditional(UNet):
    def __init__(self, c_in=3, c_out=3, time_dim=32, num_classes=None):
        super().__init__(c_in, c_out, time_dim)
        if num_classes is not None:
            self.label_emb = nn.Embedding(num_classes, time_dim)

    def forward(self, x, t, y):
        t = t.unsqueeze(-1).type(torch.float)
        t = self.pos_encoding(t, self.time_dim)
        if y is not None:
            t += self.label_emb(y)
        return self.unet_forwad(x, t)


class Diffusion:
    def __init__(self, noise_steps=1000, beta_start=1e-4, beta_end=0.02, img_size=256,
                 num_classes=10, device="cuda"):
        self.noise_steps = noise_steps
        self.beta_start = beta_start
        self.beta_end = beta_end
        self.beta = self.prepare_noise_schedule().to(device)
        self.alpha = 1. - self.beta
        self.alpha_hat = torch.cumprod(self.alpha, dim=0)
        self.img_size = img_size
        self.model = UNet_conditional(num_classes=num_classes).to(device)
        self.ema_model = copy.deepcopy(self.model).eval().requires_grad_(False)
        self.device = device

    def prepare_noise_schedule(self):
        return torch.linspace(self.beta_start, self.beta_end, self.noise_steps)

    def noise_images(self, x, t):
        sqrt_alpha_hat = torch.sqrt(self.alpha_hat[t])[:, None, None, None]
        sqrt_one_minus_alpha_hat = torch.sqrt(1 - self.alpha_hat[t])[:, None, None, None]
        Ɛ = torch.randn_like(x)
        return sqrt_alpha_hat * x + sqrt_one_minus_alpha_hat * Ɛ, Ɛ

    def sample_timesteps(self, n):
        return torch.randint(low=1, high=self.noise_steps, size=(n,))

    @torch.inference_mode()
    def sample(self, use_ema, n, labels, cfg_scale=3):
        model = self.ema_model if use_ema else self.model
        model.eval()
        with torch.inference_mode():
            x = torch.randn((n, 3, self.img_size, self.img_size)).to(self.device)
            for i in reversed(range(1, self.noise_steps)):
                t = (torch.ones(n) * i).long().to(self.device)
                predicted_noise = model(x, t, labels)
                if cfg_scale > 0:
                    uncond_predicted_noise = model(x, t, None)
                    predicted_noise = torch.lerp(uncond_predicted_noise, predicted_noise, cfg_scale)
                alpha = self.alpha[t][:, None, None, None]
                alpha_hat = self.alpha_hat[t][:, None, None, None]
                beta = self.beta[t][:, None, None, None]
                if i > 1:
                    noise = torch.randn_like(x)
                else:
                    noise = torch.zeros_like(x)
                x = 1 / torch.sqrt(alpha) * (x - ((1 - alpha) / (torch.sqrt(1 - alpha_hat))) * predicted_noise) + torch.sqrt(beta) * noise
        x = (x.clamp(-1, 1) + 1) / 2
        x = (x * 255).type(torch.uint8)
        return x

    def one_epoch(self, train=True):
        avg_loss = 0.
        if train: self.model.train()
        else: self.model.eval()
        for i, (images, labels) in enumerate(self.train_dataloader):
            with torch.autocast("cuda") and (torch.inference_mode() if not train else torch.enable_grad()):
                images = images.to(self.device)
                labels = labels.to(self.device)
                t = self.sample_timesteps(images.shape[0]).to(self.device)
                x_t, noise = self.noise_images(images, t)
                if np.random.random() < 0.1:
                    labels = None
                predicted_noise = self.model(x_t, t, labels)
                loss = self.mse(noise, predicted_noise)
                avg_loss += loss
                if train:
                    self.optimizer.zero_grad()
                    self.scheduler.step()
                    loss.backward()
                    self.optimizer.step()
                    self.ema.step_ema(self.ema_model, self.model, step_start_ema=2)
        return avg_loss.mean().item()

    @torch.inference_mode()
    def log_images(self, run_name, epoch):
        labels = torch.arange(4).long().to(self.device)
        sampled_images = self.sample(use_ema=False, n=len(labels), labels=labels)
        ema_sampled_images = self.sample(use_ema=True, n=len(labels), labels=labels)
        torch.save(self.model.state_dict(), os.path.join("models", run_name, f"ckpt.pt"))
        torch.save(self.ema_model.state_dict(), os.path.join("models", run_name, f"ema_ckpt.pt"))
        torch.save(self.optimizer.state_dict(), os.path.join("models", run_name, f"optim.pt"))
        return sampled_images, ema_sampled_images

    def fit(self, args):
        os.makedirs(os.path.join("models", args.run_name), exist_ok=True)
        images = torch.rand(8, 3, args.img_size, args.img_size) * 2 - 1
        labels = torch.randint(0, args.num_classes, (8,))
        self.train_dataloader = DataLoader(TensorDataset(images, labels),
                                           batch_size=args.batch_size, shuffle=True)
        self.optimizer = optim.AdamW(self.model.parameters(), lr=args.lr, weight_decay=0.001)
        self.scheduler = optim.lr_scheduler.OneCycleLR(self.optimizer, max_lr=args.lr,
                                                       steps_per_epoch=len(self.train_dataloader),
                                                       epochs=args.epochs)
        self.mse = nn.MSELoss()
        self.ema = EMA(0.995)
        history = []
        for epoch in range(args.epochs):
            self.model.train()
            _ = self.one_epoch(train=True)
            avg_loss = self.one_epoch(train=False)
            history.append(avg_loss)
            if epoch % 5 == 0:
                out = self.log_images(run_name=args.run_name, epoch=epoch)
        return history, out


config = SimpleNamespace(run_name="DDPM_conditional", epochs=3, noise_steps=10, seed=42,
                         batch_size=4, img_size=8, num_classes=4, device="cpu", lr=3e-3)

torch.manual_seed(config.seed)
np.random.seed(config.seed)
diffuser = Diffusion(config.noise_steps, img_size=config.img_size,
                     num_classes=config.num_classes, device=config.device)
assert not any(p.requires_grad for p in diffuser.ema_model.parameters())
assert not diffuser.ema_model.training
assert diffuser.alpha_hat.shape == (10,) and diffuser.alpha_hat[-1] < diffuser.alpha_hat[0]

history, (sampled, ema_sampled) = diffuser.fit(config)
assert len(history) == 3 and all(np.isfinite(h) for h in history), history
assert sampled.dtype == torch.uint8 and sampled.shape == (4, 3, 8, 8)
assert ema_sampled.shape == (4, 3, 8, 8)
# after step_start_ema steps the EMA weights lag behind the trained weights
w, w_ema = diffuser.model.outc.weight, diffuser.ema_model.outc.weight
assert not torch.equal(w, w_ema) and not w_ema.requires_grad
assert diffuser.ema.step == 6
state = torch.load(os.path.join("models", config.run_name, "optim.pt"))
assert len(state["param_groups"]) == 1 and "initial_lr" in state["param_groups"][0]
reloaded = UNet_conditional(num_classes=config.num_classes)
reloaded.load_state_dict(torch.load(os.path.join("models", config.run_name, "ckpt.pt")))
assert reloaded.label_emb.weight.shape == (4, 32)
print("ddpm ok", history)
