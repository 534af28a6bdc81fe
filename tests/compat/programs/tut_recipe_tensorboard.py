"""PyTorch recipe "How to use TensorBoard with PyTorch" (recipes_source/recipes/
tensorboard_with_pytorch.py): SummaryWriter() logging writer.add_scalar("Loss/train", loss,
epoch) while fitting y = -5x + noise with a Linear model and SGD, writer.flush(), writer.close();
plus the "Visualizing Models, Data, and Training with TensorBoard" tutorial's add_scalars and
add_histogram. The log directory holds an event file afterwards."""
import os
import tempfile

import torch
from torch.utils.tensorboard import SummaryWriter

logdir = tempfile.mkdtemp()
writer = SummaryWriter(log_dir=logdir)

x = torch.arange(-5, 5, 0.1).view(-1, 1)
torch.manual_seed(0)
y = -5 * x + 0.1 * torch.randn(x.size())

model = torch.nn.Linear(1, 1)
criterion = torch.nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def train_model(iter):
    for epoch in range(iter):
        y1 = model(x)
        loss = criterion(y1, y)
        writer.add_scalar("Loss/train", loss, epoch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


final = train_model(10)
writer.add_scalars("run_14h", {"xsinx": 1.0, "xcosx": 2.0, "tanx": 3.0}, 0)
writer.add_histogram("weight", model.weight, 0)
writer.flush()
writer.close()
assert final < 1.0, final
files = [f for f in os.listdir(logdir) if f.startswith("events.out.tfevents")]
assert files, os.listdir(logdir)
