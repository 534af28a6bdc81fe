"""nanoGPT's masked self-attention head: register_buffer('tril', torch.tril(...)),
q @ k.transpose(-2, -1) * C**-0.5, masked_fill(tril[:T, :T] == 0, float('-inf')), softmax, dropout."""
import torch
import torch.nn as nn
from torch.nn import functional as F

torch.manual_seed(1337)
n_embd, block_size, head_size, dropout = 16, 8, 8, 0.0


class Head(nn.Module):
    def __init__(self, head_size):
        super().__init__()
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)
        self.register_buffer('tril', torch.tril(torch.ones(block_size, block_size)))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        B, T, C = x.shape
        k = self.key(x)
        q = self.query(x)
        wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float('-inf'))
        wei = F.softmax(wei, dim=-1)
        wei = self.dropout(wei)
        v = self.value(x)
        return wei @ v


head = Head(head_size)
x = torch.randn(4, block_size, n_embd, requires_grad=True)
out = head(x)
assert out.shape == (4, block_size, head_size)
# causality: the output at time t does not depend on inputs after t
out[:, 2].sum().backward()
assert torch.all(x.grad[:, 3:] == 0) and x.grad[:, :3].abs().sum() > 0
assert 'tril' in dict(head.named_buffers()) and 'tril' in head.state_dict()
assert len(list(head.parameters())) == 3
