"""Karpathy's deep-vector-quantization (dvq/model/quantize.py, deepmind_enc_dec.py, loss.py and
dvq/vqvae.py) at toy size on synthetic 16x16 'CIFAR' images, the Lightning module written as a
plain nn.Module driven by a loop (its callbacks' cos_anneal schedules applied by hand), scipy's
kmeans2(minit='points') written in numpy, the OpenAI (attrs-based) encoder/decoder left out.
VQVAEQuantize: a buffer 'data_initialized' read with .item() and set with fill_(1),
torch.randperm, embed.weight.data.copy_(torch.from_numpy(...)), distances via pow(2).sum(1,
keepdim=True) - 2 * flatten @ weight.t() + ..., (-dist).max(1), F.embedding, the commitment cost
with detach() and the straight-through z_e + (z_q - z_e).detach(). GumbelQuantize:
F.gumbel_softmax(logits, tau=, dim=1, hard=...) (random: it draws exponentials), torch.einsum(
'b n h w, n d -> b d h w') with spaces in the equation, the KL to the uniform prior. DeepMind
encoder / decoder with ReLU(inplace=True), `out += x` residual blocks and ConvTranspose2d.
configure_optimizers' decay / no_decay sets over named_modules / named_parameters into AdamW
groups, and the validation perplexity from F.one_hot(ind, n).float().mean(0)."""
import math

import numpy as np
import torch
from torch import nn, einsum
import torch.nn.functional as F


def kmeans2(data, k, minit='points', iter=10):
    """scipy.cluster.vq.kmeans2 stand-in: k random points as centroids, then Lloyd steps."""
    rng = np.random.RandomState(0)
    centroids = data[rng.choice(len(data), k, replace=False)]
    for _ in range(iter):
        labels = ((data[:, None] - centroids[None]) ** 2).sum(-1).argmin(1)
        for j in range(k):
            if (labels == j).any():
                centroids[j] = data[labels == j].mean(0)
    return centroids, labels

# ----------------------------------------------------------------------------- model/quantize.py

class VQVAEQuantize(nn.Module):
    def __init__(self, num_hiddens, n_embed, embedding_dim):
        super().__init__()

        self.embedding_dim = embedding_dim
        self.n_embed = n_embed

        self.kld_scale = 10.0

        self.proj = nn.Conv2d(num_hiddens, embedding_dim, 1)
        self.embed = nn.Embedding(n_embed, embedding_dim)

        self.register_buffer('data_initialized', torch.zeros(1))

    def forward(self, z):
        B, C, H, W = z.size()

        # project and flatten out space, so (B, C, H, W) -> (B*H*W, C)
        z_e = self.proj(z)
        z_e = z_e.permute(0, 2, 3, 1) # make (B, H, W, C)
        flatten = z_e.reshape(-1, self.embedding_dim)

        # DeepMind def does not do this but I find I have to... ;\
        if self.training and self.data_initialized.item() == 0:
            print('running kmeans!!') # data driven initialization for the embeddings
            rp = torch.randperm(flatten.size(0))
            kd = kmeans2(flatten[rp[:20000]].data.cpu().numpy(), self.n_embed, minit='points')
            self.embed.weight.data.copy_(torch.from_numpy(kd[0]))
            self.data_initialized.fill_(1)
            # TODO: this won't work in multi-GPU setups

        dist = (
            flatten.pow(2).sum(1, keepdim=True)
            - 2 * flatten @ self.embed.weight.t()
            + self.embed.weight.pow(2).sum(1, keepdim=True).t()
        )
        _, ind = (-dist).max(1)
        ind = ind.view(B, H, W)

        # vector quantization cost that trains the embedding vectors
        z_q = self.embed_code(ind) # (B, H, W, C)
        commitment_cost = 0.25
        diff = commitment_cost * (z_q.detach() - z_e).pow(2).mean() + (z_q - z_e.detach()).pow(2).mean()
        diff *= self.kld_scale

        z_q = z_e + (z_q - z_e).detach() # noop in forward pass, straight-through gradient estimator in backward pass
        z_q = z_q.permute(0, 3, 1, 2) # stack encodings into channels again: (B, C, H, W)
        return z_q, diff, ind

    def embed_code(self, embed_id):
        return F.embedding(embed_id, self.embed.weight)


class GumbelQuantize(nn.Module):
    def __init__(self, num_hiddens, n_embed, embedding_dim, straight_through=False):
        super().__init__()

        self.embedding_dim = embedding_dim
        self.n_embed = n_embed

        self.straight_through = straight_through
        self.temperature = 1.0
        self.kld_scale = 5e-4

        self.proj = nn.Conv2d(num_hiddens, n_embed, 1)
        self.embed = nn.Embedding(n_embed, embedding_dim)

    def forward(self, z):

        # force hard = True when we are in eval mode, as we must quantize
        hard = self.straight_through if self.training else True

        logits = self.proj(z)
        soft_one_hot = F.gumbel_softmax(logits, tau=self.temperature, dim=1, hard=hard)
        z_q = einsum('b n h w, n d -> b d h w', soft_one_hot, self.embed.weight)

        # + kl divergence to the prior loss
        qy = F.softmax(logits, dim=1)
        diff = self.kld_scale * torch.sum(qy * torch.log(qy * self.n_embed + 1e-10), dim=1).mean()

        ind = soft_one_hot.argmax(dim=1)
        return z_q, diff, ind

# ----------------------------------------------------------------------------- model/deepmind_enc_dec.py

class ResBlock(nn.Module):
    def __init__(self, input_channels, channel):
        super().__init__()

        self.conv = nn.Sequential(
            nn.Conv2d(input_channels, channel, 3, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(channel, input_channels, 1),
        )

    def forward(self, x):
        out = self.conv(x)
        out += x
        out = F.relu(out)
        return out


class DeepMindEncoder(nn.Module):

    def __init__(self, input_channels=3, n_hid=64):
        super().__init__()

        self.net = nn.Sequential(
            nn.Conv2d(input_channels, n_hid, 4, stride=2, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(n_hid, 2*n_hid, 4, stride=2, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(2*n_hid, 2*n_hid, 3, padding=1),
            nn.ReLU(),
            ResBlock(2*n_hid, 2*n_hid//4),
            ResBlock(2*n_hid, 2*n_hid//4),
        )

        self.output_channels = 2 * n_hid
        self.output_stide = 4

    def forward(self, x):
        return self.net(x)


class DeepMindDecoder(nn.Module):

    def __init__(self, n_init=32, n_hid=64, output_channels=3):
        super().__init__()

        self.net = nn.Sequential(
            nn.Conv2d(n_init, 2*n_hid, 3, padding=1),
            nn.ReLU(),
            ResBlock(2*n_hid, 2*n_hid//4),
            ResBlock(2*n_hid, 2*n_hid//4),
            nn.ConvTranspose2d(2*n_hid, n_hid, 4, stride=2, padding=1),
            nn.ReLU(inplace=True),
            nn.ConvTranspose2d(n_hid, output_channels, 4, stride=2, padding=1),
        )

    def forward(self, x):
        return self.net(x)

# ----------------------------------------------------------------------------- model/loss.py

class Normal:
    data_variance = 0.06327039811675479 # cifar-10 data variance, from deepmind sonnet code

    @classmethod
    def inmap(cls, x):
        return x - 0.5 # map [0,1] range to [-0.5, 0.5]

    @classmethod
    def unmap(cls, x):
        return torch.clamp(x + 0.5, 0, 1)

    @classmethod
    def nll(cls, x, mu):
        return ((x - mu)**2).mean() / (2 * cls.data_variance) #+ math.log(math.sqrt(2 * math.pi * cls.data_variance))

# ----------------------------------------------------------------------------- vqvae.py

class VQVAE(nn.Module):

    def __init__(self, args, input_channels=3):
        super().__init__()
        self.args = args

        # encoder/decoder module pair
        Encoder, Decoder = {
            'deepmind': (DeepMindEncoder, DeepMindDecoder),
        }[args.enc_dec_flavor]
        self.encoder = Encoder(input_channels=input_channels, n_hid=args.n_hid)
        self.decoder = Decoder(n_init=args.embedding_dim, n_hid=args.n_hid, output_channels=input_channels)

        # the quantizer module sandwiched between them, +contributes a KL(posterior || prior) loss to ELBO
        QuantizerModule = {
            'vqvae': VQVAEQuantize,
            'gumbel': GumbelQuantize,
        }[args.vq_flavor]
        self.quantizer = QuantizerModule(self.encoder.output_channels, args.num_embeddings, args.embedding_dim)

        # the data reconstruction loss in the ELBO
        ReconLoss = {
            'l2': Normal,
        }[args.loss_flavor]
        self.recon_loss = ReconLoss

    def forward(self, x):
        z = self.encoder(x)
        z_q, latent_loss, ind = self.quantizer(z)
        x_hat = self.decoder(z_q)
        return x_hat, latent_loss, ind

    def training_step(self, batch, batch_idx):
        x, y = batch # hate that i have to do this here in the model
        x = self.recon_loss.inmap(x)
        x_hat, latent_loss, ind = self.forward(x)
        recon_loss = self.recon_loss.nll(x, x_hat)
        loss = recon_loss + latent_loss
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch # hate that i have to do this here in the model
        x = self.recon_loss.inmap(x)
        x_hat, latent_loss, ind = self.forward(x)
        recon_loss = self.recon_loss.nll(x, x_hat)

        # debugging: cluster perplexity. when perplexity == num_embeddings then all clusters are used exactly equally
        encodings = F.one_hot(ind, self.quantizer.n_embed).float().reshape(-1, self.quantizer.n_embed)
        avg_probs = encodings.mean(0)
        perplexity = (-(avg_probs * torch.log(avg_probs + 1e-10)).sum()).exp()
        cluster_use = torch.sum(avg_probs > 0)
        return recon_loss, perplexity, cluster_use

    def configure_optimizers(self):

        # separate out all parameters to those that will and won't experience regularizing weight decay
        decay = set()
        no_decay = set()
        whitelist_weight_modules = (torch.nn.Linear, torch.nn.Conv2d, torch.nn.ConvTranspose2d)
        blacklist_weight_modules = (torch.nn.LayerNorm, torch.nn.BatchNorm2d, torch.nn.Embedding)
        for mn, m in self.named_modules():
            for pn, p in m.named_parameters():
                fpn = '%s.%s' % (mn, pn) if mn else pn # full param name

                if pn.endswith('bias'):
                    # all biases will not be decayed
                    no_decay.add(fpn)
                elif pn.endswith('weight') and isinstance(m, whitelist_weight_modules):
                    # weights of whitelist modules will be weight decayed
                    decay.add(fpn)
                elif pn.endswith('weight') and isinstance(m, blacklist_weight_modules):
                    # weights of blacklist modules will NOT be weight decayed
                    no_decay.add(fpn)

        # validate that we considered every parameter
        param_dict = {pn: p for pn, p in self.named_parameters()}
        inter_params = decay & no_decay
        union_params = decay | no_decay
        assert len(inter_params) == 0, "parameters %s made it into both decay/no_decay sets!" % (str(inter_params), )
        assert len(param_dict.keys() - union_params) == 0, "parameters %s were not separated into either decay/no_decay set!" \
                                                    % (str(param_dict.keys() - union_params), )

        # create the pytorch optimizer object
        optim_groups = [
            {"params": [param_dict[pn] for pn in sorted(list(decay))], "weight_decay": 1e-4},
            {"params": [param_dict[pn] for pn in sorted(list(no_decay))], "weight_decay": 0.0},
        ]
        optimizer = torch.optim.AdamW(optim_groups, lr=3e-4, betas=(0.9, 0.999), eps=1e-08, weight_decay=1e-4)
        self.optimizer = optimizer

        return optimizer

def cos_anneal(e0, e1, t0, t1, e):
    """ ramp from (e0, t0) -> (e1, t1) through a cosine schedule based on e \\in [e0, e1] """
    alpha = max(0, min(1, (e - e0) / (e1 - e0))) # what fraction of the way through are we
    alpha = 1.0 - math.cos(alpha * math.pi/2) # warp through cosine
    t = alpha * t1 + (1 - alpha) * t0 # interpolate accordingly
    return t

class Args:
    enc_dec_flavor = 'deepmind'
    loss_flavor = 'l2'
    num_embeddings = 16
    embedding_dim = 8
    n_hid = 16

torch.manual_seed(1337)
np.random.seed(1337)
xs = torch.rand(40, 3, 16, 16)
xs = (xs + xs.roll(1, dims=2) + xs.roll(1, dims=3)) / 3   # a little spatial structure
train_batches = [(xs[i:i + 8], None) for i in range(0, 32, 8)]
val_batch = (xs[32:], None)

for flavor in ('vqvae', 'gumbel'):
    args = Args()
    args.vq_flavor = flavor
    torch.manual_seed(1337)
    model = VQVAE(args)
    optimizer = model.configure_optimizers()
    print(flavor, [len(g['params']) for g in optimizer.param_groups],
          sum(p.numel() for p in model.parameters()))
    global_step = 0
    first = None
    for epoch in range(3):
        model.train()
        for batch_idx, batch in enumerate(train_batches):
            t = cos_anneal(0, 1200000, 3e-4, 1.25e-6, global_step)
            for g in optimizer.param_groups:
                g['lr'] = t
            if flavor == 'gumbel':
                model.quantizer.temperature = cos_anneal(0, 150000, 1.0, 1.0/16, global_step)
                model.quantizer.kld_scale = cos_anneal(0, 5000, 0.0, 5e-4, global_step)
            loss = model.training_step(batch, batch_idx)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            global_step += 1
            first = loss.item() if first is None else first
        model.eval()
        with torch.no_grad():
            recon_loss, perplexity, cluster_use = model.validation_step(val_batch, 0)
        print(flavor, 'epoch', epoch, 'loss %.5f val_recon_loss %.5f perplexity %.4f cluster_use %d'
              % (loss.item(), recon_loss.item(), perplexity.item(), cluster_use.item()))
    assert loss.item() < first
    with torch.no_grad():
        x_hat, latent_loss, ind = model(Normal.inmap(val_batch[0]))
    assert ind.shape == (8, 4, 4) and ind.dtype == torch.int64 and x_hat.shape == (8, 3, 16, 16)
    assert Normal.unmap(x_hat).min() >= 0 and Normal.unmap(x_hat).max() <= 1
    if flavor == 'vqvae':
        assert model.quantizer.data_initialized.item() == 1
