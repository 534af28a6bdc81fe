"""Sebastian Raschka's STAT 453 (spring 2021; rasbt/stat453-deep-learning-ss21), lectures 16-17 at
toy size on synthetic 28x28 and 32x32 images (torchvision's MNIST / CelebA and the plots left
out): helper_train.train_autoencoder_v1 and train_vae_v1 (the KL term -0.5 * torch.sum(1 +
z_log_var - z_mean**2 - torch.exp(z_log_var), axis=1), F.mse_loss(..., reduction='none')
.view(batchsize, -1).sum(axis=1), log dicts, torch.save of the state_dict), helper_evaluate.
compute_epoch_loss_autoencoder under torch.set_grad_enabled(False), the convolutional
autoencoder (Reshape, Trim cutting 29x29 to 28x28, ConvTranspose2d with stride (2, 2) and
padding 0) of conv-autoencoder_mnist.ipynb, and the VAE with nn.UpsamplingNearest2d,
LeakyReLU(inplace=True) and Dropout2d of 3_VAE_nearest-neighbor-upsampling.ipynb. Its
reparameterize moves eps with .to(z_mu.get_device()), which is -1 for a cpu tensor: the notebook
needs a GPU, and on the cpu torch and labkit both refuse it ('Device index must not be
negative'); the program checks that, then trains a subclass that uses z_mu.device."""
import os
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def set_all_seeds(seed):
    os.environ["PL_GLOBAL_SEED"] = str(seed)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


def compute_epoch_loss_autoencoder(model, data_loader, loss_fn, device):
    model.eval()
    curr_loss, num_examples = 0., 0
    with torch.no_grad():
        for features, _ in data_loader:
            features = features.to(device)
            logits = model(features)
            loss = loss_fn(logits, features, reduction='sum')
            num_examples += features.size(0)
            curr_loss += loss

        curr_loss = curr_loss / num_examples
        return curr_loss


def train_autoencoder_v1(num_epochs, model, optimizer, device,
                         train_loader, loss_fn=None,
                         logging_interval=100,
                         skip_epoch_stats=False,
                         save_model=None):

    log_dict = {'train_loss_per_batch': [],
                'train_loss_per_epoch': []}

    if loss_fn is None:
        loss_fn = F.mse_loss

    start_time = time.time()
    for epoch in range(num_epochs):

        model.train()
        for batch_idx, (features, _) in enumerate(train_loader):

            features = features.to(device)

            # FORWARD AND BACK PROP
            logits = model(features)
            loss = loss_fn(logits, features)
            optimizer.zero_grad()

            loss.backward()

            # UPDATE MODEL PARAMETERS
            optimizer.step()

            # LOGGING
            log_dict['train_loss_per_batch'].append(loss.item())

            if not batch_idx % logging_interval:
                print('Epoch: %03d/%03d | Batch %04d/%04d | Loss: %.4f'
                      % (epoch+1, num_epochs, batch_idx,
                          len(train_loader), loss))

        if not skip_epoch_stats:
            model.eval()

            with torch.set_grad_enabled(False):  # save memory during inference

                train_loss = compute_epoch_loss_autoencoder(
                    model, train_loader, loss_fn, device)
                print('***Epoch: %03d/%03d | Loss: %.3f' % (
                      epoch+1, num_epochs, train_loss))
                log_dict['train_loss_per_epoch'].append(train_loss.item())

        print('Time elapsed: %.2f min' % ((time.time() - start_time)/60))

    print('Total Training Time: %.2f min' % ((time.time() - start_time)/60))
    if save_model is not None:
        torch.save(model.state_dict(), save_model)

    return log_dict


def train_vae_v1(num_epochs, model, optimizer, device,
                 train_loader, loss_fn=None,
                 logging_interval=100,
                 skip_epoch_stats=False,
                 reconstruction_term_weight=1,
                 save_model=None):

    log_dict = {'train_combined_loss_per_batch': [],
                'train_combined_loss_per_epoch': [],
                'train_reconstruction_loss_per_batch': [],
                'train_kl_loss_per_batch': []}

    if loss_fn is None:
        loss_fn = F.mse_loss

    start_time = time.time()
    for epoch in range(num_epochs):

        model.train()
        for batch_idx, (features, _) in enumerate(train_loader):

            features = features.to(device)

            # FORWARD AND BACK PROP
            encoded, z_mean, z_log_var, decoded = model(features)

            # total loss = reconstruction loss + KL divergence
            kl_div = -0.5 * torch.sum(1 + z_log_var
                                      - z_mean**2
                                      - torch.exp(z_log_var),
                                      axis=1)  # sum over latent dimension

            batchsize = kl_div.size(0)
            kl_div = kl_div.mean()  # average over batch dimension

            pixelwise = loss_fn(decoded, features, reduction='none')
            pixelwise = pixelwise.view(batchsize, -1).sum(axis=1)  # sum over pixels
            pixelwise = pixelwise.mean()  # average over batch dimension

            loss = reconstruction_term_weight*pixelwise + kl_div

            optimizer.zero_grad()

            loss.backward()

            # UPDATE MODEL PARAMETERS
            optimizer.step()

            # LOGGING
            log_dict['train_combined_loss_per_batch'].append(loss.item())
            log_dict['train_reconstruction_loss_per_batch'].append(pixelwise.item())
            log_dict['train_kl_loss_per_batch'].append(kl_div.item())

            if not batch_idx % logging_interval:
                print('Epoch: %03d/%03d | Batch %04d/%04d | Loss: %.4f'
                      % (epoch+1, num_epochs, batch_idx,
                          len(train_loader), loss))

        print('Time elapsed: %.2f min' % ((time.time() - start_time)/60))

    print('Total Training Time: %.2f min' % ((time.time() - start_time)/60))
    if save_model is not None:
        torch.save(model.state_dict(), save_model)

    return log_dict


DEVICE = torch.device('cuda:0' if torch.cuda.is_available() else 'cpu')
RANDOM_SEED = 123
LEARNING_RATE = 0.0005
BATCH_SIZE = 32

# synthetic MNIST-like digits: strokes on 28x28
g = torch.Generator().manual_seed(0)
def strokes(n, size, channels):
    x = torch.zeros(n, channels, size, size)
    for i in range(n):
        r, c = torch.randint(2, size - 8, (2,), generator=g).tolist()
        if i % 2: x[i, :, r:r + 8, c:c + 2] = 1.0
        else: x[i, :, r:r + 2, c:c + 8] = 1.0
    return TensorDataset(x, torch.zeros(n, dtype=torch.long))
train_loader = DataLoader(strokes(128, 28, 1), batch_size=BATCH_SIZE, shuffle=True)


class Reshape(nn.Module):
    def __init__(self, *args):
        super().__init__()
        self.shape = args

    def forward(self, x):
        return x.view(self.shape)


class Trim(nn.Module):
    def __init__(self, *args):
        super().__init__()

    def forward(self, x):
        return x[:, :, :28, :28]


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()

        self.encoder = nn.Sequential(  # 784
                nn.Conv2d(1, 32, stride=(1, 1), kernel_size=(3, 3), padding=1),
                nn.LeakyReLU(0.01),
                nn.Conv2d(32, 64, stride=(2, 2), kernel_size=(3, 3), padding=1),
                nn.LeakyReLU(0.01),
                nn.Conv2d(64, 64, stride=(2, 2), kernel_size=(3, 3), padding=1),
                nn.LeakyReLU(0.01),
                nn.Conv2d(64, 64, stride=(1, 1), kernel_size=(3, 3), padding=1),
                nn.Flatten(),
                nn.Linear(3136, 2)
        )
        self.decoder = nn.Sequential(
                torch.nn.Linear(2, 3136),
                Reshape(-1, 64, 7, 7),
                nn.ConvTranspose2d(64, 64, stride=(1, 1), kernel_size=(3, 3), padding=1),
                nn.LeakyReLU(0.01),
                nn.ConvTranspose2d(64, 64, stride=(2, 2), kernel_size=(3, 3), padding=1),
                nn.LeakyReLU(0.01),
                nn.ConvTranspose2d(64, 32, stride=(2, 2), kernel_size=(3, 3), padding=0),
                nn.LeakyReLU(0.01),
                nn.ConvTranspose2d(32, 1, stride=(1, 1), kernel_size=(3, 3), padding=0),
                Trim(),  # 1x29x29 -> 1x28x28
                nn.Sigmoid()
                )

    def forward(self, x):
        x = self.encoder(x)
        x = self.decoder(x)
        return x


set_all_seeds(RANDOM_SEED)
model = AutoEncoder()
model.to(DEVICE)
shapes = []
h = model.decoder[-3].register_forward_hook(lambda m, i, o: shapes.append(tuple(o.shape)))
assert model(torch.zeros(2, 1, 28, 28)).shape == (2, 1, 28, 28) and shapes == [(2, 1, 29, 29)]
h.remove()
optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)
log_dict = train_autoencoder_v1(num_epochs=3, model=model, optimizer=optimizer, device=DEVICE,
                                train_loader=train_loader, logging_interval=2,
                                save_model='autoencoder.pt')
print(log_dict['train_loss_per_epoch'])
assert len(log_dict['train_loss_per_batch']) == 12 and len(log_dict['train_loss_per_epoch']) == 3
assert log_dict['train_loss_per_epoch'][-1] < log_dict['train_loss_per_epoch'][0]
state = torch.load('autoencoder.pt')
assert sorted(state) == sorted(model.state_dict()) and torch.equal(state['encoder.8.weight'], model.encoder[8].weight)
with torch.no_grad():
    codes = model.encoder(next(iter(train_loader))[0])
assert codes.shape == (BATCH_SIZE, 2)


# ---- 3_VAE_nearest-neighbor-upsampling.ipynb (CelebA 128x128 -> 32x32 here: 1024 = 64 * 4 * 4)
class VAE(nn.Module):
    def __init__(self):
        super().__init__()

        self.encoder = nn.Sequential(
                nn.Conv2d(3, 32, stride=2, kernel_size=3, bias=False, padding=1),
                nn.BatchNorm2d(32),
                nn.LeakyReLU(0.1, inplace=True),
                nn.Dropout2d(0.25),
                #
                nn.Conv2d(32, 64, stride=2, kernel_size=3, bias=False, padding=1),
                nn.BatchNorm2d(64),
                nn.LeakyReLU(0.1, inplace=True),
                nn.Dropout2d(0.25),
                #
                nn.Conv2d(64, 64, stride=2, kernel_size=3, bias=False, padding=1),
                nn.BatchNorm2d(64),
                nn.LeakyReLU(0.1, inplace=True),
                nn.Dropout2d(0.25),
                #
                nn.Flatten(),
        )

        self.z_mean = torch.nn.Linear(1024, 20)
        self.z_log_var = torch.nn.Linear(1024, 20)

        self.decoder = nn.Sequential(
                torch.nn.Linear(20, 1024),
                Reshape(-1, 64, 4, 4),
                #
                nn.UpsamplingNearest2d(scale_factor=2),
                nn.Conv2d(64, 64, stride=1, kernel_size=3, padding=1),
                nn.BatchNorm2d(64),
                nn.LeakyReLU(0.1, inplace=True),
                nn.Dropout2d(0.25),
                #
                nn.UpsamplingNearest2d(scale_factor=2),
                nn.Conv2d(64, 32, stride=1, kernel_size=3, padding=1),
                nn.BatchNorm2d(32),
                nn.LeakyReLU(0.1, inplace=True),
                nn.Dropout2d(0.25),
                #
                nn.UpsamplingNearest2d(scale_factor=2),
                nn.Conv2d(32, 3, stride=1, kernel_size=3, padding=1),
                nn.Sigmoid()
                )

    def encoding_fn(self, x):
        x = self.encoder(x)
        z_mean, z_log_var = self.z_mean(x), self.z_log_var(x)
        encoded = self.reparameterize(z_mean, z_log_var)
        return encoded

    def reparameterize(self, z_mu, z_log_var):
        eps = torch.randn(z_mu.size(0), z_mu.size(1)).to(z_mu.get_device())
        z = z_mu + eps * torch.exp(z_log_var/2.)
        return z

    def forward(self, x):
        x = self.encoder(x)
        z_mean, z_log_var = self.z_mean(x), self.z_log_var(x)
        encoded = self.reparameterize(z_mean, z_log_var)
        decoded = self.decoder(encoded)
        return encoded, z_mean, z_log_var, decoded


faces_loader = DataLoader(strokes(64, 32, 3), batch_size=BATCH_SIZE, shuffle=True)
set_all_seeds(RANDOM_SEED)
model = VAE()
model.to(DEVICE)
if DEVICE.type == 'cpu':     # get_device() of a cpu tensor is -1: the notebook's GPU assumption
    try:
        model(torch.zeros(2, 3, 32, 32))
        raise AssertionError("expected the negative device index to be refused")
    except RuntimeError as e:
        print(e)
        assert 'negative' in str(e)


class CpuVAE(VAE):
    def reparameterize(self, z_mu, z_log_var):
        eps = torch.randn(z_mu.size(0), z_mu.size(1)).to(z_mu.device)
        z = z_mu + eps * torch.exp(z_log_var/2.)
        return z


set_all_seeds(RANDOM_SEED)
model = CpuVAE().to(DEVICE)
optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)
log_dict = train_vae_v1(num_epochs=4, model=model, optimizer=optimizer, device=DEVICE,
                        train_loader=faces_loader, skip_epoch_stats=True, logging_interval=50)
rec, kl = log_dict['train_reconstruction_loss_per_batch'], log_dict['train_kl_loss_per_batch']
print(rec[0], rec[-1], kl[0], kl[-1])
assert len(rec) == 8 and rec[-1] < rec[0] and all(k >= 0 for k in kl)
model.eval()
with torch.no_grad():
    new_images = model.decoder(torch.randn(5, 20))
    encoded = model.encoding_fn(next(iter(faces_loader))[0])
assert new_images.shape == (5, 3, 32, 32) and 0 <= new_images.min() and new_images.max() <= 1
assert encoded.shape == (BATCH_SIZE, 20)
