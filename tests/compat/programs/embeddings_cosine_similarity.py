"""Embedding similarity as in contrastive-learning notebooks: F.normalize(dim=1), a similarity
matrix z @ z.T, F.cosine_similarity, torch.norm(p=2, dim=1), and nearest neighbours via topk."""
import torch
import torch.nn.functional as F

torch.manual_seed(0)
z = torch.randn(6, 16)
z[3] = z[0] * 2.5
zn = F.normalize(z, p=2, dim=1)
assert torch.allclose(torch.norm(zn, p=2, dim=1), torch.ones(6), atol=1e-6)
sim = zn @ zn.T
assert torch.allclose(sim[0, 3], torch.tensor(1.0), atol=1e-6)
cos = F.cosine_similarity(z[0:1], z, dim=1)
assert torch.allclose(cos, sim[0], atol=1e-6)
sim.fill_diagonal_(-1)
values, nn_idx = sim.topk(1, dim=1)
assert nn_idx[0].item() == 3 and nn_idx[3].item() == 0

temperature = 0.5
labels = torch.arange(3)
a, b = zn[:3], F.normalize(zn[:3] + 0.01 * torch.randn(3, 16), dim=1)
logits = a @ b.T / temperature
loss = F.cross_entropy(logits, labels)
assert loss.item() < F.cross_entropy(torch.zeros(3, 3), labels).item()
