"""A transformer-encoder sequence classifier as tutorials build it: nn.Embedding + a learned
positional nn.Parameter, nn.TransformerEncoderLayer(batch_first=True), nn.TransformerEncoder,
mean pooling, and a key padding mask."""
import torch
import torch.nn as nn

torch.manual_seed(0)


class Classifier(nn.Module):
    def __init__(self, vocab=20, d_model=16, nhead=2, num_layers=2, num_classes=2, max_len=12):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model, padding_idx=0)
        self.pos = nn.Parameter(torch.zeros(1, max_len, d_model))
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=32, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=num_layers)
        self.head = nn.Linear(d_model, num_classes)

    def forward(self, tokens):
        pad = tokens == 0
        h = self.embed(tokens) + self.pos[:, :tokens.size(1)]
        h = self.encoder(h, src_key_padding_mask=pad)
        h = h.masked_fill(pad.unsqueeze(-1), 0).sum(1) / (~pad).sum(1, keepdim=True)
        return self.head(h)


tokens = torch.randint(1, 20, (32, 12))
tokens[:, 9:] = 0
labels = (tokens[:, 0] > 10).long()
model = Classifier()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(40):
    loss = nn.functional.cross_entropy(model(tokens), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
acc = (model(tokens).argmax(-1) == labels).float().mean()
assert acc > 0.9, acc
