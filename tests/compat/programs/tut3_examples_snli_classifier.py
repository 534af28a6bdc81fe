"""pytorch/examples snli (model.py, with train.py's loop), without torchtext: a generated
premise/hypothesis corpus stands in for SNLI. The Bottle mixin whose forward folds (T, B, F)
into (T*B, F) around super(Bottle, self).forward, class Linear(Bottle, nn.Linear), the Encoder
(nn.LSTM, bidirectional, h0 = c0 = inputs.new_zeros(state_shape), ht[-2:].transpose(0, 1)
.contiguous().view(batch_size, -1)), SNLIClassifier (embedding, fix_emb detach, a ReLU
projection, the nn.Sequential of Linear/ReLU/Dropout built from lin_config), and the training
loop's n_correct += (torch.max(answer, 1)[1].view(batch.label.size()) == batch.label).sum()
.item() with Adam and CrossEntropyLoss."""
import random
from types import SimpleNamespace

import torch
import torch.nn as nn


class Bottle(nn.Module):

    def forward(self, input):
        if len(input.size()) <= 2:
            return super(Bottle, self).forward(input)
        size = input.size()[:2]
        out = super(Bottle, self).forward(input.view(size[0]*size[1], -1))
        return out.view(size[0], size[1], -1)


class Linear(Bottle, nn.Linear):
    pass


class Encoder(nn.Module):

    def __init__(self, config):
        super(Encoder, self).__init__()
        self.config = config
        input_size = config.d_proj if config.projection else config.d_embed
        dropout = 0 if config.n_layers == 1 else config.dp_ratio
        self.rnn = nn.LSTM(input_size=input_size, hidden_size=config.d_hidden,
                        num_layers=config.n_layers, dropout=dropout,
                        bidirectional=config.birnn)

    def forward(self, inputs):
        batch_size = inputs.size()[1]
        state_shape = self.config.n_cells, batch_size, self.config.d_hidden
        h0 = c0 =  inputs.new_zeros(state_shape)
        outputs, (ht, ct) = self.rnn(inputs, (h0, c0))
        return ht[-1] if not self.config.birnn else ht[-2:].transpose(0, 1).contiguous().view(batch_size, -1)


class SNLIClassifier(nn.Module):

    def __init__(self, config):
        super(SNLIClassifier, self).__init__()
        self.config = config
        self.embed = nn.Embedding(config.n_embed, config.d_embed)
        self.projection = Linear(config.d_embed, config.d_proj)
        self.encoder = Encoder(config)
        self.dropout = nn.Dropout(p=config.dp_ratio)
        self.relu = nn.ReLU()
        seq_in_size = 2*config.d_hidden
        if self.config.birnn:
            seq_in_size *= 2
        lin_config = [seq_in_size]*2
        self.out = nn.Sequential(
            Linear(*lin_config),
            self.relu,
            self.dropout,
            Linear(*lin_config),
            self.relu,
            self.dropout,
            Linear(*lin_config),
            self.relu,
            self.dropout,
            Linear(seq_in_size, config.d_out))

    def forward(self, batch):
        prem_embed = self.embed(batch.premise)
        hypo_embed = self.embed(batch.hypothesis)
        if self.config.fix_emb:
            prem_embed =prem_embed.detach()
            hypo_embed =hypo_embed.detach()
        if self.config.projection:
            prem_embed = self.relu(self.projection(prem_embed))
            hypo_embed = self.relu(self.projection(hypo_embed))
        premise = self.encoder(prem_embed)
        hypothesis = self.encoder(hypo_embed)
        scores = self.out(torch.cat([premise, hypothesis], 1))
        return scores


random.seed(0)
torch.manual_seed(0)

# the Bottle: a 3-D input goes through the Linear as (T*B, F) and comes back 3-D
lin = Linear(5, 3)
x3 = torch.randn(4, 2, 5)
assert lin(x3).shape == (4, 2, 3)
assert torch.allclose(lin(x3), nn.functional.linear(x3, lin.weight, lin.bias), atol=1e-6)
assert lin(torch.randn(2, 5)).shape == (2, 3) and isinstance(lin, nn.Linear)

config = SimpleNamespace(n_embed=12, d_embed=16, d_proj=16, projection=True, d_hidden=16,
                         n_layers=1, dp_ratio=0.1, birnn=True, d_out=3, fix_emb=False)
config.n_cells = config.n_layers
if config.birnn:
    config.n_cells *= 2


def make_example():
    """label 0: the hypothesis repeats the premise (entailment); 1: unrelated (neutral);
    2: the premise reversed (contradiction, in this toy world)."""
    premise = [random.randrange(2, 12) for _ in range(5)]
    label = random.randrange(3)
    if label == 0:
        hypothesis = list(premise)
    elif label == 1:
        hypothesis = [random.randrange(2, 12) for _ in range(5)]
    else:
        hypothesis = premise[::-1]
    return premise, hypothesis, label


def batches(examples, batch_size):
    for i in range(0, len(examples), batch_size):
        chunk = examples[i:i + batch_size]
        yield SimpleNamespace(premise=torch.tensor([p for p, _, _ in chunk]).t(),
                              hypothesis=torch.tensor([h for _, h, _ in chunk]).t(),
                              label=torch.tensor([lb for _, _, lb in chunk]))


train_set = [make_example() for _ in range(384)]
dev_set = [make_example() for _ in range(96)]

model = SNLIClassifier(config)
criterion = nn.CrossEntropyLoss()
opt = torch.optim.Adam(model.parameters(), lr=0.003)

probe = next(batches(dev_set, 8))
assert model.encoder(model.embed(probe.premise)).shape == (8, 4 * config.d_hidden // 2)
assert model(probe).shape == (8, 3)

for epoch in range(12):
    model.train()
    n_correct, n_total = 0, 0
    for batch_idx, batch in enumerate(batches(train_set, 32)):
        # switch model to training mode, clear gradient accumulators
        model.train(); opt.zero_grad()

        # forward pass
        answer = model(batch)

        # calculate accuracy of predictions in the current batch
        n_correct += (torch.max(answer, 1)[1].view(batch.label.size()) == batch.label).sum().item()
        n_total += batch.batch_size if hasattr(batch, "batch_size") else batch.label.size(0)
        train_acc = 100. * n_correct/n_total

        # calculate loss of the network output with respect to training labels
        loss = criterion(answer, batch.label)

        # backpropagate and update optimizer learning rate
        loss.backward(); opt.step()

    # switch model to evaluation mode
    model.eval()
    with torch.no_grad():
        n_dev_correct, dev_loss = 0, 0
        for dev_batch_idx, dev_batch in enumerate(batches(dev_set, 32)):
            answer = model(dev_batch)
            n_dev_correct += (torch.max(answer, 1)[1].view(dev_batch.label.size()) == dev_batch.label).sum().item()
            dev_loss = criterion(answer, dev_batch.label)
    dev_acc = 100. * n_dev_correct / len(dev_set)
    print(f"epoch {epoch}: train acc {train_acc:.1f} dev acc {dev_acc:.1f}")

assert dev_acc > 85  # 20.8 after the first epoch

# fix_emb: the detached embeddings get no gradient
config.fix_emb = True
model.zero_grad()
criterion(model(probe), probe.label).backward()
assert model.embed.weight.grad is None
assert model.projection.weight.grad is not None
