"""PyTorch "Introduction to PyTorch" YouTube series, "PyTorch TensorBoard Support"
(beginner_source/introyt/tensorboardyt_tutorial.py) on generated 28x28 'garments' instead of
Fashion-MNIST, with a small make_grid written out (torchvision.utils.make_grid in the
tutorial): writer.add_image('Four Fashion-MNIST Images', img_grid) of the unnormalised grid, the
training loop that checks against the validation set every N batches with net.train(False) and
logs writer.add_scalars('Training vs. Validation Loss', {...}), and writer.add_graph(net, images).
The tutorial's last cell, writer.add_embedding(features, metadata=..., label_img=...), is left
out: labkit's SummaryWriter has no projector support. The event files are read back with
tensorboard's loader and checked."""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.tensorboard import SummaryWriter
from tensorboard.backend.event_processing.event_file_loader import LegacyEventFileLoader

torch.manual_seed(0)
classes = ('T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat',
        'Sandal', 'Shirt', 'Sneaker', 'Bag', 'Ankle Boot')


def make_set(n):
    labels = torch.randint(0, 10, (n,))
    images = torch.rand(n, 1, 28, 28) * 0.3
    for i, c in enumerate(labels.tolist()):
        images[i, 0, 2 * c + 3:2 * c + 7, 4:24] = 1.0
    return torch.utils.data.TensorDataset((images - 0.5) / 0.5, labels)  # Normalize((0.5,), (0.5,))


training_set = make_set(160)
validation_set = make_set(40)
training_loader = torch.utils.data.DataLoader(training_set, batch_size=4, shuffle=True)
validation_loader = torch.utils.data.DataLoader(validation_set, batch_size=4, shuffle=False)


def make_grid(images, padding=2):
    """torchvision.utils.make_grid for one row of 1-channel images (repeated to 3 channels)."""
    n, c, h, w = images.shape
    grid = torch.zeros(3, h + 2 * padding, n * (w + padding) + padding)
    for k in range(n):
        x0 = padding + k * (w + padding)
        grid[:, padding:padding + h, x0:x0 + w] = images[k].expand(3, h, w)
    return grid


# Extract a batch of 4 images
dataiter = iter(training_loader)
images, labels = next(dataiter)

# Create a grid from the images and show them
img_grid = make_grid(images)
assert img_grid.shape == (3, 32, 122)

logdir = tempfile.TemporaryDirectory()
# Default log_dir argument is "runs" - but it's good to be specific
writer = SummaryWriter(os.path.join(logdir.name, 'runs/fashion_mnist_experiment_1'))

# Write image data to TensorBoard log dir
writer.add_image('Four Fashion-MNIST Images', img_grid / 2 + 0.5)
writer.flush()


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 4 * 4, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 4 * 4)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


net = Net()
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.01, momentum=0.9)  # lr=0.001 in the tutorial
EVERY = 10   # every 1000 mini-batches in the tutorial
logged = []

print(len(validation_loader))
for epoch in range(2):  # loop over the dataset multiple times
    running_loss = 0.0

    for i, data in enumerate(training_loader, 0):
        # basic training loop
        inputs, labels = data
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()

        running_loss += loss.item()
        if i % EVERY == EVERY - 1:    # Every 1000 mini-batches...
            print('Batch {}'.format(i + 1))
            # Check against the validation set
            running_vloss = 0.0

            net.train(False) # Don't need to track gradents for validation
            for j, vdata in enumerate(validation_loader, 0):
                vinputs, vlabels = vdata
                voutputs = net(vinputs)
                vloss = criterion(voutputs, vlabels)
                running_vloss += vloss.item()
            net.train(True) # Turn gradients back on for training

            avg_loss = running_loss / EVERY
            avg_vloss = running_vloss / len(validation_loader)

            # Log the running loss averaged per batch
            writer.add_scalars('Training vs. Validation Loss',
                            { 'Training' : avg_loss, 'Validation' : avg_vloss },
                            epoch * len(training_loader) + i)
            logged.append(avg_vloss)

            running_loss = 0.0
print('Finished Training')

writer.flush()

# Again, grab a single mini-batch of images
dataiter = iter(training_loader)
images, labels = next(dataiter)

# add_graph() will trace the sample input through your model,
# and render it as a graph.
writer.add_graph(net, images)
writer.flush()
writer.close()

assert len(logged) == 8 and logged[-1] < 0.5 * logged[0]

# read the event files back: one image, scalar groups written to their own run folders, a graph
found = {"image": [], "scalars": 0, "graph": 0}
for root, _, files in os.walk(logdir.name):
    for f in files:
        for ev in LegacyEventFileLoader(os.path.join(root, f)).Load():
            if ev.HasField("graph_def"):
                found["graph"] += 1
            for v in ev.summary.value:
                if v.HasField("image"):
                    found["image"].append((v.tag, v.image.height, v.image.width,
                                           v.image.colorspace))
                elif v.tag == "Training vs. Validation Loss":
                    found["scalars"] += 1
assert found["image"] == [('Four Fashion-MNIST Images', 32, 122, 3)]
assert found["scalars"] == 2 * len(logged)
assert found["graph"] >= 1
logdir.cleanup()
