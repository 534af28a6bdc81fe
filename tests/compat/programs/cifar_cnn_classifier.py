"""The CIFAR-10 tutorial's Net on synthetic 3x32x32 images: conv/pool, x.view(-1, 16 * 5 * 5),
CrossEntropyLoss, SGD with momentum, running_loss, and torch.max(outputs.data, 1) for accuracy."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0)
classes = ('plane', 'car', 'bird', 'cat')
labels_all = torch.randint(0, 4, (64,))
images_all = torch.randn(64, 3, 32, 32) * 0.1
for i, c in enumerate(labels_all.tolist()):
    images_all[i, c % 3, 8 * c:8 * c + 8, :] += 1.0
trainloader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(images_all, labels_all), batch_size=16, shuffle=True)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 60)
        self.fc2 = nn.Linear(60, 40)
        self.fc3 = nn.Linear(40, 4)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


net = Net()
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
epoch_losses = []
for epoch in range(6):
    running_loss = 0.0
    for i, data in enumerate(trainloader, 0):
        inputs, labels = data
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
    epoch_losses.append(running_loss / len(trainloader))
print('Finished Training', epoch_losses)

correct = 0
total = 0
with torch.no_grad():
    for data in trainloader:
        images, labels = data
        outputs = net(images)
        _, predicted = torch.max(outputs.data, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum().item()
print(f'Accuracy of the network: {100 * correct // total} %')
assert epoch_losses[-1] < epoch_losses[0]
assert total == 64 and predicted.dtype == torch.int64
