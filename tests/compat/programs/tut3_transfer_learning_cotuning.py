"""PyTorch tutorial "Transfer Learning for Computer Vision" (beginner_source/
transfer_learning_tutorial.py) with a tiny ResNet (conv1/bn1/relu/maxpool/layer1/avgpool/fc,
"pretrained" for a few steps on a 5-class source task) instead of torchvision's resnet18, and
generated 16x16 "ants vs bees" images instead of the hymenoptera folder: train_model with its
train/val phases, torch.set_grad_enabled(phase == 'train'), torch.max(outputs, 1),
running_corrects += torch.sum(preds == labels.data), running_corrects.double() /
dataset_sizes[phase], scheduler.step() per epoch and the best weights kept with
copy.deepcopy(model.state_dict()); the fixed feature extractor (param.requires_grad = False,
model_conv.fc = nn.Linear(num_ftrs, 2), SGD over model_conv.fc.parameters()), finetuning with two
parameter groups chosen by 'fc' in name, and the Co-Tuning variant (CoTuningHead returning
(old_output, new_output), CoTuningLoss.fit building the relationship with torch.stack of
per-class torch.mean(old_prob[new_labels == i], dim=0), self.relationship[target])."""
import copy
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim import lr_scheduler


class BasicBlock(nn.Module):
    def __init__(self, planes):
        super().__init__()
        self.conv1 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity
        return self.relu(out)


class TinyResNet(nn.Module):
    """resnet18's layout at toy size: the tutorial only touches .fc and the parameters."""

    def __init__(self, num_classes=5):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = BasicBlock(8)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(8, num_classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer1(x)
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


def make_images(n, num_classes, generator):
    """Class k: a colour blob in channel k % 3 at quadrant k // 3, on noise."""
    labels = torch.randint(0, num_classes, (n,), generator=generator)
    x = torch.rand(n, 3, 16, 16, generator=generator) * 0.5
    for i, k in enumerate(labels.tolist()):
        r, c = 8 * ((k // 3) % 2), 8 * ((k // 3) // 2)
        x[i, k % 3, r:r + 8, c:c + 8] += 1.0
    mean = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)
    return (x - mean) / std, labels


g = torch.Generator().manual_seed(0)
torch.manual_seed(0)


def pretrained_resnet():
    """Stands in for models.resnet18(weights='IMAGENET1K_V1'): the same 'pretrained' net each
    call."""
    torch.manual_seed(1)
    net = TinyResNet(num_classes=5)
    src_x, src_y = make_images(128, 5, torch.Generator().manual_seed(1))
    opt = optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    for _ in range(15):
        opt.zero_grad()
        F.cross_entropy(net(src_x), src_y).backward()
        opt.step()
    opt.zero_grad()
    return net


image_datasets = {}
for x, n in (('train', 64), ('val', 32)):
    images, labels = make_images(n, 2, g)
    image_datasets[x] = torch.utils.data.TensorDataset(images, labels)
dataloaders = {x: torch.utils.data.DataLoader(image_datasets[x], batch_size=16,
                                              shuffle=(x == 'train'))
               for x in ['train', 'val']}
dataset_sizes = {x: len(image_datasets[x]) for x in ['train', 'val']}
class_names = ['ants', 'bees']

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")

inputs, classes = next(iter(dataloaders['train']))
print([class_names[x] for x in classes[:4]])
assert inputs.shape == (16, 3, 16, 16)


def train_model(model, criterion, optimizer, scheduler, num_epochs=25):
    since = time.time()

    best_model_wts = copy.deepcopy(model.state_dict())
    best_acc = 0.0

    for epoch in range(num_epochs):
        print('Epoch {}/{}'.format(epoch, num_epochs - 1))
        print('-' * 10)

        # Each epoch has a training and validation phase
        for phase in ['train', 'val']:
            if phase == 'train':
                model.train()  # Set model to training mode
            else:
                model.eval()   # Set model to evaluate mode

            running_loss = 0.0
            running_corrects = 0

            # Iterate over data.
            for inputs, labels in dataloaders[phase]:
                inputs = inputs.to(device)
                labels = labels.to(device)

                # zero the parameter gradients
                optimizer.zero_grad()

                # forward
                # compute gradients if only in train
                with torch.set_grad_enabled(phase == 'train'):
                    outputs = model(inputs)
                    target_outputs = outputs[1] if isinstance(outputs, tuple) else outputs
                    _, preds = torch.max(target_outputs, 1)
                    loss = criterion(outputs, labels)

                    # backward + optimize only if in training phase
                    if phase == 'train':
                        loss.backward()
                        optimizer.step()
                    else:
                        assert not loss.requires_grad

                # statistics
                running_loss += loss.item() * inputs.size(0)
                running_corrects += torch.sum(preds == labels.data)
            if phase == 'train':
                scheduler.step()

            epoch_loss = running_loss / dataset_sizes[phase]
            epoch_acc = running_corrects.double() / dataset_sizes[phase]
            assert epoch_acc.dtype == torch.float64

            print('{} Loss: {:.4f} Acc: {:.4f}'.format(
                phase, epoch_loss, epoch_acc))

            # deep copy the model
            if phase == 'val' and epoch_acc > best_acc:
                best_acc = epoch_acc
                best_model_wts = copy.deepcopy(model.state_dict())

        print()

    time_elapsed = time.time() - since
    print('Training complete in {:.0f}m {:.0f}s'.format(
        time_elapsed // 60, time_elapsed % 60))
    print('Best val Acc: {:4f}'.format(best_acc))

    # load best model weights
    model.load_state_dict(best_model_wts)
    model.best_acc = float(best_acc)
    return model


# 1. ConvNet as fixed feature extractor
model_conv = pretrained_resnet()
for param in model_conv.parameters():
    param.requires_grad = False
frozen = copy.deepcopy(model_conv.layer1.state_dict())

# Parameters of newly constructed modules have requires_grad=True by default
num_ftrs = model_conv.fc.in_features
model_conv.fc = nn.Linear(num_ftrs, len(class_names))

model_conv = model_conv.to(device)

criterion = nn.CrossEntropyLoss()

# Observe that only parameters of final layer are being optimized as
# opposed to before.
optimizer_conv = optim.SGD(model_conv.fc.parameters(), lr=0.01, momentum=0.9)

# Decay LR by a factor of 0.1 every 7 epochs
exp_lr_scheduler = lr_scheduler.StepLR(optimizer_conv, step_size=7, gamma=0.1)

model_conv = train_model(model_conv, criterion, optimizer_conv,
                         exp_lr_scheduler, num_epochs=4)
# the frozen weights did not move (batch-norm running stats did: train() mode updates them)
for k, v in model_conv.layer1.state_dict().items():
    if "running" not in k and "num_batches" not in k:
        assert torch.equal(v, frozen[k]), k
assert model_conv.layer1.conv1.weight.grad is None
assert model_conv.best_acc >= 0.75

# Finetuning the convnet
model_ft = pretrained_resnet()
num_ftrs = model_ft.fc.in_features
model_ft.fc = nn.Linear(num_ftrs, len(class_names))

model_ft = model_ft.to(device)

criterion = nn.CrossEntropyLoss()

params = [{"params": [p for name, p in model_ft.named_parameters() if 'fc' in name], "lr": 1e-2},
          {"params": [p for name, p in model_ft.named_parameters() if 'fc' not in name], "lr": 1e-3}]
assert len(params[0]["params"]) == 2 and len(params[1]["params"]) == 9

# Observe that all parameters are being optimized
optimizer_ft = optim.SGD(params, momentum=0.9)

# Decay LR by a factor of 0.1 every 7 epochs
exp_lr_scheduler = lr_scheduler.StepLR(optimizer_ft, step_size=2, gamma=0.1)

model_ft = train_model(model_ft, criterion, optimizer_ft, exp_lr_scheduler,
                       num_epochs=4)
assert all(abs(g["lr"] - lr * 0.01) < 1e-12 for g, lr in zip(optimizer_ft.param_groups, (1e-2, 1e-3)))
assert model_ft.best_acc >= 0.75


class CoTuningHead(nn.Module):
    """
    Implements the Co-Tuning algorithm as described in the NeurIPS 2020 paper `Co-Tuning for
    Transfer Learning`.
    """
    def __init__(self, old_head: nn.Linear, num_class: int):
        super(CoTuningHead, self).__init__()
        self.old_head = old_head
        self.new_head = nn.Linear(old_head.in_features, num_class)

    def forward(self, features):
        old_output = self.old_head(features)
        new_output = self.new_head(features)
        return old_output, new_output

    def deploy(self):
        """
        When training finishes, convert the CoTuningHead to an ordinary Linear layer
        """
        return copy.deepcopy(self.new_head)


class CoTuningLoss(nn.Module):
    def __init__(self, trade_off: float):
        super().__init__()
        self.trade_off = trade_off
        self.fitted = False
        self.relationship = torch.Tensor([0, 0, 0]) # placeholder

    def to(self, device):
        self.relationship = self.relationship.to(device=device)
        return self

    def fit(self, old_logits: torch.Tensor, new_labels: torch.Tensor):
        Ct = new_labels.max().item() + 1
        old_prob = F.softmax(old_logits, dim=-1)
        self.relationship = torch.stack([torch.mean(old_prob[new_labels == i], dim=0) for i in range(Ct)])
        self.fitted = True

    def forward(self, inputs, target):
        if not self.fitted:
            raise Exception("please call fit() first!")
        old_output, new_output = inputs
        target_loss = F.cross_entropy(new_output, target)
        old_softlabel = self.relationship[target]
        cotuning_loss = - (F.log_softmax(old_output, dim=-1) * old_softlabel).sum(dim=-1).mean(dim=0)
        return target_loss + self.trade_off * cotuning_loss


model_ct = pretrained_resnet().to(device)
criterion = CoTuningLoss(trade_off = 2.3)
try:
    criterion((torch.zeros(1, 5), torch.zeros(1, 2)), torch.zeros(1, dtype=torch.long))
except Exception as e:
    assert "fit() first" in str(e)

with torch.no_grad():
    was_training = model_ct.training
    model_ct.eval()
    old_logits = []
    new_labels = []
    for i, (inputs, labels) in enumerate(dataloaders['train']):
        inputs = inputs.to(device)
        labels = labels.to(device)

        outputs = model_ct(inputs)
        target_outputs = outputs[1] if isinstance(outputs, tuple) else outputs
        old_logits.append(target_outputs.cpu())
        new_labels.append(labels.cpu())
    old_logits = torch.cat(old_logits)
    new_labels = torch.cat(new_labels)
    criterion.fit(old_logits, new_labels)
    model_ct.train(mode=was_training)

assert criterion.relationship.shape == (2, 5)
assert torch.allclose(criterion.relationship.sum(1), torch.ones(2))
assert torch.allclose(criterion.relationship[1],
                      F.softmax(old_logits[new_labels == 1], dim=-1).mean(0))

model_ct.fc = CoTuningHead(model_ct.fc, len(class_names))

model_ct = model_ct.to(device)
criterion = criterion.to(device)

params = [{"params": [p for name, p in model_ct.named_parameters() if 'new' in name], "lr": 1e-2},
          {"params": [p for name, p in model_ct.named_parameters() if 'new' not in name], "lr": 1e-3}]

# Observe that all parameters are being optimized
optimizer_ct = optim.SGD(params, momentum=0.9)

# Decay LR by a factor of 0.1 every 7 epochs
exp_lr_scheduler = lr_scheduler.StepLR(optimizer_ct, step_size=7, gamma=0.1)

model_ct = train_model(model_ct, criterion, optimizer_ct, exp_lr_scheduler,
                       num_epochs=4)
assert model_ct.best_acc >= 0.75
deployed = model_ct.fc.deploy()
assert isinstance(deployed, nn.Linear) and deployed is not model_ct.fc.new_head
assert torch.equal(deployed.weight, model_ct.fc.new_head.weight)
