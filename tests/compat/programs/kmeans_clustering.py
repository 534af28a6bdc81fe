"""k-means written with tensors: pairwise distances by broadcasting,
((x[:, None] - c[None]) ** 2).sum(-1),
argmin assignments, centroid updates with boolean masks, torch.cdist for the same distances."""
import torch

torch.manual_seed(0)
centers_true = torch.tensor([[0.0, 0.0], [5.0, 5.0], [0.0, 5.0]])
x = torch.cat([c + 0.3 * torch.randn(50, 2) for c in centers_true])
c = x[torch.tensor([0, 60, 120])].clone()
for it in range(10):
    d = ((x[:, None, :] - c[None, :, :]) ** 2).sum(-1)
    assign = d.argmin(dim=1)
    for k in range(3):
        c[k] = x[assign == k].mean(dim=0)
assert torch.allclose(torch.cdist(x, c) ** 2, d, atol=1e-4)
assert torch.bincount(assign).tolist() == [50, 50, 50]
err = (c - centers_true).abs().max()
assert err < 0.2, err
