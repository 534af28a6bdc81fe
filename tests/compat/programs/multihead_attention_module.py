"""nn.MultiheadAttention with batch_first=True and a causal attn_mask from torch.triu(...,
diagonal=1).bool(); the averaged attention weights are a causal probability matrix."""
import torch
import torch.nn as nn

torch.manual_seed(0)
B, T, E = 2, 5, 8
mha = nn.MultiheadAttention(embed_dim=E, num_heads=2, batch_first=True)
x = torch.randn(B, T, E)
mask = torch.triu(torch.ones(T, T), diagonal=1).bool()
out, weights = mha(x, x, x, attn_mask=mask)
assert out.shape == (B, T, E) and weights.shape == (B, T, T)
assert torch.allclose(weights.sum(-1), torch.ones(B, T))
assert torch.all(weights.masked_select(mask.expand(B, T, T)) == 0)
out.sum().backward()
assert mha.in_proj_weight.grad.shape == (3 * E, E)
