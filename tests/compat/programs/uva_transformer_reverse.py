"""UvA Deep Learning tutorial 6 (Transformers and multi-head attention): the seeding preamble
(torch.manual_seed, torch.cuda.manual_seed_all, torch.backends.cudnn.deterministic/benchmark),
scaled_dot_product with masked_fill(mask == 0, -9e15), MultiheadAttention by one qkv_proj with
reshape/permute/chunk(3, dim=-1) and xavier_uniform_/bias.data.fill_(0), EncoderBlock and
TransformerEncoder with get_attention_maps, PositionalEncoding with register_buffer(persistent=
False), a CosineWarmupScheduler subclassing optim.lr_scheduler._LRScheduler, and the
sequence-reversal task with F.one_hot(...).float() inputs and torch.flip targets."""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
import torch.utils.data as data

torch.manual_seed(42)
if torch.cuda.is_available():
    torch.cuda.manual_seed(42)
    torch.cuda.manual_seed_all(42)
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
device = torch.device("cuda:0") if torch.cuda.is_available() else torch.device("cpu")


def scaled_dot_product(q, k, v, mask=None):
    d_k = q.size()[-1]
    attn_logits = torch.matmul(q, k.transpose(-2, -1))
    attn_logits = attn_logits / math.sqrt(d_k)
    if mask is not None:
        attn_logits = attn_logits.masked_fill(mask == 0, -9e15)
    attention = F.softmax(attn_logits, dim=-1)
    values = torch.matmul(attention, v)
    return values, attention


seq_len, d_k = 3, 2
q = torch.randn(seq_len, d_k)
k = torch.randn(seq_len, d_k)
v = torch.randn(seq_len, d_k)
values, attention = scaled_dot_product(q, k, v)
assert torch.allclose(values, F.scaled_dot_product_attention(q[None], k[None], v[None])[0], atol=1e-6)


def expand_mask(mask):
    assert mask.ndim >= 2, "Mask must be at least 2-dimensional with seq_length x seq_length"
    if mask.ndim == 3:
        mask = mask.unsqueeze(1)
    while mask.ndim < 4:
        mask = mask.unsqueeze(0)
    return mask


class MultiheadAttention(nn.Module):
    def __init__(self, input_dim, embed_dim, num_heads):
        super().__init__()
        assert embed_dim % num_heads == 0, "Embedding dimension must be 0 modulo number of heads."
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.qkv_proj = nn.Linear(input_dim, 3 * embed_dim)
        self.o_proj = nn.Linear(embed_dim, embed_dim)
        self._reset_parameters()

    def _reset_parameters(self):
        nn.init.xavier_uniform_(self.qkv_proj.weight)
        self.qkv_proj.bias.data.fill_(0)
        nn.init.xavier_uniform_(self.o_proj.weight)
        self.o_proj.bias.data.fill_(0)

    def forward(self, x, mask=None, return_attention=False):
        batch_size, seq_length, _ = x.size()
        if mask is not None:
            mask = expand_mask(mask)
        qkv = self.qkv_proj(x)
        qkv = qkv.reshape(batch_size, seq_length, self.num_heads, 3 * self.head_dim)
        qkv = qkv.permute(0, 2, 1, 3)
        q, k, v = qkv.chunk(3, dim=-1)
        values, attention = scaled_dot_product(q, k, v, mask=mask)
        values = values.permute(0, 2, 1, 3)
        values = values.reshape(batch_size, seq_length, self.embed_dim)
        o = self.o_proj(values)
        if return_attention:
            return o, attention
        return o


class EncoderBlock(nn.Module):
    def __init__(self, input_dim, num_heads, dim_feedforward, dropout=0.0):
        super().__init__()
        self.self_attn = MultiheadAttention(input_dim, input_dim, num_heads)
        self.linear_net = nn.Sequential(
            nn.Linear(input_dim, dim_feedforward),
            nn.Dropout(dropout),
            nn.ReLU(inplace=True),
            nn.Linear(dim_feedforward, input_dim),
        )
        self.norm1 = nn.LayerNorm(input_dim)
        self.norm2 = nn.LayerNorm(input_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        attn_out = self.self_attn(x, mask=mask)
        x = x + self.dropout(attn_out)
        x = self.norm1(x)
        linear_out = self.linear_net(x)
        x = x + self.dropout(linear_out)
        x = self.norm2(x)
        return x


class TransformerEncoder(nn.Module):
    def __init__(self, num_layers, **block_args):
        super().__init__()
        self.layers = nn.ModuleList([EncoderBlock(**block_args) for _ in range(num_layers)])

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask=mask)
        return x

    def get_attention_maps(self, x, mask=None):
        attention_maps = []
        for layer in self.layers:
            _, attn_map = layer.self_attn(x, mask=mask, return_attention=True)
            attention_maps.append(attn_map)
            x = layer(x)
        return attention_maps


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000):
        super().__init__()
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0)
        self.register_buffer("pe", pe, persistent=False)

    def forward(self, x):
        x = x + self.pe[:, : x.size(1)]
        return x


class CosineWarmupScheduler(optim.lr_scheduler._LRScheduler):
    def __init__(self, optimizer, warmup, max_iters):
        self.warmup = warmup
        self.max_num_iters = max_iters
        super().__init__(optimizer)

    def get_lr(self):
        lr_factor = self.get_lr_factor(epoch=self.last_epoch)
        return [base_lr * lr_factor for base_lr in self.base_lrs]

    def get_lr_factor(self, epoch):
        lr_factor = 0.5 * (1 + np.cos(np.pi * epoch / self.max_num_iters))
        if epoch <= self.warmup:
            lr_factor *= epoch * 1.0 / self.warmup
        return lr_factor


class ReverseDataset(data.Dataset):
    def __init__(self, num_categories, seq_len, size):
        super().__init__()
        self.num_categories = num_categories
        self.seq_len = seq_len
        self.size = size
        self.data = torch.randint(self.num_categories, size=(self.size, self.seq_len))

    def __len__(self):
        return self.size

    def __getitem__(self, idx):
        inp_data = self.data[idx]
        labels = torch.flip(inp_data, dims=(0,))
        return inp_data, labels


class ReversePredictor(nn.Module):
    def __init__(self, input_dim, model_dim, num_classes, num_heads, num_layers):
        super().__init__()
        self.num_classes = num_classes
        self.input_net = nn.Sequential(nn.Dropout(0.0), nn.Linear(input_dim, model_dim))
        self.positional_encoding = PositionalEncoding(d_model=model_dim)
        self.transformer = TransformerEncoder(num_layers=num_layers, input_dim=model_dim,
                                              dim_feedforward=2 * model_dim, num_heads=num_heads)
        self.output_net = nn.Sequential(
            nn.Linear(model_dim, model_dim), nn.LayerNorm(model_dim), nn.ReLU(inplace=True),
            nn.Linear(model_dim, num_classes))

    def forward(self, x, mask=None, add_positional_encoding=True):
        x = self.input_net(x)
        if add_positional_encoding:
            x = self.positional_encoding(x)
        x = self.transformer(x, mask=mask)
        return self.output_net(x)


dataset = ReverseDataset(num_categories=6, seq_len=8, size=512)
train_loader = data.DataLoader(dataset, batch_size=32, shuffle=True, drop_last=True)
inp_data, labels = next(iter(train_loader))
assert torch.equal(labels[:, 0], inp_data[:, -1])
model = ReversePredictor(input_dim=6, model_dim=32, num_classes=6, num_heads=2, num_layers=1).to(device)
assert 'positional_encoding.pe' not in model.state_dict()
optimizer = optim.Adam(model.parameters(), lr=3e-3)
lr_scheduler = CosineWarmupScheduler(optimizer, warmup=10, max_iters=250)
lrs, accs = [], []
for epoch in range(10):
    for inp_data, labels in train_loader:
        inp_data = F.one_hot(inp_data, num_classes=model.num_classes).float()
        preds = model(inp_data, add_positional_encoding=True)
        loss = F.cross_entropy(preds.view(-1, preds.size(-1)), labels.view(-1))
        acc = (preds.argmax(dim=-1) == labels).float().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        lr_scheduler.step()
        lrs.append(optimizer.param_groups[0]['lr'])
        accs.append(acc.item())
print(f"accuracy {np.mean(accs[:10]):.2f} -> {np.mean(accs[-10:]):.2f}")
assert np.mean(accs[-10:]) > 0.8
assert lrs[0] < lrs[9] and lrs[-1] < lrs[20]
attention_maps = model.transformer.get_attention_maps(
    model.positional_encoding(model.input_net(F.one_hot(dataset.data[:2], num_classes=6).float())))
assert attention_maps[0].shape == (2, 2, 8, 8)
assert torch.allclose(attention_maps[0].sum(-1), torch.ones(2, 2, 8))
mask = torch.tril(torch.ones(8, 8))
_, att = model.transformer.layers[0].self_attn(torch.randn(2, 8, 32), mask=mask, return_attention=True)
assert att[..., 0, 1:].abs().max() == 0
