"""Stanford CS231n assignment 3, Generative_Adversarial_Networks.ipynb with cs231n/gan_pytorch.py
(a student's completed file, as found in many copies on GitHub), on synthetic 28x28 'MNIST'
digits instead of torchvision's download, batch 32 and a few iterations per GAN. The module's
idioms: dtype = torch.FloatTensor used as x.type(dtype) and torch.ones_like(...).type(dtype),
sample_noise as -2 * torch.rand((batch_size, dim)) + 1 with an optional torch.manual_seed,
discriminator / generator as nn.Sequential of Flatten / Linear / LeakyReLU(0.01) / ReLU / Tanh,
the numerically stable bce_loss (input.clamp(min=0) - input * target + (1 + neg_abs.exp()).log()),
the least-squares losses, get_optimizer with Adam(lr=1e-3, betas=(0.5, 0.999)),
build_dc_classifier with Unflatten(N=batch_size, C=1, H=28, W=28) and
build_dc_generator with BatchNorm1d(7*7*128) and ConvTranspose2d(kernel_size=4, stride=2,
padding=1), D.apply(initialize_weights) with nn.init.xavier_uniform_(m.weight.data),
count_params via np.sum([np.prod(p.size()) ...]), run_a_gan with fake_images.detach(),
view(batch_size, 1, 28, 28), '{:.4}'.format(...) and fake_images.data.cpu().numpy(); a
ChunkSampler(sampler.Sampler) feeding the DataLoader."""
import numpy as np

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import sampler

NOISE_DIM = 96

dtype = torch.FloatTensor
#dtype = torch.cuda.FloatTensor ## UNCOMMENT THIS LINE IF YOU'RE ON A GPU!

def sample_noise(batch_size, dim, seed=None):
    if seed is not None:
        torch.manual_seed(seed)
    noise = -2 * torch.rand((batch_size, dim)) + 1
    return noise

def discriminator(seed=None):
    if seed is not None:
        torch.manual_seed(seed)

    model = None
    model = nn.Sequential(
      Flatten(),
      nn.Linear(784, 256),  # 1st Fully-Connected layer.
      nn.LeakyReLU(0.01),
      nn.Linear(256, 256),  # 2nd Fully-Connected layer.
      nn.LeakyReLU(0.01),
      nn.Linear(256, 1)     # 3rd Fully-Connected layer.
    )
    return model

def generator(noise_dim=NOISE_DIM, seed=None):
    if seed is not None:
        torch.manual_seed(seed)

    model = None
    model = nn.Sequential(
      nn.Linear(noise_dim, 1024),  # 1st Fully-Connected layer.
      nn.ReLU(),
      nn.Linear(1024, 1024),       # 2nd Fully-Connected layer.
      nn.ReLU(),
      nn.Linear(1024, 784),        # 3rd Fully-Connected layer.
      nn.Tanh()
    )
    return model

def bce_loss(input, target):
    neg_abs = - input.abs()
    loss = input.clamp(min=0) - input * target + (1 + neg_abs.exp()).log()
    return loss.mean()

def discriminator_loss(logits_real, logits_fake):
    loss = None
    real_labels = torch.ones_like(logits_real).type(dtype)
    real_loss = bce_loss(logits_real, real_labels)
    fake_labels = torch.zeros_like(logits_fake).type(dtype)
    fake_loss = bce_loss(logits_fake, fake_labels)
    loss = real_loss + fake_loss
    return loss

def generator_loss(logits_fake):
    loss = None
    fake_labels = torch.ones_like(logits_fake).type(dtype)
    fake_loss = bce_loss(logits_fake, fake_labels)
    loss = fake_loss
    return loss

def get_optimizer(model):
    optimizer = None
    optimizer = optim.Adam(model.parameters(), lr=1e-3, betas=(0.5, 0.999))
    return optimizer

def ls_discriminator_loss(scores_real, scores_fake):
    loss = None
    real_loss = (scores_real - 1) ** 2
    real_loss = 0.5 * real_loss.mean()

    fake_loss = scores_fake ** 2
    fake_loss = 0.5 * fake_loss.mean()

    loss = real_loss + fake_loss
    return loss

def ls_generator_loss(scores_fake):
    loss = None
    fake_loss = (scores_fake - 1) ** 2
    fake_loss = 0.5 * fake_loss.mean()

    loss = fake_loss
    return loss

def build_dc_classifier(batch_size):
    model = nn.Sequential(
      # Unflatten the model's input. Output shape is (batch_size, 1, 28, 28)
      Unflatten(N=batch_size, C=1, H=28, W=28),
      # Apply Conv2D layer and LeakyReLU. Output shape is (batch_size, 32, 26, 26)
      nn.Conv2d(in_channels=1, out_channels=32, kernel_size=5, stride=1),
      nn.LeakyReLU(0.01),
      # Apply Max Pooling. Output shape is (batch_size, 32, 13, 13)
      nn.MaxPool2d(kernel_size=2, stride=2),
      # Apply Conv2D layer and LeakyReLU. Output shape is (batch_size, 64, 11, 11)
      nn.Conv2d(in_channels=32, out_channels=64, kernel_size=5, stride=1),
      nn.LeakyReLU(0.01),
      # Apply Max Pooling. Output shape is (batch_size, 64, 4, 4)
      nn.MaxPool2d(kernel_size=2, stride=2),
      # Flatten the data. Output shape is (batch_size, 64*4*4)
      Flatten(),
      # Apply FC layer and LeakyReLU. Output shape is (batch_size, 64*4*4)
      nn.Linear(4*4*64, 4*4*64),
      nn.LeakyReLU(0.01),
      # Apply FC layer (Output layer). Output shape is (batch_size, 1)
      nn.Linear(4*4*64, 1)
    )

    return model

def build_dc_generator(noise_dim=NOISE_DIM):
    model = nn.Sequential(
      # Apply FC layer, ReLU and Batch norm. Output shape is (1, 1024)
      nn.Linear(noise_dim, 1024),
      nn.ReLU(),
      nn.BatchNorm1d(1024),
      # Apply FC layer, ReLU and Batch norm. Output shape is (1, 7*7*128)
      nn.Linear(1024, 7*7*128),
      nn.ReLU(),
      nn.BatchNorm1d(7*7*128),
      # Reshape the data into Image Tensor. Output shape is (128, 7, 7)
      Unflatten(C=128, H=7, W=7),
      nn.ConvTranspose2d(in_channels=128, out_channels=64, kernel_size=4,
                          stride=2, padding=1),
      nn.ReLU(),
      nn.BatchNorm2d(64),
      # Apply Conv2D Transpose and TanH. Output shape is (1, 28, 28)
      nn.ConvTranspose2d(in_channels=64, out_channels=1, kernel_size=4,
                    stride=2, padding=1),
      nn.Tanh(),
      # Flatten the data. Output shape is (784,)
      Flatten()
    )

    return model

def run_a_gan(D, G, D_solver, G_solver, discriminator_loss, generator_loss, loader_train, show_every=250,
              batch_size=128, noise_size=96, num_epochs=10):
    images = []
    iter_count = 0
    for epoch in range(num_epochs):
        for x, _ in loader_train:
            if len(x) != batch_size:
                continue
            D_solver.zero_grad()
            real_data = x.type(dtype)
            logits_real = D(2* (real_data - 0.5)).type(dtype)

            g_fake_seed = sample_noise(batch_size, noise_size).type(dtype)
            fake_images = G(g_fake_seed).detach()
            logits_fake = D(fake_images.view(batch_size, 1, 28, 28))

            d_total_error = discriminator_loss(logits_real, logits_fake)
            d_total_error.backward()
            D_solver.step()

            G_solver.zero_grad()
            g_fake_seed = sample_noise(batch_size, noise_size).type(dtype)
            fake_images = G(g_fake_seed)

            gen_logits_fake = D(fake_images.view(batch_size, 1, 28, 28))
            g_error = generator_loss(gen_logits_fake)
            g_error.backward()
            G_solver.step()

            if (iter_count % show_every == 0):
                print('Iter: {}, D: {:.4}, G:{:.4}'.format(iter_count,d_total_error.item(),g_error.item()))
                imgs_numpy = fake_images.data.cpu().numpy()
                images.append(imgs_numpy[0:16])

            iter_count += 1

    return images

class ChunkSampler(sampler.Sampler):
    """Samples elements sequentially from some offset.
    Arguments:
        num_samples: # of desired datapoints
        start: offset where we should start selecting from
    """
    def __init__(self, num_samples, start=0):
        self.num_samples = num_samples
        self.start = start

    def __iter__(self):
        return iter(range(self.start, self.start + self.num_samples))

    def __len__(self):
        return self.num_samples

class Flatten(nn.Module):
    def forward(self, x):
        N, C, H, W = x.size() # read in N, C, H, W
        return x.view(N, -1)  # "flatten" the C * H * W values into a single vector per image

class Unflatten(nn.Module):
    """
    An Unflatten module receives an input of shape (N, C*H*W) and reshapes it
    to produce an output of shape (N, C, H, W).
    """
    def __init__(self, N=-1, C=128, H=7, W=7):
        super(Unflatten, self).__init__()
        self.N = N
        self.C = C
        self.H = H
        self.W = W
    def forward(self, x):
        return x.view(self.N, self.C, self.H, self.W)

def initialize_weights(m):
    if isinstance(m, nn.Linear) or isinstance(m, nn.ConvTranspose2d):
        nn.init.xavier_uniform_(m.weight.data)

def preprocess_img(x):
    return 2 * x - 1.0

def deprocess_img(x):
    return (x + 1.0) / 2.0

def rel_error(x,y):
    return np.max(np.abs(x - y) / (np.maximum(1e-8, np.abs(x) + np.abs(y))))

def count_params(model):
    """Count the number of parameters in the current TensorFlow graph """
    param_count = np.sum([np.prod(p.size()) for p in model.parameters()])
    return param_count

# ---------------------------------------------------------------------- the notebook
torch.manual_seed(231)
NUM_TRAIN = 160
NUM_VAL = 32
batch_size = 32

strokes = torch.zeros(10, 1, 28, 28)
for d in range(10):
    strokes[d, 0, 4 + 2 * d:8 + 2 * d, 4:24] = 1.0
    strokes[d, 0, 4:24, 3 + 2 * d:5 + 2 * d] = 1.0
labels = torch.randint(0, 10, (NUM_TRAIN + NUM_VAL,))
images = (strokes[labels] + 0.1 * torch.rand(NUM_TRAIN + NUM_VAL, 1, 28, 28)).clamp(0, 1)
mnist_train = torch.utils.data.TensorDataset(images, labels)
loader_train = torch.utils.data.DataLoader(mnist_train, batch_size=batch_size,
                                           sampler=ChunkSampler(NUM_TRAIN, 0))
imgs = next(iter(loader_train))[0].view(batch_size, 784).numpy().squeeze()
print(imgs.shape, imgs.dtype)

def test_sample_noise():
    batch_size = 3
    dim = 4
    torch.manual_seed(231)
    z = sample_noise(batch_size, dim)
    np_z = z.cpu().numpy()
    assert np_z.shape == (batch_size, dim)
    assert torch.is_tensor(z)
    assert np.all(np_z >= -1.0) and np.all(np_z <= 1.0)
    assert np.any(np_z < 0.0) and np.any(np_z > 0.0)
    print('All tests passed!')

test_sample_noise()

def test_discriminator(true_count=267009):
    model = discriminator()
    cur_count = count_params(model)
    if cur_count != true_count:
        print('Incorrect number of parameters in discriminator. Check your achitecture.')
    else:
        print('Correct number of parameters in discriminator.')
    assert cur_count == true_count

test_discriminator()

def test_generator(true_count=1858320):
    model = generator(4)
    cur_count = count_params(model)
    if cur_count != true_count:
        print('Incorrect number of parameters in generator. Check your achitecture.')
    else:
        print('Correct number of parameters in generator.')
    assert cur_count == true_count

test_generator()

logits = torch.randn(6) * 3
target = (torch.rand(6) > 0.5).type(dtype)
print('bce_loss', round(bce_loss(logits, target).item(), 5))
assert abs(bce_loss(logits, target).item()
           - F.binary_cross_entropy_with_logits(logits, target).item()) < 1e-5
print('Maximum error in d_loss: %g' % rel_error(
    discriminator_loss(logits, -logits).item(),
    (bce_loss(logits, torch.ones(6)) + bce_loss(-logits, torch.zeros(6))).item()))

# Make the discriminator
D = discriminator().type(dtype)

# Make the generator
G = generator().type(dtype)

# Use the function you wrote earlier to get optimizers for the Discriminator and the Generator
D_solver = get_optimizer(D)
G_solver = get_optimizer(G)
# Run it!
images = run_a_gan(D, G, D_solver, G_solver, discriminator_loss, generator_loss, loader_train,
                   show_every=2, batch_size=batch_size, num_epochs=1)
assert len(images) == 3 and images[0].shape == (16, 784)

D_LS = discriminator().type(dtype)
G_LS = generator().type(dtype)

D_LS_solver = get_optimizer(D_LS)
G_LS_solver = get_optimizer(G_LS)

images = run_a_gan(D_LS, G_LS, D_LS_solver, G_LS_solver, ls_discriminator_loss, ls_generator_loss,
                   loader_train, show_every=2, batch_size=batch_size, num_epochs=1)

data = next(enumerate(loader_train))[-1][0].type(dtype)
b = build_dc_classifier(batch_size).type(dtype)
out = b(data)
print(out.size())
assert out.size() == (batch_size, 1)

def test_dc_classifer(true_count=1102721):
    model = build_dc_classifier(batch_size)
    cur_count = count_params(model)
    if cur_count != true_count:
        print('Incorrect number of parameters in classifier. Check your achitecture.')
    else:
        print('Correct number of parameters in classifier.')
    assert cur_count == true_count

test_dc_classifer()

test_g_gan = build_dc_generator().type(dtype)
test_g_gan.apply(initialize_weights)

fake_seed = torch.randn(batch_size, NOISE_DIM).type(dtype)
fake_images = test_g_gan.forward(fake_seed)
print(fake_images.size())

def test_dc_generator(true_count=6580801):
    model = build_dc_generator(4)
    cur_count = count_params(model)
    if cur_count != true_count:
        print('Incorrect number of parameters in generator. Check your achitecture.')
    else:
        print('Correct number of parameters in generator.')

test_dc_generator()

D_DC = build_dc_classifier(batch_size).type(dtype)
D_DC.apply(initialize_weights)
G_DC = build_dc_generator().type(dtype)
G_DC.apply(initialize_weights)

D_DC_solver = get_optimizer(D_DC)
G_DC_solver = get_optimizer(G_DC)

images = run_a_gan(D_DC, G_DC, D_DC_solver, G_DC_solver, discriminator_loss, generator_loss,
                   loader_train, show_every=2, batch_size=batch_size, num_epochs=1)
assert images[-1].dtype == np.float32 and images[-1].min() >= -1 and images[-1].max() <= 1
assert G_DC[2].num_batches_tracked.item() == 10   # G runs twice per iteration
