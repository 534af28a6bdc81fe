"""Sequence classification with nn.RNN and nn.GRU (batch_first=True): the last hidden state
h_n[-1] feeds a Linear head; the task (is the sum of the sequence positive?) is learned."""
import torch
import torch.nn as nn


class SeqClassifier(nn.Module):
    def __init__(self, cell, hidden=16):
        super().__init__()
        self.rnn = cell(input_size=1, hidden_size=hidden, num_layers=1, batch_first=True)
        self.fc = nn.Linear(hidden, 2)

    def forward(self, x):
        out, h_n = self.rnn(x)
        assert out.shape[:2] == x.shape[:2]
        return self.fc(h_n[-1])


torch.manual_seed(0)
X = torch.randn(128, 12, 1)
y = (X.sum(dim=(1, 2)) > 0).long()
for cell in (nn.RNN, nn.GRU):
    model = SeqClassifier(cell)
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    for epoch in range(60):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(X), y)
        loss.backward()
        opt.step()
    acc = (model(X).argmax(1) == y).float().mean().item()
    assert acc > 0.85, (cell.__name__, acc)
