"""Saving and loading a model (the save/load recipe): torch.save(model.state_dict(), PATH),
model.load_state_dict(torch.load(PATH, weights_only=True)), model.eval(), same predictions."""
import os
import tempfile

import torch
import torch.nn as nn


class TheModelClass(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 16)
        self.bn = nn.BatchNorm1d(16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.bn(self.fc1(x))))


torch.manual_seed(0)
model = TheModelClass()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
x = torch.randn(32, 12)
for _ in range(3):
    loss = model(x).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

print("Model's state_dict:")
for param_tensor in model.state_dict():
    print(param_tensor, "\t", model.state_dict()[param_tensor].size())
assert list(model.state_dict()) == ['fc1.weight', 'fc1.bias', 'bn.weight', 'bn.bias',
                                    'bn.running_mean', 'bn.running_var', 'bn.num_batches_tracked',
                                    'fc2.weight', 'fc2.bias']
PATH = os.path.join(tempfile.mkdtemp(), "model.pt")       # never litter the working directory
torch.save(model.state_dict(), PATH)

model2 = TheModelClass()
model2.load_state_dict(torch.load(PATH, weights_only=True))
model.eval()
model2.eval()
with torch.no_grad():
    assert torch.equal(model(x), model2(x))
assert model2.bn.num_batches_tracked.item() == 3
