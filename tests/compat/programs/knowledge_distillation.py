"""Knowledge distillation: a soft-target loss F.kl_div(F.log_softmax(s/T), F.softmax(t/T),
reduction='batchmean') * T*T plus cross-entropy, teacher under torch.no_grad() in eval mode."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
X = torch.randn(64, 10)
y = (X[:, :3].sum(1) > 0).long()
teacher = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 2))
opt_t = torch.optim.Adam(teacher.parameters(), lr=1e-2)
for _ in range(60):
    opt_t.zero_grad()
    F.cross_entropy(teacher(X), y).backward()
    opt_t.step()
teacher.eval()

p = F.softmax(torch.tensor([[1.0, 2.0]]), dim=1)
q_log = F.log_softmax(torch.tensor([[0.5, 0.5]]), dim=1)
by_hand = (p * (p.log() - q_log)).sum()
assert torch.allclose(F.kl_div(q_log, p, reduction='batchmean'), by_hand)

student = nn.Linear(10, 2)
opt = torch.optim.SGD(student.parameters(), lr=0.1)
T, alpha = 2.0, 0.5
for _ in range(60):
    with torch.no_grad():
        teacher_logits = teacher(X)
    student_logits = student(X)
    soft = F.kl_div(F.log_softmax(student_logits / T, dim=1), F.softmax(teacher_logits / T, dim=1),
                    reduction='batchmean') * T * T
    loss = alpha * soft + (1 - alpha) * F.cross_entropy(student_logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
agree = (student(X).argmax(1) == teacher(X).argmax(1)).float().mean()
assert agree > 0.8
