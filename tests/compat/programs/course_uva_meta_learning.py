"""UvA Deep Learning tutorial 16 ("Meta-Learning - Learning to Learn", Phillip Lippe), at toy size
on synthetic 3x8x8 images of 30 classes (CIFAR100, torchvision's DenseNet, PIL and PyTorch
Lightning left out: a small conv net stands in for get_convnet, and plain loops call the
LightningModule methods; self.log becomes a dict): the class split by torch.randperm,
dataset_from_labels ((targets[:,None] == class_set[None,:]).any(dim=-1) as a mask on the
images), FewShotBatchSampler as a DataLoader batch_sampler (torch.unique(...).tolist(),
torch.where(targets == c)[0], index lists extended with tensor slices, np.argsort ordering,
index_batch[::2] + index_batch[1::2]), split_batch by chunk(2, dim=0), ProtoNet
(calculate_prototypes with torch.unique(targets).sort(), classify_feats with torch.pow of a
broadcast difference, F.log_softmax(-dist), labels from (classes[None, :] == targets[:, None])
.long().argmax(dim=-1)), AdamW + MultiStepLR, test_proto_net under @torch.no_grad() (features
sorted and reshaped per class, statistics.mean/stdev), ProtoMAML (deepcopy of the model, an inner
SGD loop, output layer initialised from the prototypes and updated with copy_ under no_grad,
grad.fill_(0), the (w - w0).detach() + w0 trick, the first-order update p_global.grad +=
p_local.grad), TaskBatchSampler with its collate_fn chunking the batch into tasks, and
test_protomaml with torch.cat of accuracies and item assignment at the support indices."""
import random
from collections import defaultdict
from copy import deepcopy
from statistics import mean, stdev

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
import torch.utils.data as data

device = torch.device("cuda:0") if torch.cuda.is_available() else torch.device("cpu")
random.seed(42)
np.random.seed(42)
torch.manual_seed(42)


class ImageDataset(data.Dataset):
    def __init__(self, imgs, targets, img_transform=None):
        super().__init__()
        self.img_transform = img_transform
        self.imgs = imgs
        self.targets = targets

    def __getitem__(self, idx):
        img, target = self.imgs[idx], self.targets[idx]
        if self.img_transform is not None:
            img = self.img_transform(img)
        return img, target

    def __len__(self):
        return self.imgs.shape[0]


# synthetic "CIFAR": 30 classes, 24 images each, a class is a random 3x8x8 pattern plus noise
g = torch.Generator().manual_seed(0)
patterns = torch.randn(30, 3, 8, 8, generator=g)
ALL_targets = torch.arange(30).repeat_interleave(24)
ALL_images = patterns[ALL_targets] + 0.8 * torch.randn(len(ALL_targets), 3, 8, 8, generator=g)

torch.manual_seed(0)           # Set seed for reproducibility
classes = torch.randperm(30)   # Returns random permutation of numbers 0 to 29
train_classes, val_classes, test_classes = classes[:20], classes[20:25], classes[25:]


def dataset_from_labels(imgs, targets, class_set, **kwargs):
    class_mask = (targets[:, None] == class_set[None, :]).any(dim=-1)
    return ImageDataset(imgs=imgs[class_mask],
                        targets=targets[class_mask],
                        **kwargs)


train_set = dataset_from_labels(ALL_images, ALL_targets, train_classes)
val_set = dataset_from_labels(ALL_images, ALL_targets, val_classes)
test_set = dataset_from_labels(ALL_images, ALL_targets, test_classes)
assert len(train_set) == 480 and len(test_set) == 120
assert sorted(test_set.targets.unique().tolist()) == sorted(test_classes.tolist())


class FewShotBatchSampler(object):
    def __init__(self, dataset_targets, N_way, K_shot, include_query=False, shuffle=True, shuffle_once=False):
        super().__init__()
        self.dataset_targets = dataset_targets
        self.N_way = N_way
        self.K_shot = K_shot
        self.shuffle = shuffle
        self.include_query = include_query
        if self.include_query:
            self.K_shot *= 2
        self.batch_size = self.N_way * self.K_shot  # Number of overall images per batch
        self.classes = torch.unique(self.dataset_targets).tolist()
        self.num_classes = len(self.classes)
        self.indices_per_class = {}
        self.batches_per_class = {}  # Number of K-shot batches that each class can provide
        for c in self.classes:
            self.indices_per_class[c] = torch.where(self.dataset_targets == c)[0]
            self.batches_per_class[c] = self.indices_per_class[c].shape[0] // self.K_shot
        self.iterations = sum(self.batches_per_class.values()) // self.N_way
        self.class_list = [c for c in self.classes for _ in range(self.batches_per_class[c])]
        if shuffle_once or self.shuffle:
            self.shuffle_data()
        else:
            sort_idxs = [i+p*self.num_classes for i,
                         c in enumerate(self.classes) for p in range(self.batches_per_class[c])]
            self.class_list = np.array(self.class_list)[np.argsort(sort_idxs)].tolist()

    def shuffle_data(self):
        for c in self.classes:
            perm = torch.randperm(self.indices_per_class[c].shape[0])
            self.indices_per_class[c] = self.indices_per_class[c][perm]
        random.shuffle(self.class_list)

    def __iter__(self):
        if self.shuffle:
            self.shuffle_data()
        start_index = defaultdict(int)
        for it in range(self.iterations):
            class_batch = self.class_list[it*self.N_way:(it+1)*self.N_way]  # Select N classes for the batch
            index_batch = []
            for c in class_batch:  # For each class, select the next K examples and add them to the batch
                index_batch.extend(self.indices_per_class[c][start_index[c]:start_index[c]+self.K_shot])
                start_index[c] += self.K_shot
            if self.include_query:  # If we return support+query set, sort them so that they are easy to split
                index_batch = index_batch[::2] + index_batch[1::2]
            yield index_batch

    def __len__(self):
        return self.iterations


N_WAY = 5
K_SHOT = 4
train_data_loader = data.DataLoader(train_set,
                                    batch_sampler=FewShotBatchSampler(train_set.targets,
                                                                      include_query=True,
                                                                      N_way=N_WAY,
                                                                      K_shot=K_SHOT,
                                                                      shuffle=True),
                                    num_workers=0)
val_data_loader = data.DataLoader(val_set,
                                  batch_sampler=FewShotBatchSampler(val_set.targets,
                                                                    include_query=True,
                                                                    N_way=N_WAY,
                                                                    K_shot=K_SHOT,
                                                                    shuffle=False,
                                                                    shuffle_once=True),
                                  num_workers=0)
assert len(train_data_loader) == 20 * 3 // 5 and len(val_data_loader) == 3


def split_batch(imgs, targets):
    support_imgs, query_imgs = imgs.chunk(2, dim=0)
    support_targets, query_targets = targets.chunk(2, dim=0)
    return support_imgs, query_imgs, support_targets, query_targets


imgs, targets = next(iter(val_data_loader))
support_imgs, query_imgs, support_targets, query_targets = split_batch(imgs, targets)
assert imgs.shape == (40, 3, 8, 8) and support_imgs.shape == (20, 3, 8, 8)
assert torch.equal(support_targets, query_targets)            # the same classes, in the same order
assert 1 < len(set(support_targets.tolist())) <= N_WAY   # a class may be drawn twice


def get_convnet(output_size):   # in place of torchvision.models.DenseNet(...)
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.Linear(32, output_size))


class ProtoNet(nn.Module):
    def __init__(self, proto_dim, lr):
        super().__init__()
        self.hparams = dict(proto_dim=proto_dim, lr=lr)
        self.model = get_convnet(output_size=self.hparams["proto_dim"])
        self.logged = defaultdict(list)

    def log(self, name, value): self.logged[name].append(value.item())

    def configure_optimizers(self):
        optimizer = optim.AdamW(self.parameters(), lr=self.hparams["lr"])
        scheduler = optim.lr_scheduler.MultiStepLR(
            optimizer, milestones=[140, 180], gamma=0.1)
        return [optimizer], [scheduler]

    @staticmethod
    def calculate_prototypes(features, targets):
        # Given a stack of features vectors and labels, return class prototypes
        classes, _ = torch.unique(targets).sort()  # Determine which classes we have
        prototypes = []
        for c in classes:
            p = features[torch.where(targets == c)[0]].mean(dim=0)  # Average class feature vectors
            prototypes.append(p)
        prototypes = torch.stack(prototypes, dim=0)
        return prototypes, classes

    def classify_feats(self, prototypes, classes, feats, targets):
        dist = torch.pow(prototypes[None, :] - feats[:, None], 2).sum(dim=2)  # Squared euclidean distance
        preds = F.log_softmax(-dist, dim=1)
        labels = (classes[None, :] == targets[:, None]).long().argmax(dim=-1)
        acc = (preds.argmax(dim=1) == labels).float().mean()
        return preds, labels, acc

    def calculate_loss(self, batch, mode):
        imgs, targets = batch
        features = self.model(imgs)  # Encode all images of support and query set
        support_feats, query_feats, support_targets, query_targets = split_batch(features, targets)
        prototypes, classes = ProtoNet.calculate_prototypes(support_feats, support_targets)
        preds, labels, acc = self.classify_feats(prototypes, classes, query_feats, query_targets)
        loss = F.cross_entropy(preds, labels)
        self.log(f"{mode}_loss", loss)
        self.log(f"{mode}_acc", acc)
        return loss

    def training_step(self, batch, batch_idx):
        return self.calculate_loss(batch, mode="train")

    def validation_step(self, batch, batch_idx):
        _ = self.calculate_loss(batch, mode="val")


# prototypes of a hand-made example
feats = torch.tensor([[0., 0.], [2., 0.], [10., 10.], [12., 10.]])
protos, cls = ProtoNet.calculate_prototypes(feats, torch.tensor([7, 7, 3, 3]))
assert cls.tolist() == [3, 7] and protos.tolist() == [[11., 10.], [1., 0.]]


def train_protonet(epochs):   # what pl.Trainer.fit does with the LightningModule
    torch.manual_seed(42)
    model = ProtoNet(proto_dim=16, lr=2e-3)
    [opt], [sched] = model.configure_optimizers()
    for epoch in range(epochs):
        model.train()
        for batch_idx, batch in enumerate(train_data_loader):
            loss = model.training_step(batch, batch_idx)
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
        model.eval()
        with torch.no_grad():
            for batch_idx, batch in enumerate(val_data_loader):
                model.validation_step(batch, batch_idx)
    return model


protonet_model = train_protonet(epochs=6)
print("val acc", protonet_model.logged["val_acc"][-3:])
assert len(protonet_model.logged["train_loss"]) == 6 * 12
assert mean(protonet_model.logged["val_acc"][-3:]) > 0.6, protonet_model.logged["val_acc"]


@torch.no_grad()
def test_proto_net(model, dataset, data_feats=None, k_shot=4):
    model = model.to(device)
    model.eval()
    num_classes = dataset.targets.unique().shape[0]
    exmps_per_class = dataset.targets.shape[0]//num_classes  # We assume uniform example distribution here

    if data_feats is None:
        dataloader = data.DataLoader(dataset, batch_size=128, num_workers=0, shuffle=False, drop_last=False)
        img_features = []
        img_targets = []
        for imgs, targets in dataloader:
            imgs = imgs.to(device)
            feats = model.model(imgs)
            img_features.append(feats.detach().cpu())
            img_targets.append(targets)
        img_features = torch.cat(img_features, dim=0)
        img_targets = torch.cat(img_targets, dim=0)
        img_targets, sort_idx = img_targets.sort()
        img_targets = img_targets.reshape(num_classes, exmps_per_class).transpose(0, 1)
        img_features = img_features[sort_idx].reshape(num_classes, exmps_per_class, -1).transpose(0, 1)
    else:
        img_features, img_targets = data_feats

    accuracies = []
    for k_idx in range(0, img_features.shape[0], k_shot):
        k_img_feats, k_targets = img_features[k_idx:k_idx+k_shot].flatten(0, 1), img_targets[k_idx:k_idx+k_shot].flatten(0, 1)
        prototypes, proto_classes = model.calculate_prototypes(k_img_feats, k_targets)
        batch_acc = 0
        for e_idx in range(0, img_features.shape[0], k_shot):
            if k_idx == e_idx:  # Do not evaluate on the support set examples
                continue
            e_img_feats, e_targets = img_features[e_idx:e_idx+k_shot].flatten(0, 1), img_targets[e_idx:e_idx+k_shot].flatten(0, 1)
            _, _, acc = model.classify_feats(prototypes, proto_classes, e_img_feats, e_targets)
            batch_acc += acc.item()
        batch_acc /= img_features.shape[0]//k_shot-1
        accuracies.append(batch_acc)

    return (mean(accuracies), stdev(accuracies)), (img_features, img_targets)


protonet_accuracies = dict()
data_feats = None
for k in [2, 4, 8]:
    protonet_accuracies[k], data_feats = test_proto_net(protonet_model, test_set, data_feats=data_feats, k_shot=k)
    print(f"Accuracy for k={k}: {100.0*protonet_accuracies[k][0]:4.2f}% (+-{100*protonet_accuracies[k][1]:4.2f}%)")
assert data_feats[0].shape == (24, 5, 16) and data_feats[1][0].tolist() == sorted(test_classes.tolist())
assert protonet_accuracies[8][0] > 0.6 and protonet_accuracies[8][0] >= protonet_accuracies[2][0] - 0.05


class ProtoMAML(nn.Module):

    def __init__(self, proto_dim, lr, lr_inner, lr_output, num_inner_steps):
        super().__init__()
        self.hparams = dict(proto_dim=proto_dim, lr=lr, lr_inner=lr_inner, lr_output=lr_output,
                            num_inner_steps=num_inner_steps)
        self.model = get_convnet(output_size=self.hparams["proto_dim"])
        self.logged = defaultdict(list)

    def log(self, name, value): self.logged[name].append(value.item())

    def configure_optimizers(self):
        optimizer = optim.AdamW(self.parameters(), lr=self.hparams["lr"])
        scheduler = optim.lr_scheduler.MultiStepLR(optimizer, milestones=[140, 180], gamma=0.1)
        return [optimizer], [scheduler]

    def run_model(self, local_model, output_weight, output_bias, imgs, labels):
        # Execute a model with given output layer weights and inputs
        feats = local_model(imgs)
        preds = F.linear(feats, output_weight, output_bias)
        loss = F.cross_entropy(preds, labels)
        acc = (preds.argmax(dim=1) == labels).float()
        return loss, preds, acc

    def adapt_few_shot(self, support_imgs, support_targets):
        # Determine prototype initialization
        support_feats = self.model(support_imgs)
        prototypes, classes = ProtoNet.calculate_prototypes(support_feats, support_targets)
        support_labels = (classes[None, :] == support_targets[:, None]).long().argmax(dim=-1)
        # Create inner-loop model and optimizer
        local_model = deepcopy(self.model)
        local_model.train()
        local_optim = optim.SGD(local_model.parameters(), lr=self.hparams["lr_inner"])
        local_optim.zero_grad()
        # Create output layer weights with prototype-based initialization
        init_weight = 2 * prototypes
        init_bias = -torch.norm(prototypes, dim=1)**2
        output_weight = init_weight.detach().requires_grad_()
        output_bias = init_bias.detach().requires_grad_()

        # Optimize inner loop model on support set
        for _ in range(self.hparams["num_inner_steps"]):
            # Determine loss on the support set
            loss, _, _ = self.run_model(local_model, output_weight, output_bias, support_imgs, support_labels)
            # Calculate gradients and perform inner loop update
            loss.backward()
            local_optim.step()
            # Update output layer via SGD
            with torch.no_grad():
                output_weight.copy_(output_weight - self.hparams["lr_output"] * output_weight.grad)
                output_bias.copy_(output_bias - self.hparams["lr_output"] * output_bias.grad)

            # Reset gradients
            local_optim.zero_grad()
            output_weight.grad.fill_(0)
            output_bias.grad.fill_(0)

        # Re-attach computation graph of prototypes
        output_weight = (output_weight - init_weight).detach() + init_weight
        output_bias = (output_bias - init_bias).detach() + init_bias

        return local_model, output_weight, output_bias, classes

    def outer_loop(self, batch, mode="train"):
        accuracies = []
        losses = []
        self.model.zero_grad()

        # Determine gradients for batch of tasks
        for task_batch in batch:
            imgs, targets = task_batch
            support_imgs, query_imgs, support_targets, query_targets = split_batch(imgs, targets)
            # Perform inner loop adaptation
            local_model, output_weight, output_bias, classes = self.adapt_few_shot(support_imgs, support_targets)
            # Determine loss of query set
            query_labels = (classes[None, :] == query_targets[:, None]).long().argmax(dim=-1)
            loss, preds, acc = self.run_model(local_model, output_weight, output_bias, query_imgs, query_labels)
            # Calculate gradients for query set loss
            if mode == "train":
                loss.backward()

                for p_global, p_local in zip(self.model.parameters(), local_model.parameters()):
                    p_global.grad += p_local.grad  # First-order approx. -> add gradients of finetuned and base model

            accuracies.append(acc.mean().detach())
            losses.append(loss.detach())

        # Perform update of base model
        if mode == "train":
            opt = self.optimizers()
            opt.step()
            opt.zero_grad()

        self.log(f"{mode}_loss", sum(losses) / len(losses))
        self.log(f"{mode}_acc", sum(accuracies) / len(accuracies))

    def training_step(self, batch, batch_idx):
        self.outer_loop(batch, mode="train")
        return None  # Returning None means we skip the default training optimizer steps by PyTorch Lightning

    def validation_step(self, batch, batch_idx):
        # Validation requires to finetune a model, hence we need to enable gradients
        torch.set_grad_enabled(True)
        self.outer_loop(batch, mode="val")
        torch.set_grad_enabled(False)


class TaskBatchSampler(object):

    def __init__(self, dataset_targets, batch_size, N_way, K_shot, include_query=False, shuffle=True):
        super().__init__()
        self.batch_sampler = FewShotBatchSampler(dataset_targets, N_way, K_shot, include_query, shuffle)
        self.task_batch_size = batch_size
        self.local_batch_size = self.batch_sampler.batch_size

    def __iter__(self):
        # Aggregate multiple batches before returning the indices
        batch_list = []
        for batch_idx, batch in enumerate(self.batch_sampler):
            batch_list.extend(batch)
            if (batch_idx+1) % self.task_batch_size == 0:
                yield batch_list
                batch_list = []

    def __len__(self):
        return len(self.batch_sampler)//self.task_batch_size

    def get_collate_fn(self):
        # Returns a collate function that converts one big tensor into a list of task-specific tensors
        def collate_fn(item_list):
            imgs = torch.stack([img for img, target in item_list], dim=0)
            targets = torch.stack([target for img, target in item_list], dim=0)
            imgs = imgs.chunk(self.task_batch_size, dim=0)
            targets = targets.chunk(self.task_batch_size, dim=0)
            return list(zip(imgs, targets))
        return collate_fn


train_protomaml_sampler = TaskBatchSampler(train_set.targets,
                                           include_query=True,
                                           N_way=N_WAY,
                                           K_shot=K_SHOT,
                                           batch_size=4)
train_protomaml_loader = data.DataLoader(train_set,
                                         batch_sampler=train_protomaml_sampler,
                                         collate_fn=train_protomaml_sampler.get_collate_fn(),
                                         num_workers=0)
val_protomaml_sampler = TaskBatchSampler(val_set.targets,
                                         include_query=True,
                                         N_way=N_WAY,
                                         K_shot=K_SHOT,
                                         batch_size=1,  # We do not update the parameters, hence the batch size is irrelevant here
                                         shuffle=False)
val_protomaml_loader = data.DataLoader(val_set,
                                       batch_sampler=val_protomaml_sampler,
                                       collate_fn=val_protomaml_sampler.get_collate_fn(),
                                       num_workers=0)
batch = next(iter(train_protomaml_loader))
assert len(train_protomaml_loader) == 3 and len(batch) == 4 and batch[0][0].shape == (40, 3, 8, 8)

torch.manual_seed(42)
protomaml_model = ProtoMAML(proto_dim=16, lr=1e-3, lr_inner=0.1, lr_output=0.1, num_inner_steps=1)
[opt], [sched] = protomaml_model.configure_optimizers()
protomaml_model.optimizers = lambda: opt
before = [p.detach().clone() for p in protomaml_model.model.parameters()]
for epoch in range(4):
    protomaml_model.train()
    for batch_idx, batch in enumerate(train_protomaml_loader):
        protomaml_model.training_step(batch, batch_idx)
    sched.step()
    protomaml_model.eval()
    torch.set_grad_enabled(False)
    for batch_idx, batch in enumerate(val_protomaml_loader):
        protomaml_model.validation_step(batch, batch_idx)
    torch.set_grad_enabled(True)
print("protomaml", protomaml_model.logged["train_loss"][:2], protomaml_model.logged["val_acc"][-3:])
assert all(not torch.equal(a, b) for a, b in zip(before, protomaml_model.model.parameters()))
assert all(p.grad is None for p in protomaml_model.model.parameters())       # opt.zero_grad()
assert len(protomaml_model.logged["val_acc"]) == 4 * 3
assert mean(protomaml_model.logged["val_acc"][-3:]) > 0.5, protomaml_model.logged


def test_protomaml(model, dataset, k_shot=4):
    torch.manual_seed(42)
    model = model.to(device)
    num_classes = dataset.targets.unique().shape[0]
    exmps_per_class = dataset.targets.shape[0]//num_classes

    # Data loader for full test set as query set
    full_dataloader = data.DataLoader(dataset,
                                      batch_size=128,
                                      num_workers=0,
                                      shuffle=False,
                                      drop_last=False)
    # Data loader for sampling support sets
    sampler = FewShotBatchSampler(dataset.targets,
                                  include_query=False,
                                  N_way=num_classes,
                                  K_shot=k_shot,
                                  shuffle=False,
                                  shuffle_once=False)
    sample_dataloader = data.DataLoader(dataset,
                                        batch_sampler=sampler,
                                        num_workers=0)

    accuracies = []
    for (support_imgs, support_targets), support_indices in zip(sample_dataloader, sampler):
        support_imgs = support_imgs.to(device)
        support_targets = support_targets.to(device)
        # Finetune new model on support set
        local_model, output_weight, output_bias, classes = model.adapt_few_shot(support_imgs, support_targets)
        with torch.no_grad():  # No gradients for query set needed
            local_model.eval()
            batch_acc = torch.zeros((0,), dtype=torch.float32, device=device)
            # Evaluate all examples in test dataset
            for query_imgs, query_targets in full_dataloader:
                query_imgs = query_imgs.to(device)
                query_targets = query_targets.to(device)
                query_labels = (classes[None, :] == query_targets[:, None]).long().argmax(dim=-1)
                _, _, acc = model.run_model(local_model, output_weight, output_bias, query_imgs, query_labels)
                batch_acc = torch.cat([batch_acc, acc.detach()], dim=0)
            # Exclude support set elements
            for s_idx in support_indices:
                batch_acc[s_idx] = 0
            batch_acc = batch_acc.sum().item() / (batch_acc.shape[0] - len(support_indices))
            accuracies.append(batch_acc)
    return mean(accuracies), stdev(accuracies)


protomaml_model.hparams["num_inner_steps"] = 5
result = test_protomaml(protomaml_model, test_set, k_shot=8)
print("ProtoMAML k=8", result)
assert 0.4 < result[0] <= 1 and result[1] >= 0
