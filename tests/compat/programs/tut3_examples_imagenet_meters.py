"""pytorch/examples imagenet/main.py at toy size, with generated 'dummy' images (the example's
--dummy mode uses torchvision's FakeData) and a small CNN in place of a torchvision arch: the
Summary enum, AverageMeter(name, fmt, summary_type) with __str__ / summary() formatting 0-d
tensors ('{val:6.2f}'), ProgressMeter and its '[{:2d}/10]' batch format, accuracy(output, target,
topk=(1, 5)) with output.topk(maxk, 1, True, True), pred.t(), pred.eq(target.view(1, -1)
.expand_as(pred)) and correct[:k].reshape(-1).float().sum(0, keepdim=True).mul_(100.0 /
batch_size); train / validate (run_validate under torch.no_grad()), SGD with momentum and weight
decay, StepLR, best_acc1 = max(acc1, best_acc1) on tensors, and save_checkpoint with
shutil.copyfile to model_best.pth.tar, resumed with torch.load(..., map_location=...)."""
import os
import shutil
import tempfile
import time
from enum import Enum

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.lr_scheduler import StepLR


class Summary(Enum):
    NONE = 0
    AVERAGE = 1
    SUM = 2
    COUNT = 3


class AverageMeter(object):
    """Computes and stores the average and current value"""
    def __init__(self, name, fmt=':f', summary_type=Summary.AVERAGE):
        self.name = name
        self.fmt = fmt
        self.summary_type = summary_type
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count

    def __str__(self):
        fmtstr = '{name} {val' + self.fmt + '} ({avg' + self.fmt + '})'
        return fmtstr.format(**self.__dict__)

    def summary(self):
        fmtstr = ''
        if self.summary_type is Summary.NONE:
            fmtstr = ''
        elif self.summary_type is Summary.AVERAGE:
            fmtstr = '{name} {avg:.3f}'
        elif self.summary_type is Summary.SUM:
            fmtstr = '{name} {sum:.3f}'
        elif self.summary_type is Summary.COUNT:
            fmtstr = '{name} {count:.3f}'
        else:
            raise ValueError('invalid summary type %r' % self.summary_type)

        return fmtstr.format(**self.__dict__)


class ProgressMeter(object):
    def __init__(self, num_batches, meters, prefix=""):
        self.batch_fmtstr = self._get_batch_fmtstr(num_batches)
        self.meters = meters
        self.prefix = prefix

    def display(self, batch):
        entries = [self.prefix + self.batch_fmtstr.format(batch)]
        entries += [str(meter) for meter in self.meters]
        print('\t'.join(entries))
        return '\t'.join(entries)

    def display_summary(self):
        entries = [" *"]
        entries += [meter.summary() for meter in self.meters]
        print(' '.join(entries))
        return ' '.join(entries)

    def _get_batch_fmtstr(self, num_batches):
        num_digits = len(str(num_batches // 1))
        fmt = '{:' + str(num_digits) + 'd}'
        return '[' + fmt + '/' + fmt.format(num_batches) + ']'


def accuracy(output, target, topk=(1,)):
    """Computes the accuracy over the k top predictions for the specified values of k"""
    with torch.no_grad():
        maxk = max(topk)
        batch_size = target.size(0)

        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))

        res = []
        for k in topk:
            correct_k = correct[:k].reshape(-1).float().sum(0, keepdim=True)
            res.append(correct_k.mul_(100.0 / batch_size))
        return res


class Args:
    print_freq = 4
    lr = 0.05
    momentum = 0.9
    weight_decay = 1e-4
    epochs = 3
    arch = "tinycnn"


args = Args()
lines = []


def train(train_loader, model, criterion, optimizer, epoch, device, args):
    batch_time = AverageMeter('Time', ':6.3f')
    data_time = AverageMeter('Data', ':6.3f')
    losses = AverageMeter('Loss', ':.4e')
    top1 = AverageMeter('Acc@1', ':6.2f')
    top5 = AverageMeter('Acc@5', ':6.2f')
    progress = ProgressMeter(
        len(train_loader),
        [batch_time, data_time, losses, top1, top5],
        prefix="Epoch: [{}]".format(epoch))

    # switch to train mode
    model.train()

    end = time.time()
    for i, (images, target) in enumerate(train_loader):
        # measure data loading time
        data_time.update(time.time() - end)

        # move data to the same device as model
        images = images.to(device, non_blocking=True)
        target = target.to(device, non_blocking=True)

        # compute output
        output = model(images)
        loss = criterion(output, target)

        # measure accuracy and record loss
        acc1, acc5 = accuracy(output, target, topk=(1, 5))
        losses.update(loss.item(), images.size(0))
        top1.update(acc1[0], images.size(0))
        top5.update(acc5[0], images.size(0))

        # compute gradient and do SGD step
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        # measure elapsed time
        batch_time.update(time.time() - end)
        end = time.time()

        if i % args.print_freq == 0:
            lines.append(progress.display(i + 1))


def validate(val_loader, model, criterion, args):

    def run_validate(loader, base_progress=0):
        with torch.no_grad():
            end = time.time()
            for i, (images, target) in enumerate(loader):
                i = base_progress + i
                images = images.to(device, non_blocking=True)
                target = target.to(device, non_blocking=True)

                # compute output
                output = model(images)
                loss = criterion(output, target)

                # measure accuracy and record loss
                acc1, acc5 = accuracy(output, target, topk=(1, 5))
                losses.update(loss.item(), images.size(0))
                top1.update(acc1[0], images.size(0))
                top5.update(acc5[0], images.size(0))

                # measure elapsed time
                batch_time.update(time.time() - end)
                end = time.time()

                if i % args.print_freq == 0:
                    progress.display(i + 1)

    batch_time = AverageMeter('Time', ':6.3f', Summary.NONE)
    losses = AverageMeter('Loss', ':.4e', Summary.NONE)
    top1 = AverageMeter('Acc@1', ':6.2f', Summary.AVERAGE)
    top5 = AverageMeter('Acc@5', ':6.2f', Summary.AVERAGE)
    progress = ProgressMeter(
        len(val_loader),
        [batch_time, losses, top1, top5],
        prefix='Test: ')

    # switch to evaluate mode
    model.eval()

    run_validate(val_loader)

    lines.append(progress.display_summary())

    return top1.avg


def save_checkpoint(state, is_best, filename='checkpoint.pth.tar'):
    torch.save(state, filename)
    if is_best:
        shutil.copyfile(filename, 'model_best.pth.tar')


# accuracy on a hand-made case: target 2 is first for row 0, third for row 1, absent for row 2
out = torch.tensor([[0.1, 0.2, 0.9, 0.0, 0.0, 0.0],
                    [0.5, 0.4, 0.3, 0.2, 0.1, 0.0],
                    [0.0, 0.1, 0.0, 0.2, 0.3, 0.9]])
acc1, acc3 = accuracy(out, torch.tensor([2, 2, 2]), topk=(1, 3))
assert acc1.shape == (1,) and abs(acc1.item() - 100 / 3) < 1e-4 and abs(acc3.item() - 200 / 3) < 1e-4

meter = AverageMeter('Acc@1', ':6.2f')
meter.update(torch.tensor(50.0), 2)
meter.update(torch.tensor(80.0), 2)
assert str(meter) == 'Acc@1  80.00 ( 65.00)' and meter.summary() == 'Acc@1 65.000'
assert ProgressMeter(10, [])._get_batch_fmtstr(10) == '[{:2d}/10]'
assert AverageMeter('n', summary_type=Summary.COUNT).summary() == 'n 0.000'

device = torch.device("cpu")
torch.manual_seed(0)


def make_split(n):
    target = torch.randint(0, 10, (n,))
    images = torch.randn(n, 3, 16, 16) * 0.5
    for i, c in enumerate(target.tolist()):
        images[i, c % 3, (c // 3) * 4:(c // 3) * 4 + 4] += 2.0
    return torch.utils.data.TensorDataset(images, target)


train_loader = torch.utils.data.DataLoader(make_split(256), batch_size=32, shuffle=True)
val_loader = torch.utils.data.DataLoader(make_split(96), batch_size=32, shuffle=False)

model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2),
                      nn.Flatten(), nn.Linear(128, 10)).to(device)
criterion = nn.CrossEntropyLoss().to(device)
optimizer = torch.optim.SGD(model.parameters(), args.lr,
                            momentum=args.momentum,
                            weight_decay=args.weight_decay)
# Sets the learning rate to the initial LR decayed by 10 every 30 epochs
scheduler = StepLR(optimizer, step_size=30, gamma=0.1)

workdir = tempfile.TemporaryDirectory()
cwd = os.getcwd()
os.chdir(workdir.name)
try:
    best_acc1 = 0
    history = []
    for epoch in range(0, args.epochs):
        # train for one epoch
        train(train_loader, model, criterion, optimizer, epoch, device, args)

        # evaluate on validation set
        acc1 = validate(val_loader, model, criterion, args)
        history.append(float(acc1))

        scheduler.step()

        # remember best acc@1 and save checkpoint
        is_best = acc1 > best_acc1
        best_acc1 = max(acc1, best_acc1)

        save_checkpoint({
            'epoch': epoch + 1,
            'arch': args.arch,
            'state_dict': model.state_dict(),
            'best_acc1': best_acc1,
            'optimizer' : optimizer.state_dict(),
            'scheduler' : scheduler.state_dict()
        }, is_best)

    # resume, as main_worker does with --resume
    loc = 'cpu'
    checkpoint = torch.load('model_best.pth.tar', map_location=loc)
    assert os.path.exists('checkpoint.pth.tar')
finally:
    os.chdir(cwd)
    workdir.cleanup()

print(history)
assert history[-1] > history[0] and max(history) > 60
assert isinstance(best_acc1, torch.Tensor) and best_acc1.item() == max(history)
assert checkpoint['arch'] == 'tinycnn' and isinstance(checkpoint['best_acc1'], torch.Tensor)
assert abs(checkpoint['best_acc1'].item() - max(history)) < 1e-4
resumed = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2),
                        nn.Flatten(), nn.Linear(128, 10))
resumed.load_state_dict(checkpoint['state_dict'])
opt2 = torch.optim.SGD(resumed.parameters(), 0.1, momentum=0.9, weight_decay=1e-4)
opt2.load_state_dict(checkpoint['optimizer'])
sched2 = StepLR(opt2, step_size=30, gamma=0.1)
sched2.load_state_dict(checkpoint['scheduler'])
assert sched2.last_epoch == checkpoint['epoch'] and opt2.param_groups[0]['lr'] == args.lr
assert lines[0].startswith("Epoch: [0][1/8]\tTime") and "Acc@5" in lines[0]
assert lines[-1].split()[:2] == ["*", "Acc@1"] and "Loss" not in lines[-1]
