"""Dive into Deep Learning (d2l-ai/d2l-en), chapter_generative-adversarial-networks: gan.md and
dcgan.md, PyTorch tab, with the d2l helpers they call written out (d2l.normal / tensor / matmul
as torch.normal(0.0, 1, (1000, 2)) with a positional size, torch.tensor and torch.matmul;
load_array as TensorDataset + DataLoader(shuffle=True); Accumulator adding float(loss) of
tensors; try_gpu), the Animator plots and the examples/sec timing left out, and generated
64x64 'pokemon' (coloured blobs) instead of the downloaded ImageFolder, with narrow nets (n_G =
n_D = 4) and 2 epochs. The idioms: data = X @ A + b with an int64 b, update_D / update_G with
fake_X.detach() and ones.reshape(real_Y.shape), nn.BCEWithLogitsLoss(reduction='sum'),
nn.init.normal_(w, 0, 0.02) over every parameter (BatchNorm ones included), Adam(**{'lr': lr,
'betas': [0.5, 0.999]}) with betas as a list, G_block (ConvTranspose2d(..., strides, padding,
bias=False) + BatchNorm2d + ReLU) and D_block (Conv2d + BatchNorm2d + LeakyReLU(alpha,
inplace=True)), nn.LeakyReLU(alpha) over d2l.arange(-2, 1, 0.1), torch.normal(0, 1, size=(...,
1, 1), device=device), and the 3x7 image grid built with nested torch.cat of permuted samples."""
import torch
from torch import nn


class Accumulator:
    """For accumulating sums over `n` variables."""
    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, *args):
        self.data = [a + float(b) for a, b in zip(self.data, args)]

    def reset(self):
        self.data = [0.0] * len(self.data)

    def __getitem__(self, idx):
        return self.data[idx]


def load_array(data_arrays, batch_size, is_train=True):
    """Construct a PyTorch data iterator."""
    dataset = torch.utils.data.TensorDataset(*data_arrays)
    return torch.utils.data.DataLoader(dataset, batch_size, shuffle=is_train)


def try_gpu(i=0):
    """Return gpu(i) if exists, otherwise return cpu()."""
    if torch.cuda.device_count() >= i + 1:
        return torch.device(f'cuda:{i}')
    return torch.device('cpu')


torch.manual_seed(0)

# ---------------------------------------------------------------- gan.md
X = torch.normal(0.0, 1, (1000, 2))
A = torch.tensor([[1, 2], [-0.1, 0.5]])
b = torch.tensor([1, 2])
data = torch.matmul(X, A) + b
print(data.dtype, data[:3])
print(f'The covariance matrix is\n{torch.matmul(A.T, A)}')

batch_size = 8
data_iter = load_array((data,), batch_size)

net_G = nn.Sequential(nn.Linear(2, 2))

net_D = nn.Sequential(
    nn.Linear(2, 5), nn.Tanh(),
    nn.Linear(5, 3), nn.Tanh(),
    nn.Linear(3, 1))

def update_D(X, Z, net_D, net_G, loss, trainer_D):
    """Update discriminator."""
    batch_size = X.shape[0]
    ones = torch.ones((batch_size,), device=X.device)
    zeros = torch.zeros((batch_size,), device=X.device)
    trainer_D.zero_grad()
    real_Y = net_D(X)
    fake_X = net_G(Z)
    # Do not need to compute gradient for `net_G`, detach it from
    # computing gradients.
    fake_Y = net_D(fake_X.detach())
    loss_D = (loss(real_Y, ones.reshape(real_Y.shape)) +
              loss(fake_Y, zeros.reshape(fake_Y.shape))) / 2
    loss_D.backward()
    trainer_D.step()
    return loss_D

def update_G(Z, net_D, net_G, loss, trainer_G):
    """Update generator."""
    batch_size = Z.shape[0]
    ones = torch.ones((batch_size,), device=Z.device)
    trainer_G.zero_grad()
    # We could reuse `fake_X` from `update_D` to save computation
    fake_X = net_G(Z)
    # Recomputing `fake_Y` is needed since `net_D` is changed
    fake_Y = net_D(fake_X)
    loss_G = loss(fake_Y, ones.reshape(fake_Y.shape))
    loss_G.backward()
    trainer_G.step()
    return loss_G

def train(net_D, net_G, data_iter, num_epochs, lr_D, lr_G, latent_dim, data):
    loss = nn.BCEWithLogitsLoss(reduction='sum')
    for w in net_D.parameters():
        nn.init.normal_(w, 0, 0.02)
    for w in net_G.parameters():
        nn.init.normal_(w, 0, 0.02)
    trainer_D = torch.optim.Adam(net_D.parameters(), lr=lr_D)
    trainer_G = torch.optim.Adam(net_G.parameters(), lr=lr_G)
    for epoch in range(num_epochs):
        # Train one epoch
        metric = Accumulator(3)  # loss_D, loss_G, num_examples
        for (X,) in data_iter:
            batch_size = X.shape[0]
            Z = torch.normal(0, 1, size=(batch_size, latent_dim))
            metric.add(update_D(X, Z, net_D, net_G, loss, trainer_D),
                       update_G(Z, net_D, net_G, loss, trainer_G),
                       batch_size)
        # Visualize generated examples
        Z = torch.normal(0, 1, size=(100, latent_dim))
        fake_X = net_G(Z).detach().numpy()
        # Show the losses
        loss_D, loss_G = metric[0]/metric[2], metric[1]/metric[2]
        print(f'epoch {epoch + 1}, loss_D {loss_D:.3f}, loss_G {loss_G:.3f}')
    print(f'loss_D {loss_D:.3f}, loss_G {loss_G:.3f}, {metric[2]:.1f} examples')
    return fake_X

lr_D, lr_G, latent_dim, num_epochs = 0.05, 0.005, 2, 5
fake_X = train(net_D, net_G, data_iter, num_epochs, lr_D, lr_G,
               latent_dim, data[:100].detach().numpy())
print(fake_X.shape, fake_X.dtype)

# ---------------------------------------------------------------- dcgan.md
def make_pokemon(n, g):
    """Coloured blobs on a dark background, normalised like Normalize(0.5, 0.5)."""
    yy, xx = torch.meshgrid(torch.arange(64.), torch.arange(64.), indexing='ij')
    imgs = torch.zeros(n, 3, 64, 64)
    for i in range(n):
        cx, cy, r = torch.randint(16, 48, (3,), generator=g).tolist()
        colour = torch.rand(3, 1, 1, generator=g)
        mask = ((xx - cx) ** 2 + (yy - cy) ** 2 < (r // 2) ** 2).float()
        imgs[i] = colour * mask
    return imgs * 2 - 1

g = torch.Generator().manual_seed(0)
pokemon = torch.utils.data.TensorDataset(make_pokemon(32, g), torch.zeros(32, dtype=torch.long))
batch_size = 16
data_iter = torch.utils.data.DataLoader(
    pokemon, batch_size=batch_size,
    shuffle=True, num_workers=0)

for X, y in data_iter:
    imgs = X[:20,:,:,:].permute(0, 2, 3, 1)/2+0.5
    print(imgs.shape, imgs.min().item() >= 0, imgs.max().item() <= 1)
    break

class G_block(nn.Module):
    def __init__(self, out_channels, in_channels=3, kernel_size=4, strides=2,
                 padding=1, **kwargs):
        super(G_block, self).__init__(**kwargs)
        self.conv2d_trans = nn.ConvTranspose2d(in_channels, out_channels,
                                kernel_size, strides, padding, bias=False)
        self.batch_norm = nn.BatchNorm2d(out_channels)
        self.activation = nn.ReLU()

    def forward(self, X):
        return self.activation(self.batch_norm(self.conv2d_trans(X)))

x = torch.zeros((2, 3, 16, 16))
g_blk = G_block(20)
print(g_blk(x).shape)

x = torch.zeros((2, 3, 1, 1))
g_blk = G_block(20, strides=1, padding=0)
print(g_blk(x).shape)

n_G = 4
net_G = nn.Sequential(
    G_block(in_channels=100, out_channels=n_G*8,
            strides=1, padding=0),                  # Output: (64 * 8, 4, 4)
    G_block(in_channels=n_G*8, out_channels=n_G*4), # Output: (64 * 4, 8, 8)
    G_block(in_channels=n_G*4, out_channels=n_G*2), # Output: (64 * 2, 16, 16)
    G_block(in_channels=n_G*2, out_channels=n_G),   # Output: (64, 32, 32)
    nn.ConvTranspose2d(in_channels=n_G, out_channels=3,
                       kernel_size=4, stride=2, padding=1, bias=False),
    nn.Tanh())  # Output: (3, 64, 64)

x = torch.zeros((1, 100, 1, 1))
print(net_G(x).shape)

alphas = [0, .2, .4, .6, .8, 1]
x = torch.arange(-2, 1, 0.1)
Y = [nn.LeakyReLU(alpha)(x).numpy() for alpha in alphas]
print(x.shape, [round(float(y[0]), 4) for y in Y])

class D_block(nn.Module):
    def __init__(self, out_channels, in_channels=3, kernel_size=4, strides=2,
                padding=1, alpha=0.2, **kwargs):
        super(D_block, self).__init__(**kwargs)
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size,
                                strides, padding, bias=False)
        self.batch_norm = nn.BatchNorm2d(out_channels)
        self.activation = nn.LeakyReLU(alpha, inplace=True)

    def forward(self, X):
        return self.activation(self.batch_norm(self.conv2d(X)))

x = torch.zeros((2, 3, 16, 16))
d_blk = D_block(20)
print(d_blk(x).shape)

n_D = 4
net_D = nn.Sequential(
    D_block(n_D),  # Output: (64, 32, 32)
    D_block(in_channels=n_D, out_channels=n_D*2),  # Output: (64 * 2, 16, 16)
    D_block(in_channels=n_D*2, out_channels=n_D*4),  # Output: (64 * 4, 8, 8)
    D_block(in_channels=n_D*4, out_channels=n_D*8),  # Output: (64 * 8, 4, 4)
    nn.Conv2d(in_channels=n_D*8, out_channels=1,
              kernel_size=4, bias=False))  # Output: (1, 1, 1)

x = torch.zeros((1, 3, 64, 64))
print(net_D(x).shape)

def train(net_D, net_G, data_iter, num_epochs, lr, latent_dim,
          device=try_gpu()):
    loss = nn.BCEWithLogitsLoss(reduction='sum')
    for w in net_D.parameters():
        nn.init.normal_(w, 0, 0.02)
    for w in net_G.parameters():
        nn.init.normal_(w, 0, 0.02)
    net_D, net_G = net_D.to(device), net_G.to(device)
    trainer_hp = {'lr': lr, 'betas': [0.5,0.999]}
    trainer_D = torch.optim.Adam(net_D.parameters(), **trainer_hp)
    trainer_G = torch.optim.Adam(net_G.parameters(), **trainer_hp)
    for epoch in range(1, num_epochs + 1):
        # Train one epoch
        metric = Accumulator(3)  # loss_D, loss_G, num_examples
        for X, _ in data_iter:
            batch_size = X.shape[0]
            Z = torch.normal(0, 1, size=(batch_size, latent_dim, 1, 1))
            X, Z = X.to(device), Z.to(device)
            metric.add(update_D(X, Z, net_D, net_G, loss, trainer_D),
                       update_G(Z, net_D, net_G, loss, trainer_G),
                       batch_size)
        # Show generated examples
        Z = torch.normal(0, 1, size=(21, latent_dim, 1, 1), device=device)
        # Normalize the synthetic data to N(0, 1)
        fake_x = net_G(Z).permute(0, 2, 3, 1) / 2 + 0.5
        imgs = torch.cat(
            [torch.cat([
                fake_x[i * 7 + j].cpu().detach() for j in range(7)], dim=1)
             for i in range(len(fake_x)//7)], dim=0)
        # Show the losses
        loss_D, loss_G = metric[0] / metric[2], metric[1] / metric[2]
        print(f'epoch {epoch}, loss_D {loss_D:.3f}, loss_G {loss_G:.3f}')
    print(f'loss_D {loss_D:.3f}, loss_G {loss_G:.3f}, '
          f'{metric[2]:.1f} examples on {str(device)}')
    return imgs

latent_dim, lr, num_epochs = 100, 0.005, 2
imgs = train(net_D, net_G, data_iter, num_epochs, lr, latent_dim)
print(imgs.shape)
assert imgs.shape == (3 * 64, 7 * 64, 3)
assert net_D[0].batch_norm.num_batches_tracked.item() == 4 * 3 + 1   # 3 per step, and the shape check
