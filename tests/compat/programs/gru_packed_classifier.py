"""Classify variable-length token sequences: Embedding -> bidirectional 2-layer GRU over a
PackedSequence (pad_sequence + pack_padded_sequence, unsorted lengths) -> Linear on the final
hidden states; the usual recipe from RNN text-classification tutorials."""
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

torch.manual_seed(0)
VOCAB, CLASSES = 12, 2
# class 1: sequences containing token 3; lengths differ from one sequence to the next
seqs, labels = [], []
for i in range(24):
    n = 3 + i % 5
    s = torch.randint(4, VOCAB, (n,))
    if i % 2:
        s[i % n] = 3
    seqs.append(s)
    labels.append(i % 2)
labels = torch.tensor(labels)
lengths = torch.tensor([len(s) for s in seqs])


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 8, padding_idx=0)
        self.rnn = nn.GRU(8, 16, num_layers=2, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * 16, CLASSES)

    def forward(self, tokens, lengths):
        packed = pack_padded_sequence(self.embed(tokens), lengths, batch_first=True,
                                      enforce_sorted=False)
        out, h_n = self.rnn(packed)
        padded, out_lengths = pad_packed_sequence(out, batch_first=True)
        assert out_lengths.tolist() == lengths.tolist()
        assert padded.shape == (tokens.shape[0], int(lengths.max()), 32)
        final = torch.cat([h_n[-2], h_n[-1]], dim=1)     # last layer, both directions
        return self.head(final)


model = Classifier()
tokens = pad_sequence(seqs, batch_first=True, padding_value=0)
optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
loss_fn = nn.CrossEntropyLoss()
losses = []
for step in range(40):
    optimizer.zero_grad()
    loss = loss_fn(model(tokens, lengths), labels)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
print(f"loss {losses[0]:.3f} -> {losses[-1]:.3f}")
assert losses[-1] < 0.5 * losses[0]
accuracy = (model(tokens, lengths).argmax(1) == labels).float().mean().item()
print("accuracy", accuracy)
assert accuracy > 0.9
assert list(model.rnn.state_dict())[:4] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0",
                                            "bias_hh_l0"]
