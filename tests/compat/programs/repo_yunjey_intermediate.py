"""yunjey/pytorch-tutorial, 02-intermediate: convolutional_neural_network (ConvNet of
Conv2d+BatchNorm2d+ReLU+MaxPool2d layers, out.reshape(out.size(0), -1), eval for the test),
recurrent_neural_network / bidirectional_recurrent_neural_network (nn.LSTM with h0/c0 from
torch.zeros(...).to(device), out[:, -1, :]), deep_residual_network (conv3x3, ResidualBlock with
ReLU(inplace=True) and out += residual, make_layer, AvgPool2d, update_lr through param_groups),
each on a few synthetic batches."""
import torch
import torch.nn as nn

torch.manual_seed(0)
device = torch.device('cuda:0' if torch.cuda.is_available() else 'cpu')


def loader(n, shape, seed, batch_size, shuffle):
    """Stands in for MNIST/CIFAR: class k lights row 2k+4 (and a channel offset)."""
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, 10, (n,), generator=g)
    images = torch.rand(n, *shape, generator=g) * 0.3
    images[torch.arange(n), :, labels * 2 + 4, :] += 0.7
    dataset = torch.utils.data.TensorDataset(images, labels)
    return torch.utils.data.DataLoader(dataset=dataset, batch_size=batch_size, shuffle=shuffle)


def run(model, train_loader, test_loader, num_epochs, lr, prep=lambda x: x, every=2,
        schedule=None):
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    total_step = len(train_loader)
    for epoch in range(num_epochs):
        for i, (images, labels) in enumerate(train_loader):
            images = prep(images).to(device)
            labels = labels.to(device)
            outputs = model(images)
            loss = criterion(outputs, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if (i + 1) % every == 0:
                print('Epoch [{}/{}], Step [{}/{}], Loss: {:.4f}'
                      .format(epoch + 1, num_epochs, i + 1, total_step, loss.item()))
        if schedule:
            schedule(optimizer, epoch)
    model.eval()
    with torch.no_grad():
        correct = 0
        total = 0
        for images, labels in test_loader:
            images = prep(images).to(device)
            labels = labels.to(device)
            outputs = model(images)
            _, predicted = torch.max(outputs.data, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()
        print('Test Accuracy of the model on the 10000 test images: {} %'
              .format(100 * correct / total))
    return correct / total


class ConvNet(nn.Module):
    def __init__(self, num_classes=10):
        super(ConvNet, self).__init__()
        self.layer1 = nn.Sequential(
            nn.Conv2d(1, 16, kernel_size=5, stride=1, padding=2),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2))
        self.layer2 = nn.Sequential(
            nn.Conv2d(16, 32, kernel_size=5, stride=1, padding=2),
            nn.BatchNorm2d(32),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2))
        self.fc = nn.Linear(7 * 7 * 32, num_classes)

    def forward(self, x):
        out = self.layer1(x)
        out = self.layer2(out)
        out = out.reshape(out.size(0), -1)
        out = self.fc(out)
        return out


model = ConvNet(10).to(device)
print(model)
acc_cnn = run(model, loader(200, (1, 28, 28), 1, 50, True), loader(100, (1, 28, 28), 2, 50, False),
              1, 0.001)
print(model.layer1[1].running_mean[:4], model.layer1[1].num_batches_tracked)

sequence_length, input_size, hidden_size, num_layers, num_classes = 28, 28, 32, 2, 10


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, num_classes):
        super(RNN, self).__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_size, num_classes)

    def forward(self, x):
        h0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size).to(device)
        c0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size).to(device)
        out, _ = self.lstm(x, (h0, c0))
        out = self.fc(out[:, -1, :])
        return out


class BiRNN(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, num_classes):
        super(BiRNN, self).__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True,
                            bidirectional=True)
        self.fc = nn.Linear(hidden_size * 2, num_classes)

    def forward(self, x):
        h0 = torch.zeros(self.num_layers * 2, x.size(0), self.hidden_size).to(device)
        c0 = torch.zeros(self.num_layers * 2, x.size(0), self.hidden_size).to(device)
        out, _ = self.lstm(x, (h0, c0))
        out = self.fc(out[:, -1, :])
        return out


prep = lambda images: images.reshape(-1, sequence_length, input_size)
for cls in (RNN, BiRNN):
    model = cls(input_size, hidden_size, num_layers, num_classes).to(device)
    print(model)
    print(sum(p.numel() for p in model.parameters()), [n for n, _ in model.lstm.named_parameters()][:5])
    run(model, loader(200, (1, 28, 28), 3, 50, True), loader(100, (1, 28, 28), 4, 50, False),
        1, 0.003, prep)


def conv3x3(in_channels, out_channels, stride=1):
    return nn.Conv2d(in_channels, out_channels, kernel_size=3,
                     stride=stride, padding=1, bias=False)


class ResidualBlock(nn.Module):
    def __init__(self, in_channels, out_channels, stride=1, downsample=None):
        super(ResidualBlock, self).__init__()
        self.conv1 = conv3x3(in_channels, out_channels, stride)
        self.bn1 = nn.BatchNorm2d(out_channels)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(out_channels, out_channels)
        self.bn2 = nn.BatchNorm2d(out_channels)
        self.downsample = downsample

    def forward(self, x):
        residual = x
        out = self.conv1(x)
        out = self.bn1(out)
        out = self.relu(out)
        out = self.conv2(out)
        out = self.bn2(out)
        if self.downsample:
            residual = self.downsample(x)
        out += residual
        out = self.relu(out)
        return out


class ResNet(nn.Module):
    def __init__(self, block, layers, num_classes=10):
        super(ResNet, self).__init__()
        self.in_channels = 8
        self.conv = conv3x3(3, 8)
        self.bn = nn.BatchNorm2d(8)
        self.relu = nn.ReLU(inplace=True)
        self.layer1 = self.make_layer(block, 8, layers[0])
        self.layer2 = self.make_layer(block, 16, layers[1], 2)
        self.layer3 = self.make_layer(block, 32, layers[2], 2)
        self.avg_pool = nn.AvgPool2d(8)
        self.fc = nn.Linear(32, num_classes)

    def make_layer(self, block, out_channels, blocks, stride=1):
        downsample = None
        if (stride != 1) or (self.in_channels != out_channels):
            downsample = nn.Sequential(
                conv3x3(self.in_channels, out_channels, stride=stride),
                nn.BatchNorm2d(out_channels))
        layers = []
        layers.append(block(self.in_channels, out_channels, stride, downsample))
        self.in_channels = out_channels
        for i in range(1, blocks):
            layers.append(block(out_channels, out_channels))
        return nn.Sequential(*layers)

    def forward(self, x):
        out = self.conv(x)
        out = self.bn(out)
        out = self.relu(out)
        out = self.layer1(out)
        out = self.layer2(out)
        out = self.layer3(out)
        out = self.avg_pool(out)
        out = out.view(out.size(0), -1)
        out = self.fc(out)
        return out


def update_lr(optimizer, lr):
    for param_group in optimizer.param_groups:
        param_group['lr'] = lr


curr_lr = [0.001]


def every_epoch(optimizer, epoch):
    if (epoch + 1) % 1 == 0:
        curr_lr[0] /= 3
        update_lr(optimizer, curr_lr[0])
        print(optimizer.param_groups[0]['lr'])


model = ResNet(ResidualBlock, [2, 1, 1]).to(device)
print(model.layer2)
run(model, loader(64, (3, 32, 32), 5, 32, True), loader(32, (3, 32, 32), 6, 32, False), 2, 0.001,
    schedule=every_epoch)
torch.save(model.state_dict(), 'resnet.ckpt')
print(list(torch.load('resnet.ckpt').keys())[:6])
assert acc_cnn > 0.3
