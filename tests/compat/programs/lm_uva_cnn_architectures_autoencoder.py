"""UvA Deep Learning tutorials 5 (Inception, ResNet and DenseNet) and 9 (Deep Autoencoders), Phillip
Lippe, without Lightning and at toy size. Tutorial 5: act_fn_by_name = {"tanh": nn.Tanh, "relu":
nn.ReLU, "leakyrelu": nn.LeakyReLU, "gelu": nn.GELU}, InceptionBlock with four branches
concatenated by torch.cat(x_out, dim=1), ResNetBlock / PreActResNetBlock with an optional
stride-2 subsample, DenseLayer / DenseBlock / TransitionLayer (nn.AvgPool2d), models whose
hparams live in a types.SimpleNamespace, _init_params with nn.init.kaiming_normal_(m.weight,
nonlinearity=...) and nn.init.constant_ on BatchNorm, the head nn.AdaptiveAvgPool2d((1, 1)) +
nn.Flatten(); tutorial 9: Encoder (strided Conv2d, GELU, nn.Flatten, nn.Linear to the latent),
Decoder (nn.Linear, x.reshape(x.shape[0], -1, 4, 4), nn.ConvTranspose2d(..., output_padding=1,
padding=1, stride=2), nn.Tanh), the reconstruction loss F.mse_loss(x, x_hat, reduction="none")
.sum(dim=[1, 2, 3]).mean(dim=[0]), optim.lr_scheduler.ReduceLROnPlateau(mode="min", factor=0.2,
patience=20, min_lr=5e-5), and find_similar_images with torch.cdist(query[None, :], key_embeds)
and torch.topk(dist, k=K, largest=False)."""
import types

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

act_fn_by_name = {"tanh": nn.Tanh, "relu": nn.ReLU, "leakyrelu": nn.LeakyReLU, "gelu": nn.GELU}


class InceptionBlock(nn.Module):
    def __init__(self, c_in, c_red: dict, c_out: dict, act_fn):
        super().__init__()
        self.conv_1x1 = nn.Sequential(nn.Conv2d(c_in, c_out["1x1"], kernel_size=1), nn.BatchNorm2d(c_out["1x1"]), act_fn())
        self.conv_3x3 = nn.Sequential(
            nn.Conv2d(c_in, c_red["3x3"], kernel_size=1), nn.BatchNorm2d(c_red["3x3"]), act_fn(),
            nn.Conv2d(c_red["3x3"], c_out["3x3"], kernel_size=3, padding=1), nn.BatchNorm2d(c_out["3x3"]), act_fn())
        self.conv_5x5 = nn.Sequential(
            nn.Conv2d(c_in, c_red["5x5"], kernel_size=1), nn.BatchNorm2d(c_red["5x5"]), act_fn(),
            nn.Conv2d(c_red["5x5"], c_out["5x5"], kernel_size=5, padding=2), nn.BatchNorm2d(c_out["5x5"]), act_fn())
        self.max_pool = nn.Sequential(
            nn.MaxPool2d(kernel_size=3, padding=1, stride=1),
            nn.Conv2d(c_in, c_out["max"], kernel_size=1), nn.BatchNorm2d(c_out["max"]), act_fn())

    def forward(self, x):
        x_1x1 = self.conv_1x1(x)
        x_3x3 = self.conv_3x3(x)
        x_5x5 = self.conv_5x5(x)
        x_max = self.max_pool(x)
        x_out = torch.cat([x_1x1, x_3x3, x_5x5, x_max], dim=1)
        return x_out


class ResNetBlock(nn.Module):
    def __init__(self, c_in, act_fn, subsample=False, c_out=-1):
        super().__init__()
        if not subsample:
            c_out = c_in
        self.net = nn.Sequential(
            nn.Conv2d(c_in, c_out, kernel_size=3, padding=1, stride=1 if not subsample else 2, bias=False),
            nn.BatchNorm2d(c_out), act_fn(),
            nn.Conv2d(c_out, c_out, kernel_size=3, padding=1, bias=False), nn.BatchNorm2d(c_out))
        self.downsample = nn.Conv2d(c_in, c_out, kernel_size=1, stride=2) if subsample else None
        self.act_fn = act_fn()

    def forward(self, x):
        z = self.net(x)
        if self.downsample is not None:
            x = self.downsample(x)
        out = z + x
        out = self.act_fn(out)
        return out


class PreActResNetBlock(nn.Module):
    def __init__(self, c_in, act_fn, subsample=False, c_out=-1):
        super().__init__()
        if not subsample:
            c_out = c_in
        self.net = nn.Sequential(
            nn.BatchNorm2d(c_in), act_fn(),
            nn.Conv2d(c_in, c_out, kernel_size=3, padding=1, stride=1 if not subsample else 2, bias=False),
            nn.BatchNorm2d(c_out), act_fn(),
            nn.Conv2d(c_out, c_out, kernel_size=3, padding=1, bias=False))
        self.downsample = nn.Sequential(nn.BatchNorm2d(c_in), act_fn(),
                                        nn.Conv2d(c_in, c_out, kernel_size=1, stride=2, bias=False)) if subsample else None

    def forward(self, x):
        z = self.net(x)
        if self.downsample is not None:
            x = self.downsample(x)
        out = z + x
        return out


resnet_blocks_by_name = {"ResNetBlock": ResNetBlock, "PreActResNetBlock": PreActResNetBlock}


class ResNet(nn.Module):
    def __init__(self, num_classes=10, num_blocks=[1, 1], c_hidden=[8, 16], act_fn_name="relu",
                 block_name="ResNetBlock", **kwargs):
        super().__init__()
        assert block_name in resnet_blocks_by_name
        self.hparams = types.SimpleNamespace(num_classes=num_classes, c_hidden=c_hidden, num_blocks=num_blocks,
                                             act_fn_name=act_fn_name, act_fn=act_fn_by_name[act_fn_name],
                                             block_class=resnet_blocks_by_name[block_name])
        self._create_network()
        self._init_params()

    def _create_network(self):
        c_hidden = self.hparams.c_hidden
        if self.hparams.block_class == PreActResNetBlock:
            self.input_net = nn.Sequential(nn.Conv2d(1, c_hidden[0], kernel_size=3, padding=1, bias=False))
        else:
            self.input_net = nn.Sequential(nn.Conv2d(1, c_hidden[0], kernel_size=3, padding=1, bias=False),
                                           nn.BatchNorm2d(c_hidden[0]), self.hparams.act_fn())
        blocks = []
        for block_idx, block_count in enumerate(self.hparams.num_blocks):
            for bc in range(block_count):
                subsample = (bc == 0 and block_idx > 0)
                blocks.append(self.hparams.block_class(
                    c_in=c_hidden[block_idx if not subsample else (block_idx - 1)], act_fn=self.hparams.act_fn,
                    subsample=subsample, c_out=c_hidden[block_idx]))
        self.blocks = nn.Sequential(*blocks)
        self.output_net = nn.Sequential(nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(),
                                        nn.Linear(c_hidden[-1], self.hparams.num_classes))

    def _init_params(self):
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity=self.hparams.act_fn_name)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)

    def forward(self, x):
        x = self.input_net(x)
        x = self.blocks(x)
        x = self.output_net(x)
        return x


class DenseLayer(nn.Module):
    def __init__(self, c_in, bn_size, growth_rate, act_fn):
        super().__init__()
        self.net = nn.Sequential(
            nn.BatchNorm2d(c_in), act_fn(), nn.Conv2d(c_in, bn_size * growth_rate, kernel_size=1, bias=False),
            nn.BatchNorm2d(bn_size * growth_rate), act_fn(),
            nn.Conv2d(bn_size * growth_rate, growth_rate, kernel_size=3, padding=1, bias=False))

    def forward(self, x):
        out = self.net(x)
        out = torch.cat([out, x], dim=1)
        return out


class DenseBlock(nn.Module):
    def __init__(self, c_in, num_layers, bn_size, growth_rate, act_fn):
        super().__init__()
        layers = []
        for layer_idx in range(num_layers):
            layers.append(DenseLayer(c_in=c_in + layer_idx * growth_rate, bn_size=bn_size,
                                     growth_rate=growth_rate, act_fn=act_fn))
        self.block = nn.Sequential(*layers)

    def forward(self, x):
        out = self.block(x)
        return out


class TransitionLayer(nn.Module):
    def __init__(self, c_in, c_out, act_fn):
        super().__init__()
        self.transition = nn.Sequential(nn.BatchNorm2d(c_in), act_fn(),
                                        nn.Conv2d(c_in, c_out, kernel_size=1, bias=False),
                                        nn.AvgPool2d(kernel_size=2, stride=2))

    def forward(self, x):
        return self.transition(x)


torch.manual_seed(42)
block = InceptionBlock(4, c_red={"3x3": 4, "5x5": 2}, c_out={"1x1": 3, "3x3": 5, "5x5": 2, "max": 2},
                       act_fn=act_fn_by_name["gelu"])
print(block(torch.randn(2, 4, 6, 6)).shape)
dense = nn.Sequential(DenseBlock(4, num_layers=2, bn_size=2, growth_rate=3, act_fn=nn.ReLU),
                      TransitionLayer(10, 5, nn.ReLU))
print(dense(torch.randn(2, 4, 8, 8)).shape)
assert dense(torch.randn(2, 4, 8, 8)).shape == (2, 5, 4, 4)


def make_data(n, g):
    # class = which quadrant holds a bright blob
    x = torch.randn(n, 1, 8, 8, generator=g) * 0.2
    y = torch.randint(0, 4, (n,), generator=g)
    for i in range(n):
        r, c = divmod(int(y[i]), 2)
        x[i, 0, 4 * r:4 * r + 4, 4 * c:4 * c + 4] += 1.0
    return x, y


g = torch.Generator().manual_seed(0)
for block_name in ["ResNetBlock", "PreActResNetBlock"]:
    torch.manual_seed(0)
    model = ResNet(num_classes=4, block_name=block_name)
    optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    scheduler = optim.lr_scheduler.MultiStepLR(optimizer, milestones=[20, 30], gamma=0.1)
    for step in range(35):
        x, y = make_data(32, g)
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
    model.eval()
    x, y = make_data(64, g)
    with torch.no_grad():
        acc = (model(x).argmax(dim=-1) == y).float().mean().item()
    print(block_name, sum(p.numel() for p in model.parameters()), f"acc {acc:.3f}")
    assert acc > 0.9


class Encoder(nn.Module):
    def __init__(self, num_input_channels: int, base_channel_size: int, latent_dim: int, act_fn=nn.GELU):
        super().__init__()
        c_hid = base_channel_size
        self.net = nn.Sequential(
            nn.Conv2d(num_input_channels, c_hid, kernel_size=3, padding=1, stride=2),
            act_fn(),
            nn.Conv2d(c_hid, c_hid, kernel_size=3, padding=1),
            act_fn(),
            nn.Conv2d(c_hid, 2 * c_hid, kernel_size=3, padding=1, stride=2),
            act_fn(),
            nn.Flatten(),
            nn.Linear(2 * 16 * c_hid, latent_dim),
        )

    def forward(self, x):
        return self.net(x)


class Decoder(nn.Module):
    def __init__(self, num_input_channels: int, base_channel_size: int, latent_dim: int, act_fn=nn.GELU):
        super().__init__()
        c_hid = base_channel_size
        self.linear = nn.Sequential(nn.Linear(latent_dim, 2 * 16 * c_hid), act_fn())
        self.net = nn.Sequential(
            nn.ConvTranspose2d(2 * c_hid, c_hid, kernel_size=3, output_padding=1, padding=1, stride=2),
            act_fn(),
            nn.Conv2d(c_hid, c_hid, kernel_size=3, padding=1),
            act_fn(),
            nn.ConvTranspose2d(c_hid, num_input_channels, kernel_size=3, output_padding=1, padding=1, stride=2),
            nn.Tanh(),
        )

    def forward(self, x):
        x = self.linear(x)
        x = x.reshape(x.shape[0], -1, 4, 4)
        x = self.net(x)
        return x


class Autoencoder(nn.Module):
    def __init__(self, base_channel_size, latent_dim, num_input_channels=1):
        super().__init__()
        self.encoder = Encoder(num_input_channels, base_channel_size, latent_dim)
        self.decoder = Decoder(num_input_channels, base_channel_size, latent_dim)

    def forward(self, x):
        z = self.encoder(x)
        x_hat = self.decoder(z)
        return x_hat

    def _get_reconstruction_loss(self, batch):
        x, _ = batch
        x_hat = self.forward(x)
        loss = F.mse_loss(x, x_hat, reduction="none")
        loss = loss.sum(dim=[1, 2, 3]).mean(dim=[0])
        return loss


torch.manual_seed(0)
ae = Autoencoder(base_channel_size=8, latent_dim=16)
optimizer = optim.Adam(ae.parameters(), lr=1e-3)
scheduler = optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.2, patience=20, min_lr=5e-5)
def up(x):   # the tutorial's CIFAR images are 32 x 32; these 8 x 8 ones go to 16 x 16
    return F.interpolate(x, scale_factor=2, mode="nearest").clamp(-1, 1)


x_val, y_val = make_data(64, g)
x_val = up(x_val)
for step in range(80):
    x, y = make_data(32, g)
    loss = ae._get_reconstruction_loss((up(x), y))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        val = ae._get_reconstruction_loss((x_val, y_val))
    scheduler.step(val)
    if step % 20 == 0:
        print(f"step {step}: train {loss.item():.3f} val {val.item():.3f}")
print("final val", round(val.item(), 3), optimizer.param_groups[0]["lr"])
assert val.item() < 40


def find_similar_images(query_img, query_z, key_embeds, K=8):
    dist = torch.cdist(query_z[None, :], key_embeds[1], p=2.0)
    dist = dist.squeeze(dim=0)
    dist, indices = torch.topk(dist, K, largest=False)
    return indices


with torch.no_grad():
    embeds = ae.encoder(x_val)
idx = find_similar_images(x_val[0], embeds[0], (x_val, embeds), K=8)
print(idx.tolist(), y_val[idx].tolist())
assert idx[0] == 0 and (y_val[idx] == y_val[0]).float().mean() >= 0.75
