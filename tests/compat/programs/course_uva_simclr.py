"""UvA Deep Learning tutorial 17 ("Self-Supervised Contrastive Learning with SimCLR", Phillip
Lippe), at toy size on synthetic 3x24x24 images of 5 shapes (STL10, torchvision's augmentations
and ResNet-18, and PyTorch Lightning left out: the augmentations are a few tensor ops, a small
conv net with an .fc layer stands in for resnet18(num_classes=4*hidden_dim), plain loops call the
LightningModule methods): ContrastiveTransformations giving n_views of each image (a list that
default_collate stacks per view), SimCLR's projection head (self.convnet.fc = nn.Sequential(
self.convnet.fc, nn.ReLU(inplace=True), nn.Linear)), AdamW with CosineAnnealingLR(eta_min=lr/50),
info_nce_loss (torch.cat of the views, F.cosine_similarity of feats[:,None,:] and
feats[None,:,:], masked_fill_ of torch.eye(dtype=torch.bool) with -9e15, the positive mask by
self_mask.roll(shifts=N//2, dims=0), torch.logsumexp, the top-1/top-5 ranking by
argsort(descending=True).argmin(dim=-1)), prepare_data_features (deepcopy of the convnet with
fc = nn.Identity(), labels.sort() reordering the features), and the linear probe
(LogisticRegression with AdamW and MultiStepLR at 60% and 80% of training)."""
from copy import deepcopy

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
import torch.utils.data as data

torch.manual_seed(42)
device = torch.device("cuda:0") if torch.cuda.is_available() else torch.device("cpu")


class ContrastiveTransformations(object):

    def __init__(self, base_transforms, n_views=2):
        self.base_transforms = base_transforms
        self.n_views = n_views

    def __call__(self, x):
        return [self.base_transforms(x) for i in range(self.n_views)]


def contrast_transforms(img):   # flip, random resized crop, brightness jitter, noise (tensor ops)
    if torch.rand(1) < 0.5:
        img = img.flip(-1)
    s = int(torch.randint(16, 25, (1,)))
    i, j = torch.randint(0, 25 - s, (2,)).tolist()
    img = F.interpolate(img[None, :, i:i + s, j:j + s], size=(24, 24), mode='bilinear',
                        align_corners=False)[0]
    img = img * (0.5 + torch.rand(1)) + 0.1 * torch.randn_like(img)
    return (img - 0.5) / 0.5


# synthetic "STL10": five shapes (square, bar, cross, ring, diagonal) in random colours
def shape_images(n, seed):
    gen = torch.Generator().manual_seed(seed)
    labels = torch.arange(n) % 5
    imgs = torch.rand(n, 3, 24, 24, generator=gen) * 0.2
    yy, xx = torch.meshgrid(torch.arange(24.), torch.arange(24.), indexing='ij')
    masks = [((yy - 12).abs() < 6) & ((xx - 12).abs() < 6), (xx - 12).abs() < 3,
             ((xx - 12).abs() < 2) | ((yy - 12).abs() < 2),
             (((yy - 12) ** 2 + (xx - 12) ** 2).sqrt() - 7).abs() < 2, (yy - xx).abs() < 2]
    for k in range(n):
        colour = 0.5 + 0.5 * torch.rand(3, generator=gen)
        imgs[k][:, masks[int(labels[k])]] = colour[:, None]
    return imgs, labels


class ImageSet(data.Dataset):
    def __init__(self, imgs, labels, transform=None):
        self.imgs, self.labels, self.transform = imgs, labels, transform

    def __len__(self): return len(self.labels)

    def __getitem__(self, idx):
        img = self.imgs[idx]
        return (self.transform(img) if self.transform else img), self.labels[idx]


imgs, labels = shape_images(160, 0)
unlabeled_data = ImageSet(imgs, labels, ContrastiveTransformations(contrast_transforms, n_views=2))
views, label = unlabeled_data[0]
assert isinstance(views, list) and len(views) == 2 and views[0].shape == (3, 24, 24)
batch = next(iter(data.DataLoader(unlabeled_data, batch_size=8)))
assert isinstance(batch[0], list) and len(batch[0]) == 2 and batch[0][1].shape == (8, 3, 24, 24)


class ConvNet(nn.Module):   # in place of torchvision.models.resnet18(num_classes=...)
    def __init__(self, num_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(64, num_classes)

    def forward(self, x): return self.fc(self.features(x))


class SimCLR(nn.Module):

    def __init__(self, hidden_dim, lr, temperature, weight_decay, max_epochs=500):
        super().__init__()
        self.hparams = dict(hidden_dim=hidden_dim, lr=lr, temperature=temperature,
                            weight_decay=weight_decay, max_epochs=max_epochs)
        assert self.hparams["temperature"] > 0.0, 'The temperature must be a positive float!'
        # Base model f(.)
        self.convnet = ConvNet(num_classes=4*hidden_dim)  # Output of last linear layer
        # The MLP for g(.) consists of Linear->ReLU->Linear
        self.convnet.fc = nn.Sequential(
            self.convnet.fc,  # Linear(ResNet output, 4*hidden_dim)
            nn.ReLU(inplace=True),
            nn.Linear(4*hidden_dim, hidden_dim)
        )
        self.logged = {}

    def log(self, name, value): self.logged.setdefault(name, []).append(float(value))

    def configure_optimizers(self):
        optimizer = optim.AdamW(self.parameters(),
                                lr=self.hparams["lr"],
                                weight_decay=self.hparams["weight_decay"])
        lr_scheduler = optim.lr_scheduler.CosineAnnealingLR(optimizer,
                                                            T_max=self.hparams["max_epochs"],
                                                            eta_min=self.hparams["lr"]/50)
        return [optimizer], [lr_scheduler]

    def info_nce_loss(self, batch, mode='train'):
        imgs, _ = batch
        imgs = torch.cat(imgs, dim=0)

        # Encode all images
        feats = self.convnet(imgs)
        # Calculate cosine similarity
        cos_sim = F.cosine_similarity(feats[:, None, :], feats[None, :, :], dim=-1)
        # Mask out cosine similarity to itself
        self_mask = torch.eye(cos_sim.shape[0], dtype=torch.bool, device=cos_sim.device)
        cos_sim.masked_fill_(self_mask, -9e15)
        # Find positive example -> batch_size//2 away from the original example
        pos_mask = self_mask.roll(shifts=cos_sim.shape[0]//2, dims=0)
        # InfoNCE loss
        cos_sim = cos_sim / self.hparams["temperature"]
        nll = -cos_sim[pos_mask] + torch.logsumexp(cos_sim, dim=-1)
        nll = nll.mean()

        # Logging loss
        self.log(mode+'_loss', nll)
        # Get ranking position of positive example
        comb_sim = torch.cat([cos_sim[pos_mask][:, None],  # First position positive example
                              cos_sim.masked_fill(pos_mask, -9e15)],
                             dim=-1)
        sim_argsort = comb_sim.argsort(dim=-1, descending=True).argmin(dim=-1)
        # Logging ranking metrics
        self.log(mode+'_acc_top1', (sim_argsort == 0).float().mean())
        self.log(mode+'_acc_top5', (sim_argsort < 5).float().mean())
        self.log(mode+'_acc_mean_pos', 1+sim_argsort.float().mean())

        return nll

    def training_step(self, batch, batch_idx):
        return self.info_nce_loss(batch, mode='train')

    def validation_step(self, batch, batch_idx):
        self.info_nce_loss(batch, mode='val')


# the positive of row i is row i + N/2 (and back): the rolled identity
eye = torch.eye(6, dtype=torch.bool)
pos = eye.roll(shifts=3, dims=0)
assert pos.nonzero().tolist() == [[0, 3], [1, 4], [2, 5], [3, 0], [4, 1], [5, 2]]

torch.manual_seed(42)
simclr_model = SimCLR(hidden_dim=32, lr=5e-3, temperature=0.07, weight_decay=1e-4, max_epochs=6)
[optimizer], [scheduler] = simclr_model.configure_optimizers()
train_loader = data.DataLoader(unlabeled_data, batch_size=32, shuffle=True, drop_last=True)
for epoch in range(6):
    simclr_model.train()
    for batch_idx, batch in enumerate(train_loader):
        loss = simclr_model.training_step(batch, batch_idx)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    scheduler.step()
top5 = simclr_model.logged['train_acc_top5']
losses = simclr_model.logged['train_loss']
print(losses[0], losses[-1], top5[0], top5[-1])
assert len(losses) == 6 * 5 and losses[-1] < losses[0]
assert sum(top5[-5:]) / 5 > sum(top5[:5]) / 5
assert abs(optimizer.param_groups[0]['lr'] - 5e-3 / 50) < 1e-12     # T_max reached: eta_min


@torch.no_grad()
def prepare_data_features(model, dataset):
    # Prepare model
    network = deepcopy(model.convnet)
    network.fc = nn.Identity()  # Removing projection head g(.)
    network.eval()
    network.to(device)

    # Encode all images
    data_loader = data.DataLoader(dataset, batch_size=64, num_workers=0, shuffle=False, drop_last=False)
    feats, labels = [], []
    for batch_imgs, batch_labels in data_loader:
        batch_imgs = batch_imgs.to(device)
        batch_feats = network(batch_imgs)
        feats.append(batch_feats.detach().cpu())
        labels.append(batch_labels)

    feats = torch.cat(feats, dim=0)
    labels = torch.cat(labels, dim=0)

    # Sort images by labels
    labels, idxs = labels.sort()
    feats = feats[idxs]

    return data.TensorDataset(feats, labels)


plain = lambda img: (img - 0.5) / 0.5
train_img_data = ImageSet(*shape_images(100, 1), transform=plain)
test_img_data = ImageSet(*shape_images(50, 2), transform=plain)
train_feats_simclr = prepare_data_features(simclr_model, train_img_data)
test_feats_simclr = prepare_data_features(simclr_model, test_img_data)
assert isinstance(simclr_model.convnet.fc, nn.Sequential)          # the copy's head was replaced
f, l = train_feats_simclr.tensors
assert f.shape == (100, 64) and not f.requires_grad and l.tolist() == sorted(l.tolist())


class LogisticRegression(nn.Module):

    def __init__(self, feature_dim, num_classes, lr, weight_decay, max_epochs=100):
        super().__init__()
        self.hparams = dict(lr=lr, weight_decay=weight_decay, max_epochs=max_epochs)
        self.model = nn.Linear(feature_dim, num_classes)
        self.logged = {}

    def log(self, name, value): self.logged.setdefault(name, []).append(float(value))

    def configure_optimizers(self):
        optimizer = optim.AdamW(self.parameters(),
                                lr=self.hparams["lr"],
                                weight_decay=self.hparams["weight_decay"])
        lr_scheduler = optim.lr_scheduler.MultiStepLR(optimizer,
                                                      milestones=[int(self.hparams["max_epochs"]*0.6),
                                                                  int(self.hparams["max_epochs"]*0.8)],
                                                      gamma=0.1)
        return [optimizer], [lr_scheduler]

    def _calculate_loss(self, batch, mode='train'):
        feats, labels = batch
        preds = self.model(feats)
        loss = F.cross_entropy(preds, labels)
        acc = (preds.argmax(dim=-1) == labels).float().mean()

        self.log(mode + '_loss', loss)
        self.log(mode + '_acc', acc)
        return loss

    def training_step(self, batch, batch_idx):
        return self._calculate_loss(batch, mode='train')

    def test_step(self, batch, batch_idx):
        self._calculate_loss(batch, mode='test')


torch.manual_seed(42)
logreg = LogisticRegression(feature_dim=64, num_classes=5, lr=1e-2, weight_decay=1e-3, max_epochs=30)
[optimizer], [scheduler] = logreg.configure_optimizers()
loader = data.DataLoader(train_feats_simclr, batch_size=32, shuffle=True)
for epoch in range(30):
    for batch_idx, batch in enumerate(loader):
        loss = logreg.training_step(batch, batch_idx)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    scheduler.step()
with torch.no_grad():
    logreg.test_step(test_feats_simclr.tensors, 0)
print('linear probe test acc', logreg.logged['test_acc'])
assert abs(optimizer.param_groups[0]['lr'] - 1e-4) < 1e-12
assert logreg.logged['test_acc'][0] > 0.5
