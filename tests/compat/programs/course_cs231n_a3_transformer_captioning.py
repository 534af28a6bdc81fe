"""Stanford CS231n assignment 3, Transformer_Captioning.ipynb with students' completed
cs231n/transformer_layers.py (PositionalEncoding, MultiHeadAttention) and
cs231n/classifiers/transformer.py (CaptioningTransformer, TransformerDecoderLayer,
TransformerDecoder with clones()), as found in solutions on GitHub, on synthetic 'image features'
and captions instead of the COCO files, and a plain Adam loop standing in for
CaptioningSolverTransformer. The idioms: pe[0, :, 0::2] = torch.sin(position * div_term) into a
registered buffer, torch.empty((N, S, E)) placeholders overwritten, q.view(...).transpose(1, 2),
scores.masked_fill(attn_mask == 0, float('-inf')) with a (S, T) mask broadcast to (N, H, S, T),
the notebook's mask torch.randn(T, T) < 0.5, module.weight.data.normal_(mean=0.0, std=0.02) in
self.apply(_init_weights) (before self.output exists), nn.Embedding(padding_idx=...),
torch.tril(torch.ones(T, T, device=..., dtype=...)) as tgt_mask, sample() doing torch.Tensor of
a float64 array, self._null * np.ones(..., dtype=np.int32), torch.LongTensor of an int32 array,
torch.argmax(..., axis=1) and captions[:, t] = word.numpy(); the temporal softmax loss with
F.cross_entropy(reduction='none') times the mask."""
import copy
import math

import numpy as np
import torch
import torch.nn as nn
from torch.nn import functional as F

# ---------------------------------------------------------------- cs231n/transformer_layers.py
class PositionalEncoding(nn.Module):
    def __init__(self, embed_dim, dropout=0.1, max_len=5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        assert embed_dim % 2 == 0
        pe = torch.zeros(1, max_len, embed_dim)

        position = torch.arange(max_len).unsqueeze(1).float()
        div_term = torch.exp(torch.arange(0, embed_dim, 2).float() * (-math.log(10000.0) / embed_dim))

        pe[0, :, 0::2] = torch.sin(position * div_term)
        pe[0, :, 1::2] = torch.cos(position * div_term)

        self.register_buffer('pe', pe)

    def forward(self, x):
        N, S, D = x.shape
        output = torch.empty((N, S, D))
        output = x + self.pe[:, :S]
        output = self.dropout(output)
        return output

class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.1):
        super().__init__()
        assert embed_dim % num_heads == 0

        self.key = nn.Linear(embed_dim, embed_dim)
        self.query = nn.Linear(embed_dim, embed_dim)
        self.value = nn.Linear(embed_dim, embed_dim)
        self.proj = nn.Linear(embed_dim, embed_dim)

        self.attn_drop = nn.Dropout(dropout)

        self.n_head = num_heads
        self.emd_dim = embed_dim
        self.head_dim = self.emd_dim // self.n_head

    def forward(self, query, key, value, attn_mask=None):
        N, S, E = query.shape
        N, T, E = value.shape
        # Create a placeholder, to be overwritten by your code below.
        output = torch.empty((N, S, E))
        q = self.query(query)
        k = self.key(key)
        v = self.value(value)

        q = q.view(N, S, self.n_head, self.head_dim).transpose(1, 2)
        k = k.view(N, T, self.n_head, self.head_dim).transpose(1, 2)
        v = v.view(N, T, self.n_head, self.head_dim).transpose(1, 2)

        scores = torch.matmul(q, k.transpose(-2, -1))
        scores = scores / (self.head_dim ** 0.5)

        if attn_mask is not None:
            scores = scores.masked_fill(attn_mask == 0, float('-inf'))

        attn_weights = torch.softmax(scores, dim=-1)
        attn_weights = self.attn_drop(attn_weights)

        context = torch.matmul(attn_weights, v)

        context = context.transpose(1, 2).contiguous().view(N, S, E)

        output = self.proj(context)
        return output

# ---------------------------------------------------------------- cs231n/classifiers/transformer.py
class CaptioningTransformer(nn.Module):
    def __init__(self, word_to_idx, input_dim, wordvec_dim, num_heads=4,
                 num_layers=2, max_length=50):
        super().__init__()

        vocab_size = len(word_to_idx)
        self._null = word_to_idx["<NULL>"]
        self._start = word_to_idx.get("<START>", None)
        self._end = word_to_idx.get("<END>", None)

        self.visual_projection = nn.Linear(input_dim, wordvec_dim)
        self.embedding = nn.Embedding(vocab_size, wordvec_dim, padding_idx=self._null)
        self.positional_encoding = PositionalEncoding(wordvec_dim, max_len=max_length)

        decoder_layer = TransformerDecoderLayer(input_dim=wordvec_dim, num_heads=num_heads)
        self.transformer = TransformerDecoder(decoder_layer, num_layers=num_layers)
        self.apply(self._init_weights)

        self.output = nn.Linear(wordvec_dim, vocab_size)

    def _init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            module.weight.data.normal_(mean=0.0, std=0.02)
            if isinstance(module, nn.Linear) and module.bias is not None:
                module.bias.data.zero_()
        elif isinstance(module, nn.LayerNorm):
            module.bias.data.zero_()
            module.weight.data.fill_(1.0)

    def forward(self, features, captions):
        N, T = captions.shape

        caption_embeddings = self.embedding(captions)
        caption_embeddings = self.positional_encoding(caption_embeddings)

        projected_features = self.visual_projection(features).unsqueeze(1)

        tgt_mask = torch.tril(torch.ones(T, T,
                                         device=caption_embeddings.device,
                                         dtype=caption_embeddings.dtype))

        features = self.transformer(tgt=caption_embeddings,
                                    memory=projected_features,
                                    tgt_mask=tgt_mask)

        scores = self.output(features)

        return scores

    def sample(self, features, max_length=30):
        with torch.no_grad():
            features = torch.Tensor(features)
            N = features.shape[0]

            # Create an empty captions tensor (where all tokens are NULL).
            captions = self._null * np.ones((N, max_length), dtype=np.int32)

            # Create a partial caption, with only the start token.
            partial_caption = self._start * np.ones(N, dtype=np.int32)
            partial_caption = torch.LongTensor(partial_caption)
            # [N] -> [N, 1]
            partial_caption = partial_caption.unsqueeze(1)

            for t in range(max_length):

                # Predict the next token (ignoring all other time steps).
                output_logits = self.forward(features, partial_caption)
                output_logits = output_logits[:, -1, :]

                # Choose the most likely word ID from the vocabulary.
                # [N, V] -> [N]
                word = torch.argmax(output_logits, axis=1)

                # Update our overall caption and our current partial caption.
                captions[:, t] = word.numpy()
                word = word.unsqueeze(1)
                partial_caption = torch.cat([partial_caption, word], dim=1)

            return captions


class TransformerDecoderLayer(nn.Module):
    def __init__(self, input_dim, num_heads, dim_feedforward=2048, dropout=0.1):
        super().__init__()
        self.self_attn = MultiHeadAttention(input_dim, num_heads, dropout)
        self.multihead_attn = MultiHeadAttention(input_dim, num_heads, dropout)
        self.linear1 = nn.Linear(input_dim, dim_feedforward)
        self.dropout = nn.Dropout(dropout)
        self.linear2 = nn.Linear(dim_feedforward, input_dim)

        self.norm1 = nn.LayerNorm(input_dim)
        self.norm2 = nn.LayerNorm(input_dim)
        self.norm3 = nn.LayerNorm(input_dim)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)
        self.dropout3 = nn.Dropout(dropout)

        self.activation = nn.ReLU()


    def forward(self, tgt, memory, tgt_mask=None):
        tgt2 = self.self_attn(query=tgt, key=tgt, value=tgt, attn_mask=tgt_mask)
        tgt = tgt + self.dropout1(tgt2)
        tgt = self.norm1(tgt)

        tgt2 = self.multihead_attn(query=tgt, key=memory, value=memory)
        tgt = tgt + self.dropout2(tgt2)
        tgt = self.norm2(tgt)

        tgt2 = self.linear2(self.dropout(self.activation(self.linear1(tgt))))
        tgt = tgt + self.dropout3(tgt2)
        tgt = self.norm3(tgt)
        return tgt

def clones(module, N):
    "Produce N identical layers."
    return nn.ModuleList([copy.deepcopy(module) for _ in range(N)])

class TransformerDecoder(nn.Module):
    def __init__(self, decoder_layer, num_layers):
        super().__init__()
        self.layers = clones(decoder_layer, num_layers)
        self.num_layers = num_layers

    def forward(self, tgt, memory, tgt_mask=None):
        output = tgt

        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask)

        return output

def rel_error(x, y):
    """ returns relative error """
    return np.max(np.abs(x - y) / (np.maximum(1e-8, np.abs(x) + np.abs(y))))

def transformer_temporal_softmax_loss(x, y, mask):
    N, T, V = x.shape

    x_flat = x.reshape(N * T, V)
    y_flat = y.reshape(N * T)
    mask_flat = mask.reshape(N * T)

    loss = torch.nn.functional.cross_entropy(x_flat,  y_flat, reduction='none')
    loss = torch.mul(loss, mask_flat)
    loss = torch.mean(loss)

    return loss

# ---------------------------------------------------------------- the notebook's checks
torch.manual_seed(231)
np.random.seed(231)

batch_size = 1
sequence_length = 3
embed_dim = 8
attn = MultiHeadAttention(embed_dim, num_heads=2)

# Self-attention.
data = torch.randn(batch_size, sequence_length, embed_dim)
self_attn_output = attn(query=data, key=data, value=data)

# Masked self-attention.
mask = torch.randn(sequence_length, sequence_length) < 0.5
masked_self_attn_output = attn(query=data, key=data, value=data, attn_mask=mask)

# Attention using two inputs.
other_data = torch.randn(batch_size, sequence_length, embed_dim)
attn_output = attn(query=data, key=other_data, value=other_data)
print(mask)
print(self_attn_output.shape, masked_self_attn_output.shape, attn_output.shape)
print(torch.isfinite(masked_self_attn_output).all() or 'a row fully masked gives nan')

attn.eval()
with torch.no_grad():
    full = attn(query=data, key=data, value=data)
    ones = attn(query=data, key=data, value=data, attn_mask=torch.ones(3, 3))
print('mask of ones changes nothing: ', rel_error(full.numpy(), ones.numpy()) < 1e-6)

batch_size = 1
sequence_length = 2
embed_dim = 6
data = torch.randn(batch_size, sequence_length, embed_dim)

pos_encoder = PositionalEncoding(embed_dim)
output = pos_encoder(data)
pos_encoder.eval()
print(pos_encoder.pe[0, :3])
assert torch.allclose(pos_encoder(data), data + pos_encoder.pe[:, :2])

torch.manual_seed(231)
np.random.seed(231)

N, D, W = 4, 20, 30
word_to_idx = {'<NULL>': 0, 'cat': 2, 'dog': 3}
V = len(word_to_idx)
T = 3

transformer = CaptioningTransformer(
    word_to_idx,
    input_dim=D,
    wordvec_dim=W,
    num_heads=2,
    num_layers=2,
    max_length=30
)

features = torch.randn(N, D)
captions = torch.randint(0, V, (N, T))  # 0..V-1: 3 ids for a vocab whose max id is 3

scores = transformer(features, captions)
print(scores.shape)
print(transformer.output.weight.std().item() > 0.02, transformer.embedding.weight[0].abs().sum().item() > 0)

# ---------------------------------------------------------------- a toy overfit run
torch.manual_seed(231)
np.random.seed(231)
vocab = ['<NULL>', '<START>', '<END>'] + ['w%d' % i for i in range(9)]
word_to_idx = {w: i for i, w in enumerate(vocab)}
num_images, D, T = 16, 12, 6
image_features = np.random.randn(num_images, D)
caps = np.zeros((num_images, T + 1), dtype=np.int64)
for i in range(num_images):
    words = 3 + (np.argsort(image_features[i])[:4] % 9)
    caps[i] = [1] + list(words) + [2] + [0]

model = CaptioningTransformer(word_to_idx, input_dim=D, wordvec_dim=32, num_heads=4,
                              num_layers=2, max_length=30)
optim = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_history = []
for it in range(60):
    idx = np.random.choice(num_images, 8)
    captions = torch.from_numpy(caps[idx])
    features = torch.from_numpy(image_features[idx]).float()
    captions_in = captions[:, :-1]
    captions_out = captions[:, 1:]
    mask = captions_out != model._null
    logits = model(features, captions_in)
    loss = transformer_temporal_softmax_loss(logits, captions_out, mask)
    loss_history.append(loss.item())
    optim.zero_grad()
    loss.backward()
    optim.step()
    if it % 20 == 0:
        print('(Iteration %d / %d) loss: %f' % (it + 1, 60, loss_history[-1]))
assert loss_history[-1] < loss_history[0]

model.eval()
sample_captions = model.sample(image_features[:4], max_length=T)
print(sample_captions.dtype, sample_captions.shape)
print([' '.join(vocab[i] for i in row) for row in sample_captions])
assert sample_captions.dtype == np.int32
