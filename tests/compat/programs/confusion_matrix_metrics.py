"""Evaluation metrics by hand: a confusion matrix filled with cm[t.long(), p.long()] += 1 and with
torch.bincount, precision/recall/F1 from its diagonal, sum(0) and sum(1)."""
import torch

torch.manual_seed(0)
num_classes = 4
targets = torch.randint(0, num_classes, (200,))
noise = torch.randint(0, num_classes, (200,))
keep = torch.rand(200) < 0.7
preds = torch.where(keep, targets, noise)

cm = torch.zeros(num_classes, num_classes)
for t, p in zip(targets.view(-1), preds.view(-1)):
    cm[t.long(), p.long()] += 1
cm2 = torch.bincount(num_classes * targets + preds, minlength=num_classes ** 2)
cm2 = cm2.reshape(num_classes, num_classes)
assert torch.equal(cm.long(), cm2)

tp = cm.diag()
precision = tp / cm.sum(0)
recall = tp / cm.sum(1)
f1 = 2 * precision * recall / (precision + recall)
accuracy = tp.sum() / cm.sum()
assert abs(accuracy.item() - (preds == targets).float().mean().item()) < 1e-6
assert f1.shape == (num_classes,) and torch.all((f1 > 0) & (f1 <= 1))
print("macro F1", f1.mean().item())
