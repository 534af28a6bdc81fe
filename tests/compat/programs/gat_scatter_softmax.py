"""A graph attention layer from scratch, as GNN tutorials write it without torch_geometric:
edge_index of shape (2, E), x[src] gathers, LeakyReLU attention logits, the per-node softmax by
Tensor.scatter_reduce(0, dst, e, reduce="amax", include_self=False) and scatter_add_ of the
exponentials, aggregation by index_add_, degree by torch.bincount(minlength=), self loops by
torch.cat, index_put_ with accumulate=True for an adjacency count, scatter_reduce "sum"/"mean"/
"amin"/"prod" readouts, and a node-classification training loop on a two-community graph."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N = 12
community = torch.tensor([0] * 6 + [1] * 6)
edges = [(i, j) for i in range(N) for j in range(N)
         if i != j and community[i] == community[j] and (i + j) % 3 != 0]
edges += [(0, 6), (6, 0)]
edge_index = torch.tensor(edges, dtype=torch.long).t().contiguous()
assert edge_index.shape[0] == 2
x = torch.randn(N, 4) + community.float().unsqueeze(1)


def add_self_loops(edge_index, num_nodes):
    loops = torch.arange(num_nodes).unsqueeze(0).repeat(2, 1)
    return torch.cat([edge_index, loops], dim=1)


def scatter_softmax(src, index, num_nodes):
    src_max = torch.zeros(num_nodes, dtype=src.dtype).scatter_reduce(
        0, index, src, reduce="amax", include_self=False)
    out = (src - src_max[index]).exp()
    denom = torch.zeros(num_nodes, dtype=src.dtype).scatter_add_(0, index, out)
    return out / denom[index]


class GATLayer(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.lin = nn.Linear(in_dim, out_dim, bias=False)
        self.att_src = nn.Parameter(torch.empty(out_dim))
        self.att_dst = nn.Parameter(torch.empty(out_dim))
        nn.init.normal_(self.att_src, std=0.1)
        nn.init.normal_(self.att_dst, std=0.1)

    def forward(self, x, edge_index):
        edge_index = add_self_loops(edge_index, x.size(0))
        src, dst = edge_index
        h = self.lin(x)
        e = F.leaky_relu((h[src] * self.att_src).sum(-1) + (h[dst] * self.att_dst).sum(-1), 0.2)
        alpha = scatter_softmax(e, dst, x.size(0))
        self.alpha = alpha
        out = torch.zeros_like(h).index_add_(0, dst, alpha.unsqueeze(-1) * h[src])
        return out


class GAT(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = GATLayer(4, 8)
        self.l2 = GATLayer(8, 2)

    def forward(self, x, edge_index):
        return self.l2(F.elu(self.l1(x, edge_index)), edge_index)


model = GAT()
opt = torch.optim.Adam(model.parameters(), lr=0.05)
for step in range(60):
    out = model(x, edge_index)
    loss = F.cross_entropy(out, community)
    opt.zero_grad()
    loss.backward()
    opt.step()
acc = (out.argmax(1) == community).float().mean()
print(f"loss {loss.item():.3f} acc {acc.item():.2f}")
assert acc == 1.0
dst = add_self_loops(edge_index, N)[1]
sums = torch.zeros(N).scatter_add(0, dst, model.l1.alpha.detach())
assert torch.allclose(sums, torch.ones(N), atol=1e-5)

deg = torch.bincount(edge_index[1], minlength=N)
assert deg.sum() == edge_index.size(1) and deg.dtype == torch.int64
adj = torch.zeros(N, N, dtype=torch.long)
adj.index_put_((edge_index[0], edge_index[1]), torch.ones(edge_index.size(1), dtype=torch.long),
               accumulate=True)
assert torch.equal(adj.sum(0), deg)
adj.index_put_((torch.tensor([0, 0]), torch.tensor([6, 6])), torch.tensor([5, 5]), accumulate=True)
assert adj[0, 6] == 11
dense = torch.zeros(3, 3).index_put((torch.tensor([0, 2]),), torch.tensor([[1.5], [2.5]]))
assert dense[2].tolist() == [2.5, 2.5, 2.5]

batch = torch.tensor([0, 0, 1, 1, 1, 2])
vals = torch.tensor([1., 5., 2., 4., 3., 7.])
assert torch.zeros(3).scatter_reduce(0, batch, vals, "sum").tolist() == [6., 9., 7.]
assert torch.zeros(3).scatter_reduce(0, batch, vals, "mean", include_self=False).tolist() == [3., 3., 7.]
assert torch.full((3,), 10.).scatter_reduce(0, batch, vals, "amin").tolist() == [1., 2., 7.]
assert torch.ones(3).scatter_reduce(0, batch, vals, "prod").tolist() == [5., 24., 7.]
w = vals.clone().requires_grad_()
pooled = torch.zeros(3).scatter_reduce(0, batch, w, "amax", include_self=False)
pooled.sum().backward()
assert w.grad.tolist() == [0., 1., 0., 1., 0., 1.]
