"""Transfer-learning style fine-tuning: freeze a pretrained feature extractor with
param.requires_grad = False, replace the classifier head, optimize only
filter(lambda p: p.requires_grad, model.parameters()); frozen weights stay unchanged."""
import torch
import torch.nn as nn


class Pretrained(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU())
        self.fc = nn.Linear(16, 100)

    def forward(self, x):
        return self.fc(self.features(x))


torch.manual_seed(0)
model_conv = Pretrained()
for param in model_conv.parameters():
    param.requires_grad = False
num_ftrs = model_conv.fc.in_features
model_conv.fc = nn.Linear(num_ftrs, 2)
trainable = [p for p in model_conv.parameters() if p.requires_grad]
assert len(trainable) == 2
frozen_before = model_conv.features[0].weight.clone()
optimizer_conv = torch.optim.SGD(filter(lambda p: p.requires_grad, model_conv.parameters()),
                                 lr=0.1, momentum=0.9)
x = torch.randn(40, 10)
y = (x[:, 0] > 0).long()
criterion = nn.CrossEntropyLoss()
first = None
for epoch in range(30):
    optimizer_conv.zero_grad()
    loss = criterion(model_conv(x), y)
    first = first or loss.item()
    loss.backward()
    optimizer_conv.step()
assert torch.equal(model_conv.features[0].weight, frozen_before)
assert model_conv.features[0].weight.grad is None
assert loss.item() < first
