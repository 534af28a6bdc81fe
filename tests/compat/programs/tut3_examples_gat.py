"""pytorch/examples gat/main.py on a generated citation-like graph instead of Cora: the
GraphAttentionLayer (W and a as nn.Parameter(torch.empty(size=...)), xavier_normal_, the
vectorised scores source_scores + target_scores.mT, torch.where(adj_mat > 0, e,
-9e16 * torch.ones_like(e)), F.softmax over the neighbours, heads concatenated with
permute(1, 0, 2).contiguous().view or averaged with mean(dim=0)), the two-layer GAT with F.elu and
F.log_softmax, train_iter / test with node masks and weight-decayed Adam. load_cora's two sparse
steps (torch.diag(...).to_sparse() @ features, torch.sparse_coo_tensor for the adjacency) are
written dense here: labkit has no sparse tensors."""
import time

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
from torch.optim import Adam


class GraphAttentionLayer(nn.Module):
    def __init__(self, in_features: int, out_features: int, n_heads: int, concat: bool = False, dropout: float = 0.4, leaky_relu_slope: float = 0.2):
        super(GraphAttentionLayer, self).__init__()

        self.n_heads = n_heads # Number of attention heads
        self.concat = concat # wether to concatenate the final attention heads
        self.dropout = dropout # Dropout rate

        if concat: # concatenating the attention heads
            self.out_features = out_features # Number of output features per node
            assert out_features % n_heads == 0 # Ensure that out_features is a multiple of n_heads
            self.n_hidden = out_features // n_heads
        else: # averaging output over the attention heads (Used in the main paper)
            self.n_hidden = out_features

        #  A shared linear transformation, parametrized by a weight matrix W is applied to every node
        #  Initialize the weight matrix W
        self.W = nn.Parameter(torch.empty(size=(in_features, self.n_hidden * n_heads)))

        # Initialize the attention weights a
        self.a = nn.Parameter(torch.empty(size=(n_heads, 2 * self.n_hidden, 1)))

        self.leakyrelu = nn.LeakyReLU(leaky_relu_slope) # LeakyReLU activation function
        self.softmax = nn.Softmax(dim=1) # softmax activation function to the attention coefficients

        self.reset_parameters() # Reset the parameters

    def reset_parameters(self):
        nn.init.xavier_normal_(self.W)
        nn.init.xavier_normal_(self.a)

    def _get_attention_scores(self, h_transformed: torch.Tensor):
        source_scores = torch.matmul(h_transformed, self.a[:, :self.n_hidden, :])
        target_scores = torch.matmul(h_transformed, self.a[:, self.n_hidden:, :])

        # broadcast add
        # (n_heads, n_nodes, 1) + (n_heads, 1, n_nodes) = (n_heads, n_nodes, n_nodes)
        e = source_scores + target_scores.mT
        return self.leakyrelu(e)

    def forward(self,  h: torch.Tensor, adj_mat: torch.Tensor):
        n_nodes = h.shape[0]

        # Apply linear transformation to node feature -> W h
        # output shape (n_nodes, n_hidden * n_heads)
        h_transformed = torch.mm(h, self.W)
        h_transformed = F.dropout(h_transformed, self.dropout, training=self.training)

        # splitting the heads by reshaping the tensor and putting heads dim first
        # output shape (n_heads, n_nodes, n_hidden)
        h_transformed = h_transformed.view(n_nodes, self.n_heads, self.n_hidden).permute(1, 0, 2)

        # getting the attention scores
        # output shape (n_heads, n_nodes, n_nodes)
        e = self._get_attention_scores(h_transformed)

        # Set the attention score for non-existent edges to -9e15 (MASKING NON-EXISTENT EDGES)
        connectivity_mask = -9e16 * torch.ones_like(e)
        e = torch.where(adj_mat > 0, e, connectivity_mask) # masked attention scores

        # attention coefficients are computed as a softmax over the rows
        # for each column j in the attention score matrix e
        attention = F.softmax(e, dim=-1)
        attention = F.dropout(attention, self.dropout, training=self.training)

        # final node embeddings are computed as a weighted average of the features of its neighbors
        h_prime = torch.matmul(attention, h_transformed)

        # concatenating/averaging the attention heads
        # output shape (n_nodes, out_features)
        if self.concat:
            h_prime = h_prime.permute(1, 0, 2).contiguous().view(n_nodes, self.out_features)
        else:
            h_prime = h_prime.mean(dim=0)

        return h_prime


class GAT(nn.Module):
    def __init__(self,
        in_features,
        n_hidden,
        n_heads,
        num_classes,
        concat=False,
        dropout=0.4,
        leaky_relu_slope=0.2):

        super(GAT, self).__init__()

        # Define the Graph Attention layers
        self.gat1 = GraphAttentionLayer(
            in_features=in_features, out_features=n_hidden, n_heads=n_heads,
            concat=concat, dropout=dropout, leaky_relu_slope=leaky_relu_slope
            )

        self.gat2 = GraphAttentionLayer(
            in_features=n_hidden, out_features=num_classes, n_heads=1,
            concat=False, dropout=dropout, leaky_relu_slope=leaky_relu_slope
            )

    def forward(self, input_tensor: torch.Tensor , adj_mat: torch.Tensor):
        # Apply the first Graph Attention layer
        x = self.gat1(input_tensor, adj_mat)
        x = F.elu(x) # Apply ELU activation function to the output of the first layer

        # Apply the second Graph Attention layer
        x = self.gat2(x, adj_mat)

        return F.log_softmax(x, dim=1) # Apply log softmax activation function


def load_graph(device='cpu'):
    """A generated Cora: 3 classes of 40 papers, bag-of-words features that hint at the class,
    citations mostly within a class; processed as load_cora does (features scaled by their row
    sums, self-loops added to the adjacency), with dense tensors."""
    rng = np.random.default_rng(0)
    labels_np = np.repeat(np.arange(3), 40)
    content = (rng.random((120, 30)) < 0.1).astype(np.int32)
    for c in range(3):
        content[labels_np == c, 10 * c:10 * c + 10] |= (rng.random((40, 10)) < 0.3)
    edges = []
    for _ in range(400):
        i = int(rng.integers(120))
        same = rng.random() < 0.9
        pool = np.flatnonzero((labels_np == labels_np[i]) == same)
        edges.append([i, int(rng.choice(pool))])
    edges = np.array(edges, dtype=np.int32)

    features = torch.FloatTensor(content) # Extract feature values
    scale_vector = torch.sum(features, dim=1) # Compute sum of features for each node
    scale_vector = 1 / scale_vector # Compute reciprocal of the sums
    scale_vector[scale_vector == float('inf')] = 0 # Handle division by zero cases
    scale_vector = torch.diag(scale_vector) # (sparse in the example)
    features = scale_vector @ features # Scale the features using the scale vector

    labels = torch.LongTensor(labels_np) # Convert labels to a tensor

    V = 120 # Number of nodes
    adj_mat = torch.zeros(V, V, dtype=torch.int64)  # (a sparse_coo_tensor in the example)
    adj_mat[torch.from_numpy(edges[:, 0]).long(), torch.from_numpy(edges[:, 1]).long()] = 1
    adj_mat = torch.eye(V) + adj_mat # Add self-loops to the adjacency matrix
    return features.to(device), labels.to(device), adj_mat.to(device)


def train_iter(epoch, model, optimizer, criterion, input, target, mask_train, mask_val, print_every=10):
    start_t = time.time()
    model.train()
    optimizer.zero_grad()

    # Forward pass
    output = model(*input)
    loss = criterion(output[mask_train], target[mask_train]) # Compute the loss using the training mask

    loss.backward()
    optimizer.step()

    # Evaluate the model performance on training and validation sets
    loss_train, acc_train = test(model, criterion, input, target, mask_train)
    loss_val, acc_val = test(model, criterion, input, target, mask_val)

    if epoch % print_every == 0:
        # Print the training progress at specified intervals
        print(f'Epoch: {epoch:04d} ({(time.time() - start_t):.4f}s) loss_train: {loss_train:.4f} acc_train: {acc_train:.4f} loss_val: {loss_val:.4f} acc_val: {acc_val:.4f}')
    return loss_val, acc_val


def test(model, criterion, input, target, mask):
    model.eval()
    with torch.no_grad():
        output = model(*input)
        output, target = output[mask], target[mask]

        loss = criterion(output, target)
        acc = (output.argmax(dim=1) == target).float().sum() / len(target)
    return loss.item(), acc.item()


torch.manual_seed(13)
device = torch.device('cpu')
features, labels, adj_mat = load_graph(device=device)
assert adj_mat.dtype == torch.float32 and bool((adj_mat.diagonal() >= 1).all())  # self-loops
assert torch.allclose(features.sum(1)[features.sum(1) > 0], torch.ones(int((features.sum(1) > 0).sum())))

idx = torch.randperm(len(labels)).to(device)
idx_test, idx_val, idx_train = idx[:40], idx[40:60], idx[60:]

# one layer by hand: masked neighbours get exactly zero attention
layer = GraphAttentionLayer(30, 8, n_heads=2, concat=True, dropout=0.0)
with torch.no_grad():
    out = layer(features, adj_mat)
    ht = torch.mm(features, layer.W).view(120, 2, 4).permute(1, 0, 2)
    e = layer._get_attention_scores(ht)
    att = F.softmax(torch.where(adj_mat > 0, e, -9e16 * torch.ones_like(e)), dim=-1)
assert out.shape == (120, 8)
assert bool((att[:, adj_mat == 0] == 0).all())
assert torch.allclose(out, (att @ ht).permute(1, 0, 2).reshape(120, 8), atol=1e-6)

gat_net = GAT(
    in_features=features.shape[1],          # Number of input features per node
    n_hidden=16,                            # Output size of the first Graph Attention Layer
    n_heads=4,                              # Number of attention heads in the first Graph Attention Layer
    num_classes=labels.max().item() + 1,    # Number of classes to predict for each node
    concat=False,                           # Wether to concatinate attention heads
    dropout=0.6,                            # Dropout rate
    leaky_relu_slope=0.2                    # Alpha (slope) of the leaky relu activation
).to(device)

# configure the optimizer and loss function
optimizer = Adam(gat_net.parameters(), lr=0.01, weight_decay=5e-4)
criterion = nn.NLLLoss()

history = []
for epoch in range(60):
    history.append(train_iter(epoch + 1, gat_net, optimizer, criterion, (features, adj_mat), labels, idx_train, idx_val, 20))
loss_test, acc_test = test(gat_net, criterion, (features, adj_mat), labels, idx_test)
print(f'Test set results: loss {loss_test:.4f} accuracy {acc_test:.4f}')
assert history[-1][0] < history[0][0]
assert acc_test >= 0.8
