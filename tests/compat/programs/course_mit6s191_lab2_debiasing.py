"""MIT 6.S191 (Introduction to Deep Learning), lab 2 part 2 in PyTorch (MITDeepLearning/
introtodeeplearning, lab2/solutions/PT_Part2_Debiasing_Solution): the standard CNN face
classifier and the debiasing variational autoencoder (DB-VAE), the solution's code at toy
width (n_filters=4, latent_dim=8) on synthetic 3x64x64 "faces" in two skin-tone groups, one rare;
mitdeeplearning's TrainingDatasetLoader (get_batch with p_pos sampling weights) written out,
Comet, plots and the GPU requirement left out. It exercises make_standard_classifier (a ConvBlock
class defined inside the function, nn.ReLU(inplace=True) before BatchNorm2d), BCEWithLogitsLoss,
torch.from_numpy(x).float(), torch.inference_mode(), torch.round(torch.sigmoid(...)), the VAE
loss (torch.sum over dim=1, torch.mean over dim=(1, 2, 3)), sampling with torch.randn_like,
F.binary_cross_entropy_with_logits(reduction="none") masked to faces, the FaceDecoder's
ConvTranspose2d stack with output_padding=1 from 4x4 to 64x64, DB_VAE.encode slicing one
encoder output into y_logit / z_mean / z_logsigma, get_latent_mu (permute(0, 3, 1, 2) of NHWC
images), and get_training_sample_probabilities (np.histogram(density=True), np.digitize,
np.maximum over latent dimensions) steering the batches toward the rare group."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0)
np.random.seed(0)
device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")


class TrainingDatasetLoader:   # mdl.lab2.TrainingDatasetLoader, on synthetic images (NCHW, float in [0, 1])
    def __init__(self, n=256):
        rng = np.random.RandomState(0)
        self.labels = (np.arange(n) % 2).astype(np.float32)[:, None]           # face or not
        self.dark = (rng.rand(n) < 0.15) & (self.labels[:, 0] == 1)             # the rare group
        imgs = rng.rand(n, 3, 64, 64).astype(np.float32) * 0.3
        yy, xx = np.mgrid[:64, :64]
        oval = ((yy - 32) / 22.0) ** 2 + ((xx - 32) / 16.0) ** 2 < 1
        for i in range(n):
            if self.labels[i, 0] == 1:
                tone = np.array([0.35, 0.25, 0.2]) if self.dark[i] else np.array([0.95, 0.8, 0.7])
                imgs[i][:, oval] = tone[:, None]
            else:
                imgs[i, rng.randint(3), rng.randint(40):, :] = 0.9
        self.images = imgs
        self.pos_train_inds = np.where(self.labels[:, 0] == 1)[0]
        self.neg_train_inds = np.where(self.labels[:, 0] == 0)[0]

    def get_train_size(self):
        return self.images.shape[0]

    def get_batch(self, n, p_pos=None):
        selected_pos_inds = np.random.choice(self.pos_train_inds, size=n // 2, replace=False, p=p_pos)
        selected_neg_inds = np.random.choice(self.neg_train_inds, size=n // 2, replace=False)
        selected_inds = np.concatenate((selected_pos_inds, selected_neg_inds))
        sorted_inds = np.sort(selected_inds)
        return self.images[sorted_inds], self.labels[sorted_inds]

    def get_all_train_faces(self):
        return self.images[self.pos_train_inds].transpose(0, 2, 3, 1)


loader = TrainingDatasetLoader()
number_of_training_examples = loader.get_train_size()
(images, labels) = loader.get_batch(100)
B, C, H, W = images.shape
face_images = images[np.where(labels == 1)[0]].transpose(0, 2, 3, 1)
assert face_images.shape == (50, 64, 64, 3)

n_filters = 4  # base number of convolutional filters
in_channels = images.shape[1]


def make_standard_classifier(n_outputs):
    """Create a standard CNN classifier."""

    # Define a convolutional block
    class ConvBlock(nn.Module):
        def __init__(self, in_channels, out_channels, kernel_size, stride, padding=0):
            super().__init__()
            self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding)
            self.relu = nn.ReLU(inplace=True)
            self.bn = nn.BatchNorm2d(out_channels)

        def forward(self, x):
            x = self.conv(x)
            x = self.relu(x)
            x = self.bn(x)
            return x

    # now use the block to define the classifier
    model = nn.Sequential(
        ConvBlock(in_channels, n_filters, kernel_size=5, stride=2, padding=2),
        ConvBlock(n_filters, 2*n_filters, kernel_size=5, stride=2, padding=2),
        ConvBlock(2*n_filters, 4*n_filters, kernel_size=3, stride=2, padding=1),
        ConvBlock(4*n_filters, 6*n_filters, kernel_size=3, stride=2, padding=1),
        nn.Flatten(),
        nn.Linear(H // 16 * W // 16 * 6 * n_filters, 512),
        nn.ReLU(inplace=True),
        nn.Linear(512, n_outputs),
    )
    return model.to(device)


standard_classifier = make_standard_classifier(n_outputs=1)
print(standard_classifier)
loss_fn = nn.BCEWithLogitsLoss()
params = dict(batch_size=32, num_epochs=6, learning_rate=5e-4)
optimizer = optim.Adam(standard_classifier.parameters(), lr=params["learning_rate"])
standard_classifier.train()


def standard_train_step(x, y):
    x = torch.from_numpy(x).float().to(device)
    y = torch.from_numpy(y).float().to(device)
    # clear the gradients
    optimizer.zero_grad()
    # feed the images into the model
    logits = standard_classifier(x)
    # Compute the loss
    loss = loss_fn(logits, y)
    # Backpropagation
    loss.backward()
    optimizer.step()
    return loss


losses = []
for epoch in range(params["num_epochs"]):
    for idx in range(loader.get_train_size() // params["batch_size"]):
        # First grab a batch of training data which our data loader returns as numpy arrays
        x, y = loader.get_batch(params["batch_size"])
        loss = standard_train_step(x, y)
        loss_value = loss.detach().cpu().numpy()
        losses.append(float(loss_value))
assert isinstance(loss_value, np.ndarray) and loss_value.shape == ()
assert losses[-1] < losses[0], losses

standard_classifier.eval()
(batch_x, batch_y) = loader.get_batch(100)
batch_x = torch.from_numpy(batch_x).float().to(device)
batch_y = torch.from_numpy(batch_y).float().to(device)
with torch.inference_mode():
    y_pred_logits = standard_classifier(batch_x)
    y_pred_standard = torch.round(torch.sigmoid(y_pred_logits))
    acc_standard = torch.mean((batch_y == y_pred_standard).float())
print("Standard CNN accuracy on (potentially biased) training set: {:.4f}".format(acc_standard.item()), losses[0], losses[-1])
assert acc_standard.item() > 0.9 and not y_pred_logits.requires_grad


def vae_loss_function(x, x_recon, mu, logsigma, kl_weight=0.0005):
    latent_loss = 0.5 * torch.sum(torch.exp(logsigma) + mu**2 - 1 - logsigma, dim=1)
    reconstruction_loss = torch.mean(torch.abs(x - x_recon), dim=(1, 2, 3))
    vae_loss = kl_weight * latent_loss + reconstruction_loss
    return vae_loss


def sampling(z_mean, z_logsigma):
    # By default, random.normal is "standard" (ie. mean=0 and std=1.0)
    eps = torch.randn_like(z_mean)
    z = z_mean + torch.exp(z_logsigma) * eps
    return z


def debiasing_loss_function(x, x_pred, y, y_logit, mu, logsigma):
    # compute loss components
    vae_loss = vae_loss_function(x, x_pred, mu, logsigma)
    classification_loss = F.binary_cross_entropy_with_logits(y_logit, y, reduction="none")
    # define the face indicator variable
    y = y.float()
    face_indicator = (y == 1.0).float()
    # define the DB-VAE total loss! Use torch.mean to average over all samples
    total_loss = torch.mean(classification_loss * face_indicator + vae_loss)
    return total_loss, classification_loss


x0 = torch.rand(4, 3, 8, 8)
mu, logsigma = torch.zeros(4, 5), torch.zeros(4, 5)
assert torch.allclose(vae_loss_function(x0, x0, mu, logsigma), torch.zeros(4))   # no KL at N(0, 1)

latent_dim = 8  # number of latent variables


def make_face_decoder_network(latent_dim=100, n_filters=12):
    class FaceDecoder(nn.Module):
        def __init__(self, latent_dim, n_filters):
            super(FaceDecoder, self).__init__()
            self.latent_dim = latent_dim
            self.n_filters = n_filters
            # Linear (fully connected) layer to project from latent space
            # to a 4 x 4 feature map with (6*n_filters) channels
            self.linear = nn.Sequential(
                nn.Linear(latent_dim, 4 * 4 * 6 * n_filters), nn.ReLU()
            )
            # Convolutional upsampling (inverse of an encoder)
            self.deconv = nn.Sequential(
                # [B, 6n_filters, 4, 4] -> [B, 4n_filters, 8, 8]
                nn.ConvTranspose2d(in_channels=6 * n_filters, out_channels=4 * n_filters,
                                   kernel_size=3, stride=2, padding=1, output_padding=1),
                nn.ReLU(),
                # [B, 4n_filters, 8, 8] -> [B, 2n_filters, 16, 16]
                nn.ConvTranspose2d(in_channels=4 * n_filters, out_channels=2 * n_filters,
                                   kernel_size=3, stride=2, padding=1, output_padding=1),
                nn.ReLU(),
                # [B, 2n_filters, 16, 16] -> [B, n_filters, 32, 32]
                nn.ConvTranspose2d(in_channels=2 * n_filters, out_channels=n_filters,
                                   kernel_size=5, stride=2, padding=2, output_padding=1),
                nn.ReLU(),
                # [B, n_filters, 32, 32] -> [B, 3, 64, 64]
                nn.ConvTranspose2d(in_channels=n_filters, out_channels=3,
                                   kernel_size=5, stride=2, padding=2, output_padding=1),
            )

        def forward(self, z):
            x = self.linear(z)  # [B, 4*4*6*n_filters]
            x = x.view(-1, 6 * self.n_filters, 4, 4)  # [B, 6n_filters, 4, 4]
            # Upsampling via transposed convolutions
            x = self.deconv(x)  # [B, 3, 64, 64]
            return x

    return FaceDecoder(latent_dim, n_filters)


class DB_VAE(nn.Module):
    def __init__(self, latent_dim=100):
        super(DB_VAE, self).__init__()
        self.latent_dim = latent_dim
        # Define the number of outputs for the encoder. Recall that we have
        # `latent_dim` latent variables, as well as a supervised output for the
        # classification.
        self.encoder = make_standard_classifier(n_outputs=2 * latent_dim + 1)
        self.decoder = make_face_decoder_network(latent_dim, n_filters)

    def encode(self, x):
        encoder_output = self.encoder(x)
        # classification prediction
        y_logit = encoder_output[:, 0].unsqueeze(-1)
        # latent variable distribution parameters
        z_mean = encoder_output[:, 1: self.latent_dim + 1]
        z_logsigma = encoder_output[:, self.latent_dim + 1:]
        return y_logit, z_mean, z_logsigma

    def reparameterize(self, z_mean, z_logsigma):
        z = sampling(z_mean, z_logsigma)
        return z

    def decode(self, z):
        reconstruction = self.decoder(z)
        return reconstruction

    def forward(self, x):
        y_logit, z_mean, z_logsigma = self.encode(x)
        z = self.reparameterize(z_mean, z_logsigma)
        recon = self.decode(z)
        return y_logit, z_mean, z_logsigma, recon

    def predict(self, x):
        y_logit, z_mean, z_logsigma = self.encode(x)
        return y_logit


def get_latent_mu(images, dbvae, batch_size=64):
    dbvae.eval()
    all_z_mean = []
    # If images is NHWC, convert to NCHW
    images_t = torch.from_numpy(images).float()
    with torch.inference_mode():
        for start in range(0, len(images_t), batch_size):
            end = start + batch_size
            batch = images_t[start:end]
            batch = batch.to(device).permute(0, 3, 1, 2)
            # Forward pass on this chunk only
            _, z_mean, _, _ = dbvae(batch)
            all_z_mean.append(z_mean.cpu())
    # Concatenate all partial z_mean
    z_mean_full = torch.cat(all_z_mean, dim=0)  # shape [N, latent_dim]
    mu = z_mean_full.numpy()  # convert to NumPy if needed
    return mu


def get_training_sample_probabilities(images, dbvae, bins=10, smoothing_fac=0.001):
    print("Recomputing the sampling probabilities")
    # run the input batch and get the latent variable means
    mu = get_latent_mu(images, dbvae)
    # sampling probabilities for the images
    training_sample_p = np.zeros(mu.shape[0], dtype=np.float64)
    # consider the distribution for each latent variable
    for i in range(latent_dim):
        latent_distribution = mu[:, i]
        # generate a histogram of the latent distribution
        hist_density, bin_edges = np.histogram(latent_distribution, density=True, bins=bins)
        # find which latent bin every data sample falls in
        bin_edges[0] = -float("inf")
        bin_edges[-1] = float("inf")
        bin_idx = np.digitize(latent_distribution, bin_edges)
        # smooth the density function
        hist_smoothed_density = hist_density + smoothing_fac
        hist_smoothed_density = hist_smoothed_density / np.sum(hist_smoothed_density)
        # invert the density function
        p = 1.0 / (hist_smoothed_density[bin_idx - 1])
        # normalize all probabilities
        p = p / np.sum(p)
        # update sampling probabilities by considering whether the newly
        # computed p is greater than the existing sampling probabilities.
        training_sample_p = np.maximum(training_sample_p, p)
    # final normalization
    training_sample_p /= np.sum(training_sample_p)
    return training_sample_p


params = dict(batch_size=32, learning_rate=5e-4, latent_dim=latent_dim, num_epochs=2)
dbvae = DB_VAE(params["latent_dim"]).to(device)
optimizer = optim.Adam(dbvae.parameters(), lr=params["learning_rate"])
y_logit, z_mean, z_logsigma, recon = dbvae(batch_x[:4])
assert y_logit.shape == (4, 1) and z_mean.shape == z_logsigma.shape == (4, latent_dim)
assert recon.shape == (4, 3, 64, 64)


def debiasing_train_step(x, y):
    optimizer.zero_grad()
    y_logit, z_mean, z_logsigma, x_recon = dbvae(x)
    loss, class_loss = debiasing_loss_function(x, x_recon, y, y_logit, z_mean, z_logsigma)
    loss.backward()
    optimizer.step()
    return loss


all_faces = loader.get_all_train_faces()
losses = []
for i in range(params["num_epochs"]):
    print("Starting epoch {}/{}".format(i + 1, params["num_epochs"]))
    # Recompute data sampling proabilities
    p_faces = get_training_sample_probabilities(all_faces, dbvae)
    assert p_faces.shape == (128,) and abs(p_faces.sum() - 1) < 1e-9
    # get a batch of training data and compute the training step
    for j in range(loader.get_train_size() // params["batch_size"]):
        # load a batch of data
        (x, y) = loader.get_batch(params["batch_size"], p_pos=p_faces)
        x = torch.from_numpy(x).float().to(device)
        y = torch.from_numpy(y).float().to(device)
        # loss optimization
        loss = debiasing_train_step(x, y)
        losses.append(float(loss.detach().cpu().numpy()))
print(losses)
assert losses[-1] < losses[0]

# after training, the rare group's faces are sampled more often than their share
p_faces = get_training_sample_probabilities(all_faces, dbvae)
dark = loader.dark[loader.pos_train_inds]
print("rare share", dark.mean(), "sampling mass", p_faces[dark].sum())
assert p_faces[dark].sum() > dark.mean()

dbvae.eval()
with torch.inference_mode():
    logit = dbvae.predict(batch_x)
dbvae_probs_array = torch.sigmoid(torch.from_numpy(logit.detach().cpu().numpy())).squeeze(dim=-1).numpy()
assert dbvae_probs_array.shape == (100,) and dbvae_probs_array.dtype == np.float32
