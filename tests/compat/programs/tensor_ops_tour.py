"""Everyday tensor ops in one tour: cat/stack/chunk/split, gather, topk, sort, argmax, where,
masked_fill, clamp, cumsum, flip, repeat, expand, narrow, index_select, tril."""
import torch

x = torch.arange(12).view(3, 4)
assert torch.cat([x, x], dim=0).shape == (6, 4) and torch.stack([x, x]).shape == (2, 3, 4)
assert [c.shape[1] for c in x.chunk(2, dim=1)] == [2, 2]
assert [s.shape[0] for s in x.split([1, 2])] == [1, 2]
idx = torch.tensor([[0], [3], [1]])
assert x.gather(1, idx).view(-1).tolist() == [0, 7, 9]
values, indices = torch.topk(torch.tensor([1., 5., 3., 4.]), k=2)
assert values.tolist() == [5., 4.] and indices.tolist() == [1, 3]
s, order = torch.sort(torch.tensor([3, 1, 2]), descending=True)
assert s.tolist() == [3, 2, 1] and order.tolist() == [0, 2, 1]
assert x.argmax().item() == 11 and x.argmax(dim=1).tolist() == [3, 3, 3]
assert torch.where(x > 5, x, torch.zeros_like(x)).sum().item() == 6 + 7 + 8 + 9 + 10 + 11
assert x.masked_fill(x % 2 == 0, -1).tolist()[0] == [-1, 1, -1, 3]
assert x.clamp(2, 9).min().item() == 2 and x.clamp(max=3).max().item() == 3
assert torch.cumsum(torch.ones(4), dim=0).tolist() == [1, 2, 3, 4]
assert x.flip(0)[0].tolist() == [8, 9, 10, 11]
assert x[:1].repeat(2, 1).shape == (2, 4) and x[:, :1].expand(3, 5).shape == (3, 5)
assert x.narrow(1, 1, 2).tolist()[0] == [1, 2]
assert torch.index_select(x, 0, torch.tensor([2, 0]))[0, 0].item() == 8
assert torch.tril(torch.ones(3, 3)).sum().item() == 6
