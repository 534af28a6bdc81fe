""""Deep Learning with PyTorch" (Stevens, Antiga, Viehmann), chapter 8 ("Using convolutions to
generalize") on synthetic 3x32x32 "birds vs airplanes": nn.Conv2d(3, 16, kernel_size=3,
padding=1) weight/bias shapes, model(img.unsqueeze(0)), nn.MaxPool2d, the Net(nn.Module) with
torch.tanh / F.max_pool2d and out.view(-1, 8 * 8 * 8), numel_list = [p.numel() for p in
model.parameters()], training_loop printing with datetime.datetime.now(), validate() with
torch.max(outputs, dim=1) and (predicted == labels).sum(), device = torch.device('cuda') if
torch.cuda.is_available() else torch.device('cpu'), torch.save(model.state_dict(), path) and
load_state_dict(torch.load(path, map_location=device)), the L2 penalty sum(p.pow(2.0).sum() for p
in model.parameters()), NetDropout (nn.Dropout2d), NetBatchNorm (nn.BatchNorm2d), and NetResDeep
with a ResBlock (kaiming_normal_(nonlinearity='relu'), constant_ for the batch norm) repeated by
nn.Sequential(*(n_blocks * [ResBlock(n_chans=n_chans1)]))."""
import datetime

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(123)
g = torch.Generator().manual_seed(0)
n = 80
labels_all = torch.randint(0, 2, (n,), generator=g)
imgs = torch.rand(n, 3, 32, 32, generator=g) * 0.5
imgs[labels_all == 1, 2, :, :] += 0.4  # "airplanes": more blue sky
imgs[labels_all == 0, 1, 8:24, 8:24] += 0.4  # "birds": a green blob
cifar2 = list(zip(imgs[:48], labels_all[:48].tolist()))
cifar2_val = list(zip(imgs[48:], labels_all[48:].tolist()))
img, _ = cifar2[0]

conv = nn.Conv2d(3, 16, kernel_size=3)  # <1>
print(conv)
print(conv.weight.shape, conv.bias.shape)
output = conv(img.unsqueeze(0))
print(img.unsqueeze(0).shape, output.shape)
conv = nn.Conv2d(3, 1, kernel_size=3, padding=1)  # <1>
output = conv(img.unsqueeze(0))
print(img.unsqueeze(0).shape, output.shape)
with torch.no_grad():
    conv.bias.zero_()
with torch.no_grad():
    conv.weight.fill_(1.0 / 9.0)
output = conv(img.unsqueeze(0))
print(output[0, 0, :2, :4])
conv = nn.Conv2d(3, 1, kernel_size=3, padding=1)
with torch.no_grad():
    conv.weight[:] = torch.tensor([[-1.0, 0.0, 1.0],
                                   [-1.0, 0.0, 1.0],
                                   [-1.0, 0.0, 1.0]])
    conv.bias.zero_()
pool = nn.MaxPool2d(2)
output = pool(img.unsqueeze(0))
print(img.unsqueeze(0).shape, output.shape)

model = nn.Sequential(
    nn.Conv2d(3, 16, kernel_size=3, padding=1),
    nn.Tanh(),
    nn.MaxPool2d(2),
    nn.Conv2d(16, 8, kernel_size=3, padding=1),
    nn.Tanh(),
    nn.MaxPool2d(2),
    # ...
)
numel_list = [p.numel() for p in model.parameters()]
print(sum(numel_list), numel_list)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(16, 8, kernel_size=3, padding=1)
        self.fc1 = nn.Linear(8 * 8 * 8, 32)
        self.fc2 = nn.Linear(32, 2)

    def forward(self, x):
        out = F.max_pool2d(torch.tanh(self.conv1(x)), 2)
        out = F.max_pool2d(torch.tanh(self.conv2(out)), 2)
        out = out.view(-1, 8 * 8 * 8)
        out = torch.tanh(self.fc1(out))
        out = self.fc2(out)
        return out


model = Net()
numel_list = [p.numel() for p in model.parameters()]
print(sum(numel_list), numel_list)
print(model(img.unsqueeze(0)))

device = (torch.device('cuda') if torch.cuda.is_available() else torch.device('cpu'))
print(f"Training on device {device}.")


def training_loop(n_epochs, optimizer, model, loss_fn, train_loader, l2_lambda=0.0):
    for epoch in range(1, n_epochs + 1):
        loss_train = 0.0
        for imgs, labels in train_loader:
            imgs = imgs.to(device=device)
            labels = labels.to(device=device)
            outputs = model(imgs)
            loss = loss_fn(outputs, labels)
            if l2_lambda:
                l2_norm = sum(p.pow(2.0).sum() for p in model.parameters())  # <1>
                loss = loss + l2_lambda * l2_norm
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            loss_train += loss.item()
        if epoch == 1 or epoch % 5 == 0:
            print('{} Epoch {}, Training loss {}'.format(
                datetime.datetime.now() is not None, epoch, round(loss_train / len(train_loader), 3)))


train_loader = torch.utils.data.DataLoader(cifar2, batch_size=16, shuffle=True)
model = Net().to(device=device)
optimizer = optim.SGD(model.parameters(), lr=1e-1, momentum=0.9)
loss_fn = nn.CrossEntropyLoss()
training_loop(n_epochs=5, optimizer=optimizer, model=model, loss_fn=loss_fn,
              train_loader=train_loader)

train_loader = torch.utils.data.DataLoader(cifar2, batch_size=64, shuffle=False)
val_loader = torch.utils.data.DataLoader(cifar2_val, batch_size=64, shuffle=False)


def validate(model, train_loader, val_loader):
    accdict = {}
    for name, loader in [("train", train_loader), ("val", val_loader)]:
        correct = 0
        total = 0
        with torch.no_grad():
            for imgs, labels in loader:
                imgs = imgs.to(device=device)
                labels = labels.to(device=device)
                outputs = model(imgs)
                _, predicted = torch.max(outputs, dim=1)  # <1>
                total += labels.shape[0]
                correct += int((predicted == labels).sum())
        print("Accuracy {}: {:.2f}".format(name, correct / total))
        accdict[name] = correct / total
    return accdict


all_acc_dict = {"baseline": validate(model, train_loader, val_loader)}
assert all_acc_dict["baseline"]["val"] > 0.8
torch.save(model.state_dict(), 'birds_vs_airplanes.pt')
loaded_model = Net().to(device=device)
loaded_model.load_state_dict(torch.load('birds_vs_airplanes.pt', map_location=device))
assert torch.equal(loaded_model(img.unsqueeze(0)), model(img.unsqueeze(0)))

train_loader = torch.utils.data.DataLoader(cifar2, batch_size=16, shuffle=True)
model = Net().to(device=device)
optimizer = optim.SGD(model.parameters(), lr=1e-1, momentum=0.9)
training_loop(n_epochs=2, optimizer=optimizer, model=model, loss_fn=loss_fn,
              train_loader=train_loader, l2_lambda=0.001)


class NetDropout(nn.Module):
    def __init__(self, n_chans1=32):
        super().__init__()
        self.n_chans1 = n_chans1
        self.conv1 = nn.Conv2d(3, n_chans1, kernel_size=3, padding=1)
        self.conv1_dropout = nn.Dropout2d(p=0.4)
        self.conv2 = nn.Conv2d(n_chans1, n_chans1 // 2, kernel_size=3, padding=1)
        self.conv2_dropout = nn.Dropout2d(p=0.4)
        self.fc1 = nn.Linear(8 * 8 * n_chans1 // 2, 32)
        self.fc2 = nn.Linear(32, 2)

    def forward(self, x):
        out = F.max_pool2d(torch.tanh(self.conv1(x)), 2)
        out = self.conv1_dropout(out)
        out = F.max_pool2d(torch.tanh(self.conv2(out)), 2)
        out = self.conv2_dropout(out)
        out = out.view(-1, 8 * 8 * self.n_chans1 // 2)
        out = torch.tanh(self.fc1(out))
        out = self.fc2(out)
        return out


class NetBatchNorm(nn.Module):
    def __init__(self, n_chans1=32):
        super().__init__()
        self.n_chans1 = n_chans1
        self.conv1 = nn.Conv2d(3, n_chans1, kernel_size=3, padding=1)
        self.conv1_batchnorm = nn.BatchNorm2d(num_features=n_chans1)
        self.conv2 = nn.Conv2d(n_chans1, n_chans1 // 2, kernel_size=3, padding=1)
        self.conv2_batchnorm = nn.BatchNorm2d(num_features=n_chans1 // 2)
        self.fc1 = nn.Linear(8 * 8 * n_chans1 // 2, 32)
        self.fc2 = nn.Linear(32, 2)

    def forward(self, x):
        out = self.conv1_batchnorm(self.conv1(x))
        out = F.max_pool2d(torch.tanh(out), 2)
        out = self.conv2_batchnorm(self.conv2(out))
        out = F.max_pool2d(torch.tanh(out), 2)
        out = out.view(-1, 8 * 8 * self.n_chans1 // 2)
        out = torch.tanh(self.fc1(out))
        out = self.fc2(out)
        return out


class ResBlock(nn.Module):
    def __init__(self, n_chans):
        super(ResBlock, self).__init__()
        self.conv = nn.Conv2d(n_chans, n_chans, kernel_size=3, padding=1, bias=False)  # <1>
        self.batch_norm = nn.BatchNorm2d(num_features=n_chans)
        torch.nn.init.kaiming_normal_(self.conv.weight, nonlinearity='relu')  # <2>
        torch.nn.init.constant_(self.batch_norm.weight, 0.5)
        torch.nn.init.zeros_(self.batch_norm.bias)

    def forward(self, x):
        out = self.conv(x)
        out = self.batch_norm(out)
        out = torch.relu(out)
        return out + x


class NetResDeep(nn.Module):
    def __init__(self, n_chans1=32, n_blocks=10):
        super().__init__()
        self.n_chans1 = n_chans1
        self.conv1 = nn.Conv2d(3, n_chans1, kernel_size=3, padding=1)
        self.resblocks = nn.Sequential(*(n_blocks * [ResBlock(n_chans=n_chans1)]))
        self.fc1 = nn.Linear(8 * 8 * n_chans1, 32)
        self.fc2 = nn.Linear(32, 2)

    def forward(self, x):
        out = F.max_pool2d(torch.relu(self.conv1(x)), 2)
        out = self.resblocks(out)
        out = F.max_pool2d(out, 2)
        out = out.view(-1, 8 * 8 * self.n_chans1)
        out = torch.relu(self.fc1(out))
        out = self.fc2(out)
        return out


for model_cls, kw in ((NetDropout, dict(n_chans1=8)), (NetBatchNorm, dict(n_chans1=8)),
                      (NetResDeep, dict(n_chans1=8, n_blocks=3))):
    torch.manual_seed(0)
    model = model_cls(**kw).to(device=device)
    optimizer = optim.SGD(model.parameters(), lr=3e-2, momentum=0.9)
    training_loop(n_epochs=3, optimizer=optimizer, model=model, loss_fn=loss_fn,
                  train_loader=train_loader)
    model.eval()
    acc = validate(model, train_loader, val_loader)
    print(model_cls.__name__, sum(p.numel() for p in model.parameters()))
res = NetResDeep(n_chans1=8, n_blocks=4)
assert res.resblocks[0] is res.resblocks[3]  # the same block repeated: weights shared
print(len(list(res.parameters())), len(res.state_dict()))
