"""PyTorch "Introduction to PyTorch" YouTube series, "Training with PyTorch"
(beginner_source/introyt/trainingyt.py) on generated 28x28 'garments' instead of Fashion-MNIST:
the GarmentClassifier LeNet variant (x.view(-1, 16 * 4 * 4)), the CrossEntropyLoss on dummy
outputs, SGD(lr=0.001, momentum=0.9), train_one_epoch with running_loss reported every N batches
and logged through SummaryWriter.add_scalar('Loss/train', ...), the per-epoch validation with
model.train(False), running_vloss accumulated as a tensor, writer.add_scalars('Training vs.
Validation Loss', {...}) and writer.flush(), and torch.save of the best state_dict named
'model_{timestamp}_{epoch}', loaded back into a fresh GarmentClassifier."""
import os
import tempfile
from datetime import datetime

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.tensorboard import SummaryWriter

torch.manual_seed(0)
classes = ('T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat',
           'Sandal', 'Shirt', 'Sneaker', 'Bag', 'Ankle Boot')


def make_set(n):
    """Generated garments: class c is a bright block at row band c, normalised as
    transforms.Normalize((0.5,), (0.5,)) leaves ToTensor's [0, 1] images."""
    labels = torch.randint(0, 10, (n,))
    images = torch.rand(n, 1, 28, 28) * 0.3
    for i, c in enumerate(labels.tolist()):
        images[i, 0, 2 * c + 3:2 * c + 7, 4:24] = 1.0
    return torch.utils.data.TensorDataset((images - 0.5) / 0.5, labels)


training_set = make_set(120)
validation_set = make_set(40)

# Create data loaders for our datasets; shuffle for training, not for validation
training_loader = torch.utils.data.DataLoader(training_set, batch_size=4, shuffle=True)
validation_loader = torch.utils.data.DataLoader(validation_set, batch_size=4, shuffle=False)

# Report split sizes
print('Training set has {} instances'.format(len(training_set)))
print('Validation set has {} instances'.format(len(validation_set)))

dataiter = iter(training_loader)
images, labels = next(dataiter)
print('  '.join(classes[labels[j]] for j in range(4)))
assert images.shape == (4, 1, 28, 28) and float(images.min()) >= -1 and float(images.max()) <= 1


# PyTorch models inherit from torch.nn.Module
class GarmentClassifier(nn.Module):
    def __init__(self):
        super(GarmentClassifier, self).__init__()
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


model = GarmentClassifier()

loss_fn = torch.nn.CrossEntropyLoss()

# NB: Loss functions expect data in batches, so we're creating batches of 4
# Represents the model's confidence in each of the 10 classes for a given input
dummy_outputs = torch.rand(4, 10)
# Represents the correct class among the 10 being tested
dummy_labels = torch.tensor([1, 5, 3, 7])

print(dummy_outputs)
print(dummy_labels)

loss = loss_fn(dummy_outputs, dummy_labels)
print('Total loss for this batch: {}'.format(loss.item()))
by_hand = -(dummy_outputs.log_softmax(1)[torch.arange(4), dummy_labels]).mean()
assert abs(loss.item() - by_hand.item()) < 1e-6

# Optimizers specified in the torch.optim package
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)  # lr=0.001 in the tutorial
REPORT_EVERY = 10   # 1000 batches in the tutorial
reported = []


def train_one_epoch(epoch_index, tb_writer):
    running_loss = 0.
    last_loss = 0.

    # Here, we use enumerate(training_loader) instead of
    # iter(training_loader) so that we can track the batch
    # index and do some intra-epoch reporting
    for i, data in enumerate(training_loader):
        # Every data instance is an input + label pair
        inputs, labels = data

        # Zero your gradients for every batch!
        optimizer.zero_grad()

        # Make predictions for this batch
        outputs = model(inputs)

        # Compute the loss and its gradients
        loss = loss_fn(outputs, labels)
        loss.backward()

        # Adjust learning weights
        optimizer.step()

        # Gather data and report
        running_loss += loss.item()
        if i % REPORT_EVERY == REPORT_EVERY - 1:
            last_loss = running_loss / REPORT_EVERY # loss per batch
            print('  batch {} loss: {}'.format(i + 1, last_loss))
            tb_x = epoch_index * len(training_loader) + i + 1
            tb_writer.add_scalar('Loss/train', last_loss, tb_x)
            reported.append(tb_x)
            running_loss = 0.

    return last_loss


runs = tempfile.TemporaryDirectory()
# Initializing in a separate cell so we can easily add more epochs to the same run
timestamp = datetime.now().strftime('%Y%m%d_%H%M%S')
writer = SummaryWriter(os.path.join(runs.name, 'runs/fashion_trainer_{}'.format(timestamp)))
epoch_number = 0

EPOCHS = 4

best_vloss = 1_000_000.
saved = []
vlosses = []

for epoch in range(EPOCHS):
    print('EPOCH {}:'.format(epoch_number + 1))

    # Make sure gradient tracking is on, and do a pass over the data
    model.train(True)
    avg_loss = train_one_epoch(epoch_number, writer)

    # We don't need gradients on to do reporting
    model.train(False)

    running_vloss = 0.0
    with torch.no_grad():
        for i, vdata in enumerate(validation_loader):
            vinputs, vlabels = vdata
            voutputs = model(vinputs)
            vloss = loss_fn(voutputs, vlabels)
            running_vloss += vloss

    avg_vloss = running_vloss / (i + 1)
    print('LOSS train {} valid {}'.format(avg_loss, avg_vloss))
    assert isinstance(avg_vloss, torch.Tensor) and avg_vloss.dim() == 0
    vlosses.append(avg_vloss.item())

    # Log the running loss averaged per batch
    # for both training and validation
    writer.add_scalars('Training vs. Validation Loss',
                       { 'Training' : avg_loss, 'Validation' : avg_vloss },
                       epoch_number + 1)
    writer.flush()

    # Track best performance, and save the model's state
    if avg_vloss < best_vloss:
        best_vloss = avg_vloss
        model_path = os.path.join(runs.name, 'model_{}_{}'.format(timestamp, epoch_number))
        torch.save(model.state_dict(), model_path)
        saved.append(model_path)

    epoch_number += 1

writer.close()
assert reported == [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120][:len(reported)]
assert len(reported) == EPOCHS * 3
assert vlosses[-1] < 0.5 * vlosses[0]
assert len(saved) >= 2 and os.path.exists(saved[-1])
assert any(f.startswith("events.out.tfevents") for _, _, fs in os.walk(runs.name) for f in fs)

saved_model = GarmentClassifier()
saved_model.load_state_dict(torch.load(saved[-1]))
saved_model.eval()
with torch.no_grad():
    x = validation_set[:8][0]
    if vlosses.index(min(vlosses)) == EPOCHS - 1:
        assert torch.equal(saved_model(x), model(x))
    acc = (saved_model(validation_set[:][0]).argmax(1) == validation_set[:][1]).float().mean()
assert acc >= 0.8
runs.cleanup()
