"""Graph neural-network message passing written from scratch: an edge_index (2, E) long tensor,
messages gathered with x[src], summed per node with index_add_ and scatter_add_, degree
normalisation via torch.bincount, one GCN-style layer trained on a toy task."""
import torch
import torch.nn as nn

torch.manual_seed(0)
edge_index = torch.tensor([[0, 1, 1, 2, 2, 3, 3, 4],
                           [1, 0, 2, 1, 3, 2, 4, 3]])
num_nodes = 5
src, dst = edge_index
x = torch.randn(num_nodes, 4)

agg = torch.zeros(num_nodes, 4).index_add_(0, dst, x[src])
agg2 = torch.zeros(num_nodes, 4).scatter_add_(0, dst.unsqueeze(1).expand(-1, 4), x[src])
assert torch.allclose(agg, agg2)
assert torch.allclose(agg[0], x[1]) and torch.allclose(agg[2], x[1] + x[3])
deg = torch.bincount(dst, minlength=num_nodes).float()
assert deg.tolist() == [1, 2, 2, 2, 1]


class GCNLayer(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.lin = nn.Linear(cin, cout)

    def forward(self, x, edge_index):
        src, dst = edge_index
        h = self.lin(x)
        out = torch.zeros_like(h).index_add_(0, dst, h[src])
        return (out + h) / (deg + 1).unsqueeze(1)


layer = GCNLayer(4, 2)
target = torch.tensor([0, 0, 1, 1, 1])
opt = torch.optim.Adam(layer.parameters(), lr=0.05)
for _ in range(100):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(layer(x, edge_index), target)
    loss.backward()
    opt.step()
assert layer.lin.weight.grad is not None and loss.item() < 0.6
