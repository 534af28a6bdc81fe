"""CrossEntropyLoss options used in practice: class weights for imbalance, ignore_index=-100 for
padding, label_smoothing=0.1, reduction='none'; each checked against the formula by hand."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
logits = torch.randn(6, 4, requires_grad=True)
target = torch.tensor([0, 3, 1, -100, 2, 3])
logp = F.log_softmax(logits, dim=1)
valid = target != -100
picked = logp[valid.nonzero().view(-1), target[valid]]
assert torch.allclose(nn.CrossEntropyLoss(ignore_index=-100)(logits, target), -picked.mean())

weight = torch.tensor([1.0, 2.0, 0.5, 1.0])
loss_w = nn.CrossEntropyLoss(weight=weight)(logits[valid], target[valid])
w = weight[target[valid]]
assert torch.allclose(loss_w, -(picked * w).sum() / w.sum())

per_sample = F.cross_entropy(logits[valid], target[valid], reduction='none')
assert per_sample.shape == (5,) and torch.allclose(per_sample, -picked)

eps = 0.1
smooth = nn.CrossEntropyLoss(label_smoothing=eps)(logits[valid], target[valid])
by_hand = ((1 - eps) * -picked - eps / 4 * logp[valid].sum(1)).mean()
assert torch.allclose(smooth, by_hand, atol=1e-6)
smooth.backward()
assert logits.grad.shape == (6, 4)
