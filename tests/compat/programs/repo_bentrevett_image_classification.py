"""bentrevett/pytorch-image-classification, notebooks 1-4 (MLP, LeNet, AlexNet, VGG) on small
synthetic images: the seeding preamble with cudnn.deterministic, mean/std from .data.float(),
a dataset with a .transform swapped on a copy.deepcopy of the random_split validation Subset,
count_parameters with {:,}, calculate_accuracy via argmax(1, keepdim=True).eq(y.view_as(...)),
train/evaluate/epoch_time, best-model torch.save/load_state_dict, get_predictions with softmax
and torch.cat, incorrect examples sorted by torch.max(...).values, PCA of representations with
torch.pca_lowrank-free numpy SVD, imagine_digit; LeNet filters via F.conv2d on a FloatTensor
kernel; AlexNet with kaiming/xavier init through model.apply, the LRFinder with a custom
_LRScheduler subclass (get_lr from base_lrs and last_epoch), IteratorWrapper; VGG configs built
by get_vgg_layers with AdaptiveAvgPool2d, parameter groups with a smaller lr for features, and
normalize_image with clamp_/add_/div_."""
import copy
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
import torch.utils.data as data
from torch.optim.lr_scheduler import _LRScheduler

SEED = 1234
random.seed(SEED)
np.random.seed(SEED)
torch.manual_seed(SEED)
torch.cuda.manual_seed(SEED)
torch.backends.cudnn.deterministic = True


class Digits(data.Dataset):
    """Stands in for datasets.MNIST: uint8 .data / .targets and a swappable .transform."""
    def __init__(self, n, seed, channels=1, size=28, transform=None):
        g = torch.Generator().manual_seed(seed)
        self.targets = torch.randint(0, 10, (n,), generator=g)
        img = torch.randint(0, 80, (n, channels, size, size), generator=g)
        rows = (self.targets * (size - 8) // 10 + 4)
        img[torch.arange(n), :, rows, 4:size - 4] = 255
        self.data = img.to(torch.uint8)
        self.transform = transform

    def __getitem__(self, i):
        x = self.data[i].float() / 255
        return (self.transform(x) if self.transform else x), self.targets[i].item()

    def __len__(self):
        return len(self.targets)


train_data = Digits(480, 0)
mean = train_data.data.float().mean() / 255
std = train_data.data.float().std() / 255
print(f'Calculated mean: {mean}')
print(f'Calculated std: {std}')
train_transforms = lambda x: (x + 0.02 * torch.randn_like(x) - mean) / std
test_transforms = lambda x: (x - mean) / std
train_data.transform = train_transforms
test_data = Digits(160, 1, transform=test_transforms)
print(f'Number of training examples: {len(train_data)}')
print(f'Number of testing examples: {len(test_data)}')
VALID_RATIO = 0.9
n_train_examples = int(len(train_data) * VALID_RATIO)
n_valid_examples = len(train_data) - n_train_examples
train_data, valid_data = data.random_split(train_data, [n_train_examples, n_valid_examples])
print(f'Number of training examples: {len(train_data)}')
print(f'Number of validation examples: {len(valid_data)}')
valid_data = copy.deepcopy(valid_data)
valid_data.dataset.transform = test_transforms
print(train_data.dataset.transform is train_transforms, valid_data.indices[:5])
BATCH_SIZE = 64
train_iterator = data.DataLoader(train_data, shuffle=True, batch_size=BATCH_SIZE)
valid_iterator = data.DataLoader(valid_data, batch_size=BATCH_SIZE)
test_iterator = data.DataLoader(test_data, batch_size=BATCH_SIZE)


class MLP(nn.Module):
    def __init__(self, input_dim, output_dim):
        super().__init__()
        self.input_fc = nn.Linear(input_dim, 250)
        self.hidden_fc = nn.Linear(250, 100)
        self.output_fc = nn.Linear(100, output_dim)

    def forward(self, x):
        batch_size = x.shape[0]
        x = x.view(batch_size, -1)
        h_1 = F.relu(self.input_fc(x))
        h_2 = F.relu(self.hidden_fc(h_1))
        y_pred = self.output_fc(h_2)
        return y_pred, h_2


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def calculate_accuracy(y_pred, y):
    top_pred = y_pred.argmax(1, keepdim=True)
    correct = top_pred.eq(y.view_as(top_pred)).sum()
    acc = correct.float() / y.shape[0]
    return acc


def train(model, iterator, optimizer, criterion, device):
    epoch_loss = 0
    epoch_acc = 0
    model.train()
    for (x, y) in iterator:
        x = x.to(device)
        y = y.to(device)
        optimizer.zero_grad()
        y_pred, _ = model(x)
        loss = criterion(y_pred, y)
        acc = calculate_accuracy(y_pred, y)
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()
        epoch_acc += acc.item()
    return epoch_loss / len(iterator), epoch_acc / len(iterator)


def evaluate(model, iterator, criterion, device):
    epoch_loss = 0
    epoch_acc = 0
    model.eval()
    with torch.no_grad():
        for (x, y) in iterator:
            x = x.to(device)
            y = y.to(device)
            y_pred, _ = model(x)
            loss = criterion(y_pred, y)
            acc = calculate_accuracy(y_pred, y)
            epoch_loss += loss.item()
            epoch_acc += acc.item()
    return epoch_loss / len(iterator), epoch_acc / len(iterator)


def epoch_time(start_time, end_time):
    elapsed_time = end_time - start_time
    elapsed_mins = int(elapsed_time / 60)
    elapsed_secs = int(elapsed_time - (elapsed_mins * 60))
    return elapsed_mins, elapsed_secs


def fit(model, optimizer, epochs, path):
    best_valid_loss = float('inf')
    for epoch in range(epochs):
        start_time = time.monotonic()
        train_loss, train_acc = train(model, train_iterator, optimizer, criterion, device)
        valid_loss, valid_acc = evaluate(model, valid_iterator, criterion, device)
        if valid_loss < best_valid_loss:
            best_valid_loss = valid_loss
            torch.save(model.state_dict(), path)
        end_time = time.monotonic()
        epoch_mins, epoch_secs = epoch_time(start_time, end_time)
        print(f'Epoch: {epoch+1:02} | Epoch Time: {epoch_mins}m')
        print(f'\tTrain Loss: {train_loss:.3f} | Train Acc: {train_acc*100:.2f}%')
        print(f'\t Val. Loss: {valid_loss:.3f} |  Val. Acc: {valid_acc*100:.2f}%')
    model.load_state_dict(torch.load(path))
    test_loss, test_acc = evaluate(model, test_iterator, criterion, device)
    print(f'Test Loss: {test_loss:.3f} | Test Acc: {test_acc*100:.2f}%')
    return test_acc


INPUT_DIM, OUTPUT_DIM = 28 * 28, 10
model = MLP(INPUT_DIM, OUTPUT_DIM)
print(f'The model has {count_parameters(model):,} trainable parameters')
optimizer = optim.Adam(model.parameters())
criterion = nn.CrossEntropyLoss()
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
model = model.to(device)
criterion = criterion.to(device)
mlp_acc = fit(model, optimizer, 3, 'tut1-model.pt')


def get_predictions(model, iterator, device):
    model.eval()
    images, labels, probs = [], [], []
    with torch.no_grad():
        for (x, y) in iterator:
            x = x.to(device)
            y_pred, _ = model(x)
            y_prob = F.softmax(y_pred, dim=-1)
            images.append(x.cpu())
            labels.append(y.cpu())
            probs.append(y_prob.cpu())
    images = torch.cat(images, dim=0)
    labels = torch.cat(labels, dim=0)
    probs = torch.cat(probs, dim=0)
    return images, labels, probs


images, labels, probs = get_predictions(model, test_iterator, device)
pred_labels = torch.argmax(probs, 1)
cm = torch.zeros(10, 10, dtype=torch.long)
for t, p in zip(labels, pred_labels):
    cm[t, p] += 1
print(cm.diag(), cm.sum())
corrects = torch.eq(labels, pred_labels)
incorrect_examples = []
for image, label, prob, correct in zip(images, labels, probs, corrects):
    if not correct:
        incorrect_examples.append((image, label, prob))
incorrect_examples.sort(reverse=True, key=lambda x: torch.max(x[2], dim=0).values)
for image, true_label, probs_ in incorrect_examples[:3]:
    true_prob = probs_[true_label]
    incorrect_prob, incorrect_label = torch.max(probs_, dim=0)
    print(f'true label: {true_label} ({true_prob:.3f})\n'
          f'pred label: {incorrect_label} ({incorrect_prob:.3f})')


def get_representations(model, iterator, device):
    model.eval()
    outputs, intermediates, labels = [], [], []
    with torch.no_grad():
        for (x, y) in iterator:
            x = x.to(device)
            y_pred, h = model(x)
            outputs.append(y_pred.cpu())
            intermediates.append(h.cpu())
            labels.append(y)
    return torch.cat(outputs, dim=0), torch.cat(intermediates, dim=0), torch.cat(labels, dim=0)


outputs, intermediates, labels = get_representations(model, train_iterator, device)
centred = outputs.numpy() - outputs.numpy().mean(0)
pca_data = centred @ np.linalg.svd(centred, full_matrices=False)[2][:2].T
print(outputs.shape, intermediates.shape, labels.shape, pca_data.shape)


def imagine_digit(model, digit, device, n_iterations=20):
    model.eval()
    best_prob = 0
    best_image = None
    with torch.no_grad():
        for _ in range(n_iterations):
            x = torch.randn(32, 28, 28).to(device)
            y_pred, _ = model(x)
            preds = F.softmax(y_pred, dim=-1)
            _best_prob, index = torch.max(preds[:, digit], dim=0)
            if _best_prob > best_prob:
                best_prob = _best_prob
                best_image = x[index]
    return best_image, best_prob


best_image, best_prob = imagine_digit(model, 3, device)
print(f'Best image probability: {best_prob.item()*100:.2f}%', best_image.shape)
weights = model.input_fc.weight.data
print(weights.shape, weights.view(250, 28, 28)[0].shape)


class LeNet(nn.Module):
    def __init__(self, output_dim):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels=1, out_channels=6, kernel_size=5)
        self.conv2 = nn.Conv2d(in_channels=6, out_channels=16, kernel_size=5)
        self.fc_1 = nn.Linear(16 * 4 * 4, 120)
        self.fc_2 = nn.Linear(120, 84)
        self.fc_3 = nn.Linear(84, output_dim)

    def forward(self, x):
        x = self.conv1(x)
        x = F.max_pool2d(x, kernel_size=2)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.max_pool2d(x, kernel_size=2)
        x = F.relu(x)
        x = x.view(x.shape[0], -1)
        h = x
        x = self.fc_1(x)
        x = F.relu(x)
        x = self.fc_2(x)
        x = F.relu(x)
        x = self.fc_3(x)
        return x, h


model = LeNet(OUTPUT_DIM).to(device)
print(f'The model has {count_parameters(model):,} trainable parameters')
lenet_acc = fit(model, optim.Adam(model.parameters()), 3, 'tut2-model.pt')
N_IMAGES = 5
images = [image for image, label in [test_data[i] for i in range(N_IMAGES)]]
horizontal_filter = [[-1, -2, -1], [0, 0, 0], [1, 2, 1]]
images = torch.cat([i.unsqueeze(0) for i in images], dim=0).cpu()
filter = torch.FloatTensor(horizontal_filter).unsqueeze(0).unsqueeze(0).cpu()
filtered_images = F.conv2d(images, filter)
print(filtered_images.shape, filtered_images[0].squeeze(0).abs().max() > 0)
filters = model.conv1.weight.data.cpu()
print(F.conv2d(images, filters).shape, filters.shape[0])


class AlexNet(nn.Module):
    def __init__(self, output_dim):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, 2, 1),
            nn.MaxPool2d(2),
            nn.ReLU(inplace=True),
            nn.Conv2d(16, 32, 3, padding=1),
            nn.MaxPool2d(2),
            nn.ReLU(inplace=True),
            nn.Conv2d(32, 32, 3, padding=1),
            nn.MaxPool2d(2),
            nn.ReLU(inplace=True)
        )
        self.classifier = nn.Sequential(
            nn.Dropout(0.5),
            nn.Linear(32 * 2 * 2, 64),
            nn.ReLU(inplace=True),
            nn.Dropout(0.5),
            nn.Linear(64, output_dim),
        )

    def forward(self, x):
        x = self.features(x)
        h = x.view(x.shape[0], -1)
        x = self.classifier(h)
        return x, h


def initialize_parameters(m):
    if isinstance(m, nn.Conv2d):
        nn.init.kaiming_normal_(m.weight.data, nonlinearity='relu')
        nn.init.constant_(m.bias.data, 0)
    elif isinstance(m, nn.Linear):
        nn.init.xavier_normal_(m.weight.data, gain=nn.init.calculate_gain('relu'))
        nn.init.constant_(m.bias.data, 0)


model = AlexNet(OUTPUT_DIM)
print(f'The model has {count_parameters(model):,} trainable parameters')
print(model.apply(initialize_parameters))
print(nn.init.calculate_gain('relu'), nn.init.calculate_gain('leaky_relu', 0.2))


class LRFinder:
    def __init__(self, model, optimizer, criterion, device):
        self.optimizer = optimizer
        self.model = model
        self.criterion = criterion
        self.device = device
        torch.save(model.state_dict(), 'init_params.pt')

    def range_test(self, iterator, end_lr=10, num_iter=100, smooth_f=0.05, diverge_th=5):
        lrs = []
        losses = []
        best_loss = float('inf')
        lr_scheduler = ExponentialLR(self.optimizer, end_lr, num_iter)
        iterator = IteratorWrapper(iterator)
        for iteration in range(num_iter):
            loss = self._train_batch(iterator)
            lrs.append(lr_scheduler.get_last_lr()[0])
            lr_scheduler.step()
            if iteration > 0:
                loss = smooth_f * loss + (1 - smooth_f) * losses[-1]
            if loss < best_loss:
                best_loss = loss
            losses.append(loss)
            if loss > diverge_th * best_loss:
                print("Stopping early, the loss has diverged")
                break
        model.load_state_dict(torch.load('init_params.pt'))
        return lrs, losses

    def _train_batch(self, iterator):
        self.model.train()
        self.optimizer.zero_grad()
        x, y = iterator.get_batch()
        x = x.to(self.device)
        y = y.to(self.device)
        y_pred, _ = self.model(x)
        loss = self.criterion(y_pred, y)
        loss.backward()
        self.optimizer.step()
        return loss.item()


class ExponentialLR(_LRScheduler):
    def __init__(self, optimizer, end_lr, num_iter, last_epoch=-1):
        self.end_lr = end_lr
        self.num_iter = num_iter
        super(ExponentialLR, self).__init__(optimizer, last_epoch)

    def get_lr(self):
        curr_iter = self.last_epoch
        r = curr_iter / self.num_iter
        return [base_lr * (self.end_lr / base_lr) ** r for base_lr in self.base_lrs]


class IteratorWrapper:
    def __init__(self, iterator):
        self.iterator = iterator
        self._iterator = iter(iterator)

    def __next__(self):
        try:
            inputs, labels = next(self._iterator)
        except StopIteration:
            self._iterator = iter(self.iterator)
            inputs, labels, *_ = next(self._iterator)
        return inputs, labels

    def get_batch(self):
        return next(self)


rgb_train = data.DataLoader(Digits(192, 2, channels=3, size=32, transform=test_transforms),
                            shuffle=True, batch_size=BATCH_SIZE)
START_LR = 1e-7
optimizer = optim.Adam(model.parameters(), lr=START_LR)
model = model.to(device)
lr_finder = LRFinder(model, optimizer, criterion, device)
lrs, losses = lr_finder.range_test(rgb_train, 10, 12)
print(["%.2e" % lr for lr in lrs[:4]], len(losses), type(losses[0]).__name__)
print(optimizer.param_groups[0]['lr'], optimizer.param_groups[0]['initial_lr'])
FOUND_LR = 1e-3
optimizer = optim.Adam(model.parameters(), lr=FOUND_LR)
for epoch in range(2):
    train_loss, train_acc = train(model, rgb_train, optimizer, criterion, device)
    print(f'\tTrain Loss: {train_loss:.3f} | Train Acc: {train_acc*100:.2f}%')


class VGG(nn.Module):
    def __init__(self, features, output_dim):
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d(7)
        self.classifier = nn.Sequential(
            nn.Linear(32 * 7 * 7, 64),
            nn.ReLU(inplace=True),
            nn.Dropout(0.5),
            nn.Linear(64, output_dim),
        )

    def forward(self, x):
        x = self.features(x)
        x = self.avgpool(x)
        h = x.view(x.shape[0], -1)
        x = self.classifier(h)
        return x, h


vgg11_config = [8, 'M', 16, 'M', 32, 32, 'M']


def get_vgg_layers(config, batch_norm):
    layers = []
    in_channels = 3
    for c in config:
        assert c == 'M' or isinstance(c, int)
        if c == 'M':
            layers += [nn.MaxPool2d(kernel_size=2)]
        else:
            conv2d = nn.Conv2d(in_channels, c, kernel_size=3, padding=1)
            if batch_norm:
                layers += [conv2d, nn.BatchNorm2d(c), nn.ReLU(inplace=True)]
            else:
                layers += [conv2d, nn.ReLU(inplace=True)]
            in_channels = c
    return nn.Sequential(*layers)


vgg11_layers = get_vgg_layers(vgg11_config, batch_norm=True)
print(vgg11_layers)
model = VGG(vgg11_layers, OUTPUT_DIM).to(device)
print(model.classifier[-1], model.classifier[-1].in_features)
print(f'The model has {count_parameters(model):,} trainable parameters')
FOUND_LR = 5e-4
params = [
    {'params': model.features.parameters(), 'lr': FOUND_LR / 10},
    {'params': model.classifier.parameters()}
]
optimizer = optim.Adam(params, lr=FOUND_LR)
print([g['lr'] for g in optimizer.param_groups])
for epoch in range(2):
    train_loss, train_acc = train(model, rgb_train, optimizer, criterion, device)
    print(f'\tTrain Loss: {train_loss:.3f} | Train Acc: {train_acc*100:.2f}%')


def normalize_image(image):
    image_min = image.min()
    image_max = image.max()
    image.clamp_(min=image_min, max=image_max)
    image.add_(-image_min).div_(image_max - image_min + 1e-5)
    return image


image = normalize_image(next(iter(rgb_train))[0][0].clone())
print(image.min(), image.max() < 1, image.permute(1, 2, 0).shape)
assert mlp_acc > 0.8 and lenet_acc > 0.5, (mlp_acc, lenet_acc)
