"""Variable-length sequences with a custom collate_fn that pads by hand (torch.zeros + slice
assignment) and returns lengths; the padded batch feeds an embedding and a masked mean."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class Sentences(Dataset):
    def __init__(self):
        g = torch.Generator().manual_seed(0)
        self.items = [torch.randint(1, 50, (int(n),), generator=g)
                      for n in torch.randint(2, 9, (13,), generator=g)]
        self.labels = [len(s) % 2 for s in self.items]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i], self.labels[i]


def collate_batch(batch):
    seqs, labels = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs])
    padded = torch.zeros(len(seqs), int(lengths.max()), dtype=torch.long)
    for i, s in enumerate(seqs):
        padded[i, :len(s)] = s
    return padded, lengths, torch.tensor(labels)


emb = nn.Embedding(50, 6, padding_idx=0)
loader = DataLoader(Sentences(), batch_size=4, shuffle=False, collate_fn=collate_batch)
batches = 0
for padded, lengths, labels in loader:
    mask = (padded != 0).unsqueeze(-1).float()
    mean = (emb(padded) * mask).sum(1) / lengths.unsqueeze(1).float()
    assert mean.shape == (padded.shape[0], 6)
    assert torch.equal(mask.squeeze(-1).sum(1).long(), lengths)
    batches += 1
assert batches == 4
assert torch.equal(emb.weight[0], torch.zeros(6))
