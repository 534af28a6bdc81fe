"""UvA Deep Learning tutorial 7 (Graph Neural Networks, Phillip Lippe), the parts written in plain
PyTorch: GCNLayer (num_neighbours = adj_matrix.sum(dim=-1, keepdims=True), torch.bmm(adj_matrix,
node_feats) / num_neighbours) on the tutorial's 4-node graph with projection.weight.data set to
the identity and the printed "Adjacency matrix" / "Input features" / "Output features", and
GATLayer: nn.Parameter(torch.Tensor(num_heads, 2 * c_out)) with nn.init.xavier_uniform_(...data,
gain=1.414), adj_matrix.nonzero(as_tuple=False), torch.index_select on flattened node features,
torch.einsum('bhc,hc->bh'), attn_logits.new_zeros(adj_matrix.shape + (num_heads,)).fill_(-9e15),
boolean-mask assignment attn_matrix[adj_matrix[..., None].repeat(1, 1, 1, num_heads) == 1] =
attn_logits.reshape(-1), F.softmax(dim=2), printing attn_probs.permute(0, 3, 1, 2),
torch.einsum('bijh,bjhc->bihc'); then a small node classifier trained with a train mask, and a
graph-level readout (mean pooling by index_add_ over a batch vector, as geom_nn.global_mean_pool
does) for graph classification."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class GCNLayer(nn.Module):
    def __init__(self, c_in, c_out):
        super().__init__()
        self.projection = nn.Linear(c_in, c_out)

    def forward(self, node_feats, adj_matrix):
        num_neighbours = adj_matrix.sum(dim=-1, keepdims=True)
        node_feats = self.projection(node_feats)
        node_feats = torch.bmm(adj_matrix, node_feats)
        node_feats = node_feats / num_neighbours
        return node_feats


node_feats = torch.arange(8, dtype=torch.float32).view(1, 4, 2)
adj_matrix = torch.Tensor([[[1, 1, 0, 0],
                            [1, 1, 1, 1],
                            [0, 1, 1, 1],
                            [0, 1, 1, 1]]])
print("Node features:\n", node_feats)
print("\nAdjacency matrix:\n", adj_matrix)

layer = GCNLayer(c_in=2, c_out=2)
layer.projection.weight.data = torch.Tensor([[1., 0.], [0., 1.]])
layer.projection.bias.data = torch.Tensor([0., 0.])
with torch.no_grad():
    out_feats = layer(node_feats, adj_matrix)
print("Adjacency matrix", adj_matrix)
print("Input features", node_feats)
print("Output features", out_feats)
assert torch.allclose(out_feats[0, 0], torch.tensor([1., 2.]))
assert torch.allclose(out_feats[0, 2], out_feats[0, 3])


class GATLayer(nn.Module):
    def __init__(self, c_in, c_out, num_heads=1, concat_heads=True, alpha=0.2):
        super().__init__()
        self.num_heads = num_heads
        self.concat_heads = concat_heads
        if self.concat_heads:
            assert c_out % num_heads == 0, "Number of output features must be a multiple of the count of heads."
            c_out = c_out // num_heads
        self.projection = nn.Linear(c_in, c_out * num_heads)
        self.a = nn.Parameter(torch.Tensor(num_heads, 2 * c_out))
        self.leakyrelu = nn.LeakyReLU(alpha)
        nn.init.xavier_uniform_(self.projection.weight.data, gain=1.414)
        nn.init.xavier_uniform_(self.a.data, gain=1.414)

    def forward(self, node_feats, adj_matrix, print_attn_probs=False):
        batch_size, num_nodes = node_feats.size(0), node_feats.size(1)
        node_feats = self.projection(node_feats)
        node_feats = node_feats.view(batch_size, num_nodes, self.num_heads, -1)
        edges = adj_matrix.nonzero(as_tuple=False)
        node_feats_flat = node_feats.view(batch_size * num_nodes, self.num_heads, -1)
        edge_indices_row = edges[:, 0] * num_nodes + edges[:, 1]
        edge_indices_col = edges[:, 0] * num_nodes + edges[:, 2]
        a_input = torch.cat([
            torch.index_select(input=node_feats_flat, index=edge_indices_row, dim=0),
            torch.index_select(input=node_feats_flat, index=edge_indices_col, dim=0)
        ], dim=-1)
        attn_logits = torch.einsum('bhc,hc->bh', a_input, self.a)
        attn_logits = self.leakyrelu(attn_logits)
        attn_matrix = attn_logits.new_zeros(adj_matrix.shape + (self.num_heads,)).fill_(-9e15)
        attn_matrix[adj_matrix[..., None].repeat(1, 1, 1, self.num_heads) == 1] = attn_logits.reshape(-1)
        attn_probs = F.softmax(attn_matrix, dim=2)
        if print_attn_probs:
            print("Attention probs\n", attn_probs.permute(0, 3, 1, 2))
        node_feats = torch.einsum('bijh,bjhc->bihc', attn_probs, node_feats)
        if self.concat_heads:
            node_feats = node_feats.reshape(batch_size, num_nodes, -1)
        else:
            node_feats = node_feats.mean(dim=2)
        return node_feats


layer = GATLayer(2, 2, num_heads=2)
layer.projection.weight.data = torch.Tensor([[1., 0.], [0., 1.]])
layer.projection.bias.data = torch.Tensor([0., 0.])
layer.a.data = torch.Tensor([[-0.2, 0.3], [0.1, -0.1]])
with torch.no_grad():
    out_feats = layer(node_feats, adj_matrix, print_attn_probs=True)
print("Adjacency matrix", adj_matrix)
print("Input features", node_feats)
print("Output features", out_feats)
assert out_feats.shape == (1, 4, 2)

# gradients reach a through the masked assignment
layer = GATLayer(2, 4, num_heads=2)
out = layer(node_feats, adj_matrix)
out.pow(2).sum().backward()
assert layer.a.grad is not None and layer.a.grad.abs().sum() > 0
assert layer.projection.weight.grad.shape == (4, 2)

# node classification on two noisy communities
torch.manual_seed(42)
n = 20
labels = torch.cat([torch.zeros(n // 2, dtype=torch.long), torch.ones(n // 2, dtype=torch.long)])
same = labels[:, None] == labels[None, :]
adj = ((torch.rand(n, n) < 0.4) & same) | ((torch.rand(n, n) < 0.03) & ~same)
adj = (adj | adj.T | torch.eye(n, dtype=torch.bool)).float().unsqueeze(0)
x = torch.randn(1, n, 3) + labels[None, :, None].float() * 0.3
train_mask = torch.zeros(n, dtype=torch.bool)
train_mask[::3] = True


class GNNModel(nn.Module):
    def __init__(self, c_in, c_hidden, c_out, layer_name="GCN", num_layers=2, dp_rate=0.1, **kwargs):
        super().__init__()
        layers = []
        in_channels, out_channels = c_in, c_hidden
        for l_idx in range(num_layers - 1):
            layers += [
                GCNLayer(in_channels, out_channels) if layer_name == "GCN"
                else GATLayer(in_channels, out_channels, **kwargs),
                nn.ReLU(inplace=True),
                nn.Dropout(dp_rate)
            ]
            in_channels = c_hidden
        layers += [GCNLayer(in_channels, c_out) if layer_name == "GCN" else GATLayer(in_channels, c_out, **kwargs)]
        self.layers = nn.ModuleList(layers)

    def forward(self, x, adj):
        for l in self.layers:
            if isinstance(l, (GCNLayer, GATLayer)):
                x = l(x, adj)
            else:
                x = l(x)
        return x


for name, kwargs in [("GCN", {}), ("GAT", {"num_heads": 2})]:
    torch.manual_seed(0)
    model = GNNModel(3, 8, 2, layer_name=name, **kwargs)
    optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=2e-3)
    loss_module = nn.CrossEntropyLoss()
    for epoch in range(60):
        model.train()
        optimizer.zero_grad()
        out = model(x, adj)[0]
        loss = loss_module(out[train_mask], labels[train_mask])
        loss.backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        preds = model(x, adj)[0].argmax(dim=-1)
    acc = (preds[~train_mask] == labels[~train_mask]).sum().float() / (~train_mask).sum()
    print(f"{name}: loss {loss.item():.4f}, test acc {acc.item() * 100:.1f}%")
    assert acc > 0.7


# graph-level readout: mean over the nodes of each graph in a batch
def global_mean_pool(x, batch_idx):
    num_graphs = int(batch_idx.max()) + 1
    sums = torch.zeros(num_graphs, x.size(1)).index_add_(0, batch_idx, x)
    counts = torch.bincount(batch_idx, minlength=num_graphs).clamp(min=1).unsqueeze(1)
    return sums / counts


feats = torch.arange(12, dtype=torch.float32).view(6, 2)
batch_idx = torch.tensor([0, 0, 1, 1, 1, 2])
pooled = global_mean_pool(feats, batch_idx)
print(pooled)
assert torch.equal(pooled, torch.tensor([[1., 2.], [6., 7.], [10., 11.]]))
