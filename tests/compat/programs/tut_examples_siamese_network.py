"""pytorch/examples siamese_network/main.py on synthetic 'digit' images (a small CNN in place of
torchvision's resnet18): APP_MATCHER-style Dataset.__getitem__ returning (image_1, image_2,
target) with a same-class pair for even indices and a different-class pair for odd ones,
SiameseNetwork.forward_once on each image, torch.cat((output1, output2), 1) -> fc -> sigmoid,
nn.BCELoss, optim.Adadelta(lr=1), StepLR(step_size=1, gamma=0.7), and the test loop's
torch.where(output > 0.5, 1, 0) accuracy."""
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, Dataset


class SiameseNetwork(nn.Module):
    def __init__(self):
        super(SiameseNetwork, self).__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=3, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, kernel_size=3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d((2, 2)),
        )
        self.fc_in_features = 16 * 2 * 2
        # add linear layers to compare between the features of the two images
        self.fc = nn.Sequential(
            nn.Linear(self.fc_in_features * 2, 64),
            nn.ReLU(inplace=True),
            nn.Linear(64, 1),
        )
        self.sigmoid = nn.Sigmoid()
        # initialize the weights
        self.features.apply(self.init_weights)
        self.fc.apply(self.init_weights)

    def init_weights(self, m):
        if isinstance(m, nn.Linear):
            torch.nn.init.xavier_uniform_(m.weight)
            m.bias.data.fill_(0.01)

    def forward_once(self, x):
        output = self.features(x)
        output = output.view(output.size()[0], -1)
        return output

    def forward(self, input1, input2):
        # get two images' features
        output1 = self.forward_once(input1)
        output2 = self.forward_once(input2)
        # concatenate both images' features
        output = torch.cat((output1, output2), 1)
        # pass the concatenation to the linear layers
        output = self.fc(output)
        # pass the out of the linear layers to sigmoid layer
        output = self.sigmoid(output)
        return output


class APP_MATCHER(Dataset):
    def __init__(self, n, seed):
        super(APP_MATCHER, self).__init__()
        g = torch.Generator().manual_seed(seed)
        self.prototypes = torch.zeros(4, 1, 12, 12)
        for c in range(4):                       # class c: a bright bar in quadrant c
            r, q = divmod(c, 2)
            self.prototypes[c, 0, r * 6:r * 6 + 6, q * 6 + 2:q * 6 + 4] = 1.0
        self.targets = torch.randint(0, 4, (n,), generator=g)
        self.data = self.prototypes[self.targets] + 0.3 * torch.randn(n, 1, 12, 12, generator=g)
        self.group_examples()

    def group_examples(self):
        self.grouped_examples = {}
        for i in range(0, 4):
            self.grouped_examples[i] = torch.nonzero(self.targets == i).view(-1).tolist()

    def __len__(self):
        return self.data.shape[0]

    def __getitem__(self, index):
        selected_class = random.randint(0, 3)
        random_index_1 = random.randint(0, len(self.grouped_examples[selected_class]) - 1)
        index_1 = self.grouped_examples[selected_class][random_index_1]
        image_1 = self.data[index_1].clone().float()
        # same class
        if index % 2 == 0:
            random_index_2 = random.randint(0, len(self.grouped_examples[selected_class]) - 1)
            while random_index_2 == random_index_1:
                random_index_2 = random.randint(0, len(self.grouped_examples[selected_class]) - 1)
            index_2 = self.grouped_examples[selected_class][random_index_2]
            image_2 = self.data[index_2].clone().float()
            target = torch.tensor(1, dtype=torch.float)
        # different class
        else:
            other_selected_class = random.randint(0, 3)
            while other_selected_class == selected_class:
                other_selected_class = random.randint(0, 3)
            random_index_2 = random.randint(0, len(self.grouped_examples[other_selected_class]) - 1)
            index_2 = self.grouped_examples[other_selected_class][random_index_2]
            image_2 = self.data[index_2].clone().float()
            target = torch.tensor(0, dtype=torch.float)
        return image_1, image_2, target


def train(model, device, train_loader, optimizer, epoch):
    model.train()
    criterion = nn.BCELoss()
    for batch_idx, (images_1, images_2, targets) in enumerate(train_loader):
        images_1, images_2, targets = images_1.to(device), images_2.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = model(images_1, images_2).squeeze()
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
    print('Train Epoch: {} \tLoss: {:.6f}'.format(epoch, loss.item()))


def test(model, device, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    criterion = nn.BCELoss()
    with torch.no_grad():
        for (images_1, images_2, targets) in test_loader:
            images_1, images_2, targets = images_1.to(device), images_2.to(device), targets.to(device)
            outputs = model(images_1, images_2).squeeze()
            test_loss += criterion(outputs, targets).sum().item()  # sum up batch loss
            pred = torch.where(outputs > 0.5, 1, 0)  # get the index of the max log-probability
            correct += pred.eq(targets.view_as(pred)).sum().item()
    test_loss /= len(test_loader.dataset)
    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
        test_loss, correct, len(test_loader.dataset),
        100. * correct / len(test_loader.dataset)))
    return correct / len(test_loader.dataset)


random.seed(1)
torch.manual_seed(1)
device = torch.device("cpu")
train_dataset = APP_MATCHER(256, seed=0)
test_dataset = APP_MATCHER(128, seed=1)
train_loader = DataLoader(train_dataset, batch_size=32, shuffle=True)
test_loader = DataLoader(test_dataset, batch_size=64, shuffle=False)
model = SiameseNetwork().to(device)
optimizer = optim.Adadelta(model.parameters(), lr=1.0)
scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
for epoch in range(1, 5):
    train(model, device, train_loader, optimizer, epoch)
    accuracy = test(model, device, test_loader)
    scheduler.step()
assert abs(optimizer.param_groups[0]["lr"] - 0.7 ** 4) < 1e-12
assert accuracy > 0.8, accuracy
