"""Sebastian Raschka's STAT 453 (Intro to Deep Learning, spring 2021; rasbt/stat453-deep-learning-
ss21), lectures 11-12 at toy size: the helper files helper_evaluation.py (set_all_seeds with
torch.cuda.manual_seed_all, set_deterministic comparing torch.__version__ with distutils'
LooseVersion and calling torch.use_deterministic_algorithms, compute_accuracy with torch.max(logits,
1) and correct_pred.float()/num_examples * 100), helper_dataset.py (get_dataloaders_mnist's
validation split by SubsetRandomSampler over torch.arange index ranges, drop_last=True) on a
synthetic 28x28 dataset in place of torchvision's MNIST, and helper_train.py (train_model logging
f'{loss:.4f}' of a tensor, scheduler.step(valid_acc_list[-1]) for scheduler_on='valid_acc' or
minibatch loss); the notebooks weight_kaiming.ipynb (kaiming_uniform_(mode='fan_in',
nonlinearity='relu'), m.bias.detach().zero_()), batchnorm.ipynb (Linear(bias=False) +
BatchNorm1d + Dropout), scheduler.ipynb (ReduceLROnPlateau(factor=0.1, mode='max')) and
sgd-scheduler-momentum.ipynb (SGD(momentum=0.9, weight_decay=1e-4), ReduceLROnPlateau(mode='min')
on the last minibatch loss); plots left out."""
import os
import random
import time
import warnings
from distutils.version import LooseVersion as Version

import numpy as np
import torch
from torch.utils.data import DataLoader, SubsetRandomSampler, TensorDataset

warnings.simplefilter("ignore", DeprecationWarning)


# ---- helper_evaluation.py
def set_all_seeds(seed):
    os.environ["PL_GLOBAL_SEED"] = str(seed)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


def set_deterministic():
    if torch.cuda.is_available():
        torch.backends.cudnn.benchmark = False
        torch.backends.cudnn.deterministic = True

    if torch.__version__ <= Version("1.7"):
        torch.set_deterministic(True)
    else:
        torch.use_deterministic_algorithms(True)


def compute_accuracy(model, data_loader, device):

    with torch.no_grad():

        correct_pred, num_examples = 0, 0

        for i, (features, targets) in enumerate(data_loader):

            features = features.to(device)
            targets = targets.float().to(device)

            logits = model(features)
            _, predicted_labels = torch.max(logits, 1)

            num_examples += targets.size(0)
            correct_pred += (predicted_labels == targets).sum()
    return correct_pred.float()/num_examples * 100


# ---- helper_dataset.py, on synthetic "MNIST" (10 prototypes of 28x28 plus noise, 600 images)
g = torch.Generator().manual_seed(0)
protos = (torch.rand(10, 1, 28, 28, generator=g) > 0.75).float()
def fake_mnist(n):
    y = torch.arange(n) % 10
    x = (protos[y] + 0.4 * torch.rand(n, 1, 28, 28, generator=g)).clamp(0, 1)
    return TensorDataset(x, y)
N_TRAIN = 600


def get_dataloaders_mnist(batch_size, num_workers=0,
                          validation_fraction=None,
                          train_transforms=None,
                          test_transforms=None):

    train_dataset = fake_mnist(N_TRAIN)
    valid_dataset = train_dataset
    test_dataset = fake_mnist(200)

    if validation_fraction is not None:
        num = int(validation_fraction * N_TRAIN)
        train_indices = torch.arange(0, N_TRAIN - num)
        valid_indices = torch.arange(N_TRAIN - num, N_TRAIN)

        train_sampler = SubsetRandomSampler(train_indices)
        valid_sampler = SubsetRandomSampler(valid_indices)

        valid_loader = DataLoader(dataset=valid_dataset,
                                  batch_size=batch_size,
                                  num_workers=num_workers,
                                  sampler=valid_sampler)

        train_loader = DataLoader(dataset=train_dataset,
                                  batch_size=batch_size,
                                  num_workers=num_workers,
                                  drop_last=True,
                                  sampler=train_sampler)

    else:
        train_loader = DataLoader(dataset=train_dataset,
                                  batch_size=batch_size,
                                  num_workers=num_workers,
                                  drop_last=True,
                                  shuffle=True)

    test_loader = DataLoader(dataset=test_dataset,
                             batch_size=batch_size,
                             num_workers=num_workers,
                             shuffle=False)

    if validation_fraction is None:
        return train_loader, test_loader
    else:
        return train_loader, valid_loader, test_loader


# ---- helper_train.py
def train_model(model, num_epochs, train_loader,
                valid_loader, test_loader, optimizer,
                device, logging_interval=50,
                scheduler=None,
                scheduler_on='valid_acc'):

    start_time = time.time()
    minibatch_loss_list, train_acc_list, valid_acc_list = [], [], []

    for epoch in range(num_epochs):

        model.train()
        for batch_idx, (features, targets) in enumerate(train_loader):

            features = features.to(device)
            targets = targets.to(device)

            # ## FORWARD AND BACK PROP
            logits = model(features)
            loss = torch.nn.functional.cross_entropy(logits, targets)
            optimizer.zero_grad()

            loss.backward()

            # ## UPDATE MODEL PARAMETERS
            optimizer.step()

            # ## LOGGING
            minibatch_loss_list.append(loss.item())
            if not batch_idx % logging_interval:
                print(f'Epoch: {epoch+1:03d}/{num_epochs:03d} '
                      f'| Batch {batch_idx:04d}/{len(train_loader):04d} '
                      f'| Loss: {loss:.4f}')

        model.eval()
        with torch.no_grad():  # save memory during inference
            train_acc = compute_accuracy(model, train_loader, device=device)
            valid_acc = compute_accuracy(model, valid_loader, device=device)
            print(f'Epoch: {epoch+1:03d}/{num_epochs:03d} '
                  f'| Train: {train_acc :.2f}% '
                  f'| Validation: {valid_acc :.2f}%')
            train_acc_list.append(train_acc.item())
            valid_acc_list.append(valid_acc.item())

        elapsed = (time.time() - start_time)/60
        print(f'Time elapsed: {elapsed:.2f} min')

        if scheduler is not None:

            if scheduler_on == 'valid_acc':
                scheduler.step(valid_acc_list[-1])
            elif scheduler_on == 'minibatch_loss':
                scheduler.step(minibatch_loss_list[-1])
            else:
                raise ValueError(f'Invalid `scheduler_on` choice.')

    elapsed = (time.time() - start_time)/60
    print(f'Total Training Time: {elapsed:.2f} min')

    test_acc = compute_accuracy(model, test_loader, device=device)
    print(f'Test accuracy {test_acc :.2f}%')

    return minibatch_loss_list, train_acc_list, valid_acc_list


##########################
### SETTINGS
##########################
RANDOM_SEED = 123
BATCH_SIZE = 64
NUM_HIDDEN_1 = 75
NUM_HIDDEN_2 = 45
NUM_EPOCHS = 6
DEVICE = torch.device('cuda:0' if torch.cuda.is_available() else 'cpu')

set_all_seeds(RANDOM_SEED)
set_deterministic()
assert os.environ["PL_GLOBAL_SEED"] == "123" and torch.are_deterministic_algorithms_enabled()

train_loader, valid_loader, test_loader = get_dataloaders_mnist(
    batch_size=BATCH_SIZE,
    validation_fraction=0.1)

# Checking the dataset
for images, labels in train_loader:
    print('Image batch dimensions:', images.shape)
    print('Image label dimensions:', labels.shape)
    print('Class labels of 10 examples:', labels[:10])
    break
assert images.shape == (64, 1, 28, 28) and len(train_loader) == 540 // 64 and len(valid_loader) == 1
seen = torch.cat([y for _, y in valid_loader])
assert len(seen) == 60


# ---- weight_kaiming.ipynb
class MultilayerPerceptron(torch.nn.Module):
    def __init__(self, num_features, num_classes, drop_proba,
                 num_hidden_1, num_hidden_2):
        super().__init__()

        self.my_network = torch.nn.Sequential(
            # 1st hidden layer
            torch.nn.Flatten(),
            torch.nn.Linear(num_features, num_hidden_1),
            torch.nn.ReLU(),
            # 2nd hidden layer
            torch.nn.Linear(num_hidden_1, num_hidden_2),
            torch.nn.ReLU(),
            # output layer
            torch.nn.Linear(num_hidden_2, num_classes)
        )

        for m in self.modules():
            if isinstance(m, torch.nn.Linear):
                torch.nn.init.kaiming_uniform_(m.weight, mode='fan_in', nonlinearity='relu')
                if m.bias is not None:
                    m.bias.detach().zero_()

    def forward(self, x):
        logits = self.my_network(x)
        return logits


torch.manual_seed(RANDOM_SEED)
model = MultilayerPerceptron(num_features=28*28, num_hidden_1=NUM_HIDDEN_1,
                             num_hidden_2=NUM_HIDDEN_2, drop_proba=0.5, num_classes=10)
model = model.to(DEVICE)
w = model.my_network[1].weight
assert w.abs().max() <= (6 / 784) ** 0.5 and w.abs().max() > 0.9 * (6 / 784) ** 0.5
assert model.my_network[1].bias.abs().sum() == 0
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
minibatch_loss_list, train_acc_list, valid_acc_list = train_model(
    model=model, num_epochs=NUM_EPOCHS, train_loader=train_loader, valid_loader=valid_loader,
    test_loader=test_loader, optimizer=optimizer, device=DEVICE, logging_interval=4)
assert len(minibatch_loss_list) == NUM_EPOCHS * 8 and valid_acc_list[-1] > 90, valid_acc_list


# ---- batchnorm.ipynb and scheduler.ipynb
class MultilayerPerceptron(torch.nn.Module):
    def __init__(self, num_features, num_classes, drop_proba,
                 num_hidden_1, num_hidden_2):
        super().__init__()

        self.my_network = torch.nn.Sequential(
            # 1st hidden layer
            torch.nn.Flatten(),
            torch.nn.Linear(num_features, num_hidden_1, bias=False),
            torch.nn.BatchNorm1d(num_hidden_1),
            torch.nn.ReLU(),
            torch.nn.Dropout(0.5),
            # 2nd hidden layer
            torch.nn.Linear(num_hidden_1, num_hidden_2, bias=False),
            torch.nn.BatchNorm1d(num_hidden_2),
            torch.nn.ReLU(),
            torch.nn.Dropout(0.3),
            # output layer
            torch.nn.Linear(num_hidden_2, num_classes)
        )

    def forward(self, x):
        logits = self.my_network(x)
        return logits


torch.manual_seed(RANDOM_SEED)
model = MultilayerPerceptron(num_features=28*28,
                             num_hidden_1=NUM_HIDDEN_1,
                             num_hidden_2=NUM_HIDDEN_2,
                             drop_proba=0.5,
                             num_classes=10)
model = model.to(DEVICE)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer,
                                                       factor=0.1,
                                                       mode='max',
                                                       patience=1)
minibatch_loss_list, train_acc_list, valid_acc_list = train_model(
    model=model,
    num_epochs=NUM_EPOCHS,
    train_loader=train_loader,
    valid_loader=valid_loader,
    test_loader=test_loader,
    optimizer=optimizer,
    device=DEVICE,
    logging_interval=800,
    scheduler=scheduler,
    scheduler_on='valid_acc')
print(valid_acc_list, optimizer.param_groups[0]['lr'], scheduler.num_bad_epochs)
assert valid_acc_list[-1] > 90, valid_acc_list
assert model.my_network[2].num_batches_tracked.item() == NUM_EPOCHS * 8
assert scheduler.best == max(valid_acc_list)
# the plateau rule: every 2 epochs without a better valid_acc divide lr by 10
lr, best, bad = 0.1, -float('inf'), 0
for acc in valid_acc_list:
    if acc > best * (1 + 1e-4) if best > 0 else acc > best:
        best, bad = acc, 0
    else:
        bad += 1
    if bad > 1:
        lr, bad = lr * 0.1, 0
assert abs(optimizer.param_groups[0]['lr'] - lr) < 1e-12

# ---- sgd-scheduler-momentum.ipynb (verbose=True dropped: torch 2.13 no longer takes it)
torch.manual_seed(RANDOM_SEED)
model = MultilayerPerceptron(num_features=28*28, num_hidden_1=NUM_HIDDEN_1,
                             num_hidden_2=NUM_HIDDEN_2, drop_proba=0.5, num_classes=10).to(DEVICE)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=0.0001)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer,
                                                       factor=0.1,
                                                       mode='min')
minibatch_loss_list, train_acc_list, valid_acc_list = train_model(
    model=model,
    num_epochs=NUM_EPOCHS,
    train_loader=train_loader,
    valid_loader=valid_loader,
    test_loader=test_loader,
    optimizer=optimizer,
    device=DEVICE,
    logging_interval=100,
    scheduler=scheduler,
    scheduler_on='minibatch_loss')
print(valid_acc_list, optimizer.param_groups[0]['lr'], scheduler.best)
assert scheduler.best == min(minibatch_loss_list[7::8]) and optimizer.param_groups[0]['lr'] == 0.1
assert valid_acc_list[-1] > 90 and 'momentum_buffer' in optimizer.state[model.my_network[1].weight]
assert optimizer.param_groups[0]['weight_decay'] == 0.0001
torch.use_deterministic_algorithms(False)
