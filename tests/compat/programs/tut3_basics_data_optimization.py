"""PyTorch "Learn the Basics", parts "Datasets & DataLoaders", "Transforms", "Optimizing Model
Parameters" and "Save and Load the Model" (beginner_source/basics/data_tutorial.py,
transforms_tutorial.py, optimization_tutorial.py, saveloadrun_tutorial.py), with generated images
instead of FashionMNIST and the csv module instead of pandas: CustomImageDataset(annotations_file,
img_dir, transform, target_transform) with __len__/__getitem__, a ToTensor done by hand (uint8 HWC
-> float CHW in [0, 1]), the target transform Lambda(lambda y: torch.zeros(10, dtype=torch.float)
.scatter_(0, torch.tensor(y), value=1)), DataLoader(batch_size=64, shuffle=True) and
next(iter(...)), then train_loop / test_loop (model.train(), model.eval(), loss.item(), batch *
batch_size + len(X), (pred.argmax(1) == y).type(torch.float).sum().item()), and
torch.save(model.state_dict(), 'model_weights.pth') / load_state_dict(torch.load(...,
weights_only=True))."""
import csv
import os
import tempfile

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class CustomImageDataset(Dataset):
    def __init__(self, annotations_file, img_dir, transform=None, target_transform=None):
        with open(annotations_file, newline="") as f:
            self.img_labels = [(row[0], int(row[1])) for row in csv.reader(f)]
        self.img_dir = img_dir
        self.transform = transform
        self.target_transform = target_transform

    def __len__(self):
        return len(self.img_labels)

    def __getitem__(self, idx):
        img_path = os.path.join(self.img_dir, self.img_labels[idx][0])
        image = np.load(img_path)   # read_image(img_path) in the tutorial
        label = self.img_labels[idx][1]
        if self.transform:
            image = self.transform(image)
        if self.target_transform:
            label = self.target_transform(label)
        return image, label


class Lambda:
    """torchvision.transforms.Lambda"""

    def __init__(self, lambd):
        self.lambd = lambd

    def __call__(self, x):
        return self.lambd(x)


def ToTensor():
    """torchvision.transforms.ToTensor on an HxWxC uint8 array."""
    return Lambda(lambda pic: torch.from_numpy(pic.transpose(2, 0, 1).copy()).float().div(255))


# a generated FashionMNIST: class c has a bright horizontal band at rows 2c..2c+4
rng = np.random.default_rng(0)
tmp = tempfile.TemporaryDirectory()
rows = []
for split, n in (("train", 300), ("test", 100)):
    os.makedirs(os.path.join(tmp.name, split))
    for i in range(n):
        label = int(rng.integers(10))
        img = rng.integers(0, 60, size=(28, 28, 1), dtype=np.uint8)
        img[2 * label + 4:2 * label + 8] = 250
        name = f"{i}.npy"
        np.save(os.path.join(tmp.name, split, name), img)
        rows.append((split, name, label))
    with open(os.path.join(tmp.name, f"{split}.csv"), "w", newline="") as f:
        csv.writer(f).writerows([(nm, lb) for s, nm, lb in rows if s == split])

one_hot = Lambda(lambda y: torch.zeros(10, dtype=torch.float).scatter_(0, torch.tensor(y), value=1))
ds = CustomImageDataset(os.path.join(tmp.name, "train.csv"), os.path.join(tmp.name, "train"),
                        transform=ToTensor(), target_transform=one_hot)
img, target = ds[0]
assert len(ds) == 300
assert img.shape == (1, 28, 28) and img.dtype == torch.float32
assert 0 <= float(img.min()) and float(img.max()) <= 1
assert target.dtype == torch.float32 and target.sum() == 1 and int(target.argmax()) == rows[0][2]

training_data = CustomImageDataset(os.path.join(tmp.name, "train.csv"),
                                   os.path.join(tmp.name, "train"), transform=ToTensor())
test_data = CustomImageDataset(os.path.join(tmp.name, "test.csv"),
                               os.path.join(tmp.name, "test"), transform=ToTensor())

torch.manual_seed(0)
batch_size = 64
train_dataloader = DataLoader(training_data, batch_size=batch_size, shuffle=True)
test_dataloader = DataLoader(test_data, batch_size=batch_size)

train_features, train_labels = next(iter(train_dataloader))
print(f"Feature batch shape: {train_features.size()}")
print(f"Labels batch shape: {train_labels.size()}")
assert train_features.size() == (64, 1, 28, 28)
assert train_labels.size() == (64,) and train_labels.dtype == torch.int64
img = train_features[0].squeeze()
assert img.shape == (28, 28)


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28*28, 64),
            nn.ReLU(),
            nn.Linear(64, 64),
            nn.ReLU(),
            nn.Linear(64, 10),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


model = NeuralNetwork()

learning_rate = 1e-1
epochs = 8

loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)
printed = []


def train_loop(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        # Compute prediction and loss
        pred = model(X)
        loss = loss_fn(pred, y)

        # Backpropagation
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        if batch % 100 == 0:
            loss, current = loss.item(), batch * batch_size + len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")
            printed.append(current)


def test_loop(dataloader, model, loss_fn):
    model.eval()
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    test_loss, correct = 0, 0

    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()

    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")
    return test_loss, correct


first_loss, _ = test_loop(test_dataloader, model, loss_fn)
for t in range(epochs):
    print(f"Epoch {t+1}\n-------------------------------")
    train_loop(train_dataloader, model, loss_fn, optimizer)
    test_loss, correct = test_loop(test_dataloader, model, loss_fn)
print("Done!")
assert printed == [64] * epochs
assert test_loss < 0.5 * first_loss
assert correct >= 0.9

path = os.path.join(tmp.name, 'model_weights.pth')
torch.save(model.state_dict(), path)

model2 = NeuralNetwork()  # we do not specify ``weights``, i.e. create untrained model
model2.load_state_dict(torch.load(path, weights_only=True))
model2.eval()
X, y = next(iter(test_dataloader))
with torch.no_grad():
    assert torch.equal(model2(X), model(X))
assert not model2.training
tmp.cleanup()
