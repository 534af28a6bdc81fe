"""PyTorch recipes "Warmstarting model using parameters from a different model" and "Saving and
loading multiple models in one file" (recipes_source/recipes/): netA's state_dict loaded into a
netB with different layers via load_state_dict(..., strict=False) (the result names the missing
and unexpected keys), then both nets and their SGD optimizers saved in one dict with
'modelA_state_dict' / 'optimizerA_state_dict' keys and loaded back with weights_only=True."""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class NetA(nn.Module):
    def __init__(self):
        super(NetA, self).__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


class NetB(nn.Module):
    def __init__(self):
        super(NetB, self).__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc4 = nn.Linear(84, 4)     # a new head

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc4(x)


torch.manual_seed(0)
netA = NetA()
netB = NetB()
folder = tempfile.mkdtemp()
PATH = os.path.join(folder, "model.pt")
torch.save(netA.state_dict(), PATH)

result = netB.load_state_dict(torch.load(PATH, weights_only=True), strict=False)
print(result)
assert sorted(result.missing_keys) == ["fc4.bias", "fc4.weight"], result
assert sorted(result.unexpected_keys) == ["fc3.bias", "fc3.weight"], result
missing, unexpected = result
assert missing == result.missing_keys
assert torch.equal(netB.conv1.weight, netA.conv1.weight)
assert torch.equal(netB.fc2.bias, netA.fc2.bias)

# strict=True (the default) refuses the mismatch
try:
    netB.load_state_dict(netA.state_dict())
    raise AssertionError("strict loading should fail")
except RuntimeError as e:
    assert "fc4.weight" in str(e) and "fc3.weight" in str(e), e

# renaming keys to load into a differently named layer
state = {k.replace("fc3", "fc4"): v for k, v in netA.state_dict().items() if not k.startswith("fc3")}
netB.load_state_dict(state, strict=False)

# several models in one file
optimizerA = optim.SGD(netA.parameters(), lr=0.001, momentum=0.9)
optimizerB = optim.SGD(netB.parameters(), lr=0.001, momentum=0.9)
x = torch.randn(4, 3, 32, 32)
for net, opt in ((netA, optimizerA), (netB, optimizerB)):
    opt.zero_grad()
    net(x).pow(2).mean().backward()
    opt.step()

BOTH = os.path.join(folder, "model.tar")
torch.save({
    'modelA_state_dict': netA.state_dict(),
    'modelB_state_dict': netB.state_dict(),
    'optimizerA_state_dict': optimizerA.state_dict(),
    'optimizerB_state_dict': optimizerB.state_dict(),
}, BOTH)

modelA, modelB = NetA(), NetB()
optimA = optim.SGD(modelA.parameters(), lr=0.001, momentum=0.9)
optimB = optim.SGD(modelB.parameters(), lr=0.001, momentum=0.9)
checkpoint = torch.load(BOTH, weights_only=True)
modelA.load_state_dict(checkpoint['modelA_state_dict'])
modelB.load_state_dict(checkpoint['modelB_state_dict'])
optimA.load_state_dict(checkpoint['optimizerA_state_dict'])
optimB.load_state_dict(checkpoint['optimizerB_state_dict'])
modelA.eval()
modelB.train()
assert torch.equal(modelA(x), netA.eval()(x))
assert optimA.state_dict()['param_groups'][0]['momentum'] == 0.9
buf = optimA.state_dict()['state'][0]['momentum_buffer']
assert torch.equal(buf, optimizerA.state_dict()['state'][0]['momentum_buffer'])
