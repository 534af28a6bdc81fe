"""Per-layer options with parameter groups: a smaller lr for the backbone than the head,
weight decay off for biases, groups changed during training through optimizer.param_groups."""
import torch
import torch.nn as nn

torch.manual_seed(0)
backbone = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
head = nn.Linear(16, 2)
model = nn.Sequential(backbone, head)
decay, no_decay = [], []
for name, p in model.named_parameters():
    (no_decay if name.endswith('bias') else decay).append(p)
assert len(decay) == 2 and len(no_decay) == 2
optimizer = torch.optim.SGD([
    {'params': backbone.parameters()},
    {'params': head.parameters(), 'lr': 1e-1}
], lr=1e-3, momentum=0.9)
assert [g['lr'] for g in optimizer.param_groups] == [1e-3, 1e-1]
assert optimizer.param_groups[0]['momentum'] == 0.9

opt2 = torch.optim.AdamW([{'params': decay, 'weight_decay': 0.1},
                          {'params': no_decay, 'weight_decay': 0.0}], lr=1e-3)
assert [g['weight_decay'] for g in opt2.param_groups] == [0.1, 0.0]

x, y = torch.randn(20, 8), torch.randint(0, 2, (20,))
before = [p.detach().clone() for p in model.parameters()]
loss = nn.functional.cross_entropy(model(x), y)
loss.backward()
optimizer.step()
moved = [(p.detach() - b).abs().max().item() for p, b in zip(model.parameters(), before)]
assert moved[2] > moved[0] * 10          # the head moved with 100x the lr
for g in optimizer.param_groups:
    g['lr'] *= 0.5
assert optimizer.param_groups[1]['lr'] == 0.05
