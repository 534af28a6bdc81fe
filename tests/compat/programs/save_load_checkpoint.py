"""A general checkpoint for resuming training: a dict with epoch, model and optimizer state_dicts
and the loss; loaded back, training resumes exactly where it stopped."""
import os
import tempfile

import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)
X = torch.randn(64, 5)
Y = X @ torch.randn(5, 1) + 0.1


def make():
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 1))
    return model, optim.Adam(model.parameters(), lr=1e-2)


def train(model, optimizer, steps):
    for _ in range(steps):
        loss = nn.functional.mse_loss(model(X), Y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss


model, optimizer = make()
loss = train(model, optimizer, 5)
PATH = os.path.join(tempfile.mkdtemp(), "checkpoint.tar")  # never litter the working directory
torch.save({
    'epoch': 5,
    'model_state_dict': model.state_dict(),
    'optimizer_state_dict': optimizer.state_dict(),
    'loss': loss.item(),
}, PATH)
reference = train(model, optimizer, 5).item()

model2, optimizer2 = make()
checkpoint = torch.load(PATH, weights_only=True)
model2.load_state_dict(checkpoint['model_state_dict'])
optimizer2.load_state_dict(checkpoint['optimizer_state_dict'])
epoch = checkpoint['epoch']
assert epoch == 5 and abs(checkpoint['loss'] - loss.item()) < 1e-6
model2.train()
resumed = train(model2, optimizer2, 5).item()
assert abs(resumed - reference) < 1e-6, (resumed, reference)
