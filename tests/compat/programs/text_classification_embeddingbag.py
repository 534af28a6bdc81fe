"""The text-classification tutorial's model: nn.EmbeddingBag(vocab, dim, sparse=False) over a flat
token tensor with offsets (torch.tensor(offsets[:-1]).cumsum(dim=0)), init_weights with uniform_,
trained with SGD and clip_grad_norm_."""
import torch
from torch import nn


class TextClassificationModel(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_class):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=False)
        self.fc = nn.Linear(embed_dim, num_class)
        self.init_weights()

    def init_weights(self):
        initrange = 0.5
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.fc.weight.data.uniform_(-initrange, initrange)
        self.fc.bias.data.zero_()

    def forward(self, text, offsets):
        return self.fc(self.embedding(text, offsets))


torch.manual_seed(0)
vocab_size, num_class = 30, 2
texts = [torch.randint(0, 15, (n,)) if i % 2 else torch.randint(15, 30, (n,))
         for i, n in enumerate(torch.randint(3, 9, (40,)).tolist())]
labels = torch.tensor([i % 2 for i in range(40)])
offsets = [0] + [len(t) for t in texts]
offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
text = torch.cat(texts)
model = TextClassificationModel(vocab_size, 8, num_class)
criterion = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=5)
for epoch in range(20):
    optimizer.zero_grad()
    predicted_label = model(text, offsets)
    loss = criterion(predicted_label, labels)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
    optimizer.step()
acc = (predicted_label.argmax(1) == labels).sum().item() / labels.size(0)
assert predicted_label.shape == (40, 2) and acc > 0.8
