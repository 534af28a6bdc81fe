"""pytorch/examples distributed/ddp-tutorial-series, the non-distributed starting point
(single_gpu.py + datautils.py) on the cpu: MyTrainDataset of (torch.rand(20), torch.rand(1))
pairs, a Trainer with _run_batch / _run_epoch (b_sz = len(next(iter(self.train_data))[0])) /
_save_checkpoint (torch.save(self.model.state_dict(), "checkpoint.pt")), prepare_dataloader with
pin_memory=True and shuffle=True, and torch.nn.Linear(20, 1) trained with
F.cross_entropy(output, targets). With one output column and float targets, cross_entropy reads
the targets as class probabilities over a single class: log_softmax of one logit is 0, so the
loss and every gradient are exactly zero and the example's weights never move; the program
checks exactly that, and the checkpoint round trip."""
import os
import tempfile

import torch
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader


class MyTrainDataset(Dataset):
    def __init__(self, size):
        self.size = size
        self.data = [(torch.rand(20), torch.rand(1)) for _ in range(size)]

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        return self.data[index]


losses = []


class Trainer:
    def __init__(
        self,
        model: torch.nn.Module,
        train_data: DataLoader,
        optimizer: torch.optim.Optimizer,
        gpu_id,
        save_every: int,
    ) -> None:
        self.gpu_id = gpu_id
        self.model = model.to(gpu_id)
        self.train_data = train_data
        self.optimizer = optimizer
        self.save_every = save_every

    def _run_batch(self, source, targets):
        self.optimizer.zero_grad()
        output = self.model(source)
        loss = F.cross_entropy(output, targets)
        loss.backward()
        losses.append(loss.item())
        assert all(bool((p.grad == 0).all()) for p in self.model.parameters())
        self.optimizer.step()

    def _run_epoch(self, epoch):
        b_sz = len(next(iter(self.train_data))[0])
        print(f"[GPU{self.gpu_id}] Epoch {epoch} | Batch size: {b_sz} | Steps: {len(self.train_data)}")
        assert b_sz == 32 and len(self.train_data) == 8
        for source, targets in self.train_data:
            source = source.to(self.gpu_id)
            targets = targets.to(self.gpu_id)
            self._run_batch(source, targets)

    def _save_checkpoint(self, epoch):
        ckp = self.model.state_dict()
        PATH = "checkpoint.pt"
        torch.save(ckp, PATH)
        print(f"Epoch {epoch} | Training checkpoint saved at {PATH}")

    def train(self, max_epochs: int):
        for epoch in range(max_epochs):
            self._run_epoch(epoch)
            if epoch % self.save_every == 0:
                self._save_checkpoint(epoch)


def load_train_objs():
    train_set = MyTrainDataset(256)  # load your dataset
    model = torch.nn.Linear(20, 1)  # load your model
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    return train_set, model, optimizer


def prepare_dataloader(dataset: Dataset, batch_size: int):
    return DataLoader(
        dataset,
        batch_size=batch_size,
        pin_memory=True,
        shuffle=True
    )


def main(device, total_epochs, save_every, batch_size):
    dataset, model, optimizer = load_train_objs()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    train_data = prepare_dataloader(dataset, batch_size)
    trainer = Trainer(model, train_data, optimizer, device, save_every)
    trainer.train(total_epochs)
    return model, before


torch.manual_seed(0)
workdir = tempfile.TemporaryDirectory()
cwd = os.getcwd()
os.chdir(workdir.name)
try:
    device = "cpu"  # 0, the shorthand for cuda:0, in the example
    model, before = main(device, 3, 2, 32)
    saved = torch.load("checkpoint.pt", weights_only=True)
finally:
    os.chdir(cwd)
    workdir.cleanup()

assert len(losses) == 3 * 8 and all(v == 0.0 for v in losses)
assert all(torch.equal(v, before[k]) for k, v in model.state_dict().items())
assert sorted(saved) == ["bias", "weight"] and torch.equal(saved["weight"], model.weight)

# the same call with integer class targets is a real (if one-class) loss: still exactly zero
out = model(torch.rand(4, 20))
assert F.cross_entropy(out, torch.zeros(4, dtype=torch.long)).item() == 0.0
# and with two outputs the probability-target form trains
logits = torch.zeros(4, 2, requires_grad=True)
target = torch.tensor([[1.0, 0.0]] * 4)
loss = F.cross_entropy(logits, target)
loss.backward()
assert abs(loss.item() - 0.6931472) < 1e-6
assert torch.allclose(logits.grad, torch.tensor([[-0.125, 0.125]] * 4))
