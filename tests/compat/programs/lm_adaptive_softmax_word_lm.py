"""A word-level LSTM language model with an adaptive softmax head, as lecture notebooks on large
vocabularies build it (the Grave et al. adaptive softmax through nn.AdaptiveLogSoftmaxWithLoss,
beside the pytorch/examples word_language_model RNNModel): a Zipf-distributed synthetic corpus
batchified with data.narrow(0, 0, nbatch * bsz).view(bsz, -1).t().contiguous(), get_batch with
source[i:i + seq_len] and target.reshape(-1), hidden states repackaged by detach() between BPTT
windows, the head's (output, loss) namedtuple, perplexity math.exp(loss), asm.log_prob(x) summing
to one over the vocabulary, asm.predict(x) against log_prob(x).argmax(1), and the same model with a
full nn.Linear + F.cross_entropy for comparison; the cutoffs validation error."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
ntokens = 200
# Zipf-like unigram distribution with a deterministic successor structure so the LSTM has
# something to learn: after word w comes (w * 7 + 3) % ntokens half of the time
ranks = torch.arange(1, ntokens + 1, dtype=torch.float)
unigram = (1.0 / ranks) / (1.0 / ranks).sum()
g = torch.Generator().manual_seed(0)
words = [0]
rand = torch.rand(6000, generator=g)
draws = torch.multinomial(unigram, 6000, replacement=True, generator=g)
for i in range(6000):
    words.append((words[-1] * 7 + 3) % ntokens if rand[i] < 0.5 else int(draws[i]))
corpus = torch.tensor(words, dtype=torch.long)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    data = data.view(bsz, -1).t().contiguous()
    return data


def get_batch(source, i, bptt=20):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].reshape(-1)
    return data, target


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    else:
        return tuple(repackage_hidden(v) for v in h)


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, adaptive=True, cutoffs=(20, 80)):
        super(RNNModel, self).__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers)
        self.adaptive = adaptive
        if adaptive:
            self.decoder = nn.AdaptiveLogSoftmaxWithLoss(nhid, ntoken, cutoffs=list(cutoffs), div_value=2.0)
        else:
            self.decoder = nn.Linear(nhid, ntoken)
        self.nhid, self.nlayers = nhid, nlayers

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))

    def forward(self, input, hidden, targets):
        emb = self.encoder(input)
        output, hidden = self.rnn(emb, hidden)
        flat = output.reshape(-1, self.nhid)
        if self.adaptive:
            out, loss = self.decoder(flat, targets)
        else:
            loss = F.cross_entropy(self.decoder(flat), targets)
        return loss, hidden, flat


train_data = batchify(corpus[:5000], 16)
val_data = batchify(corpus[5000:], 8)
print(train_data.shape, val_data.shape)


def evaluate(model, data):
    model.eval()
    total, n = 0.0, 0
    hidden = model.init_hidden(data.size(1))
    with torch.no_grad():
        for i in range(0, data.size(0) - 1, 20):
            x, y = get_batch(data, i)
            loss, hidden, _ = model(x, hidden, y)
            total += len(x) * loss.item()
            n += len(x)
    return total / n


results = {}
for adaptive in (True, False):
    torch.manual_seed(1)
    model = RNNModel(ntokens, 32, 64, 1, adaptive=adaptive)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    for epoch in range(2):
        model.train()
        hidden = model.init_hidden(16)
        for batch, i in enumerate(range(0, train_data.size(0) - 1, 20)):
            x, y = get_batch(train_data, i)
            hidden = repackage_hidden(hidden)
            model.zero_grad()
            loss, hidden, _ = model(x, hidden, y)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
            optimizer.step()
        val_loss = evaluate(model, val_data)
        print(f"adaptive={adaptive} epoch {epoch}: valid loss {val_loss:5.2f} | valid ppl {math.exp(val_loss):8.2f}")
    results[adaptive] = (model, val_loss)

n_params = {k: sum(p.numel() for p in m.decoder.parameters()) for k, (m, _) in results.items()}
print("decoder parameters", n_params)
assert n_params[True] < n_params[False]
assert math.exp(results[True][1]) < ntokens / 2

model = results[True][0]
asm = model.decoder
print(asm)
x, y = get_batch(val_data, 0)
with torch.no_grad():
    _, _, flat = model(x, model.init_hidden(8), y)
    out, loss = asm(flat, y)
    lp = asm.log_prob(flat)
torch.testing.assert_close(lp.exp().sum(1), torch.ones(flat.size(0)), rtol=1e-4, atol=1e-5)
torch.testing.assert_close(lp.gather(1, y[:, None]).squeeze(1), out, rtol=1e-4, atol=1e-5)
pred = asm.predict(flat)
assert torch.equal(pred, lp.argmax(1))
print("predicted", pred[:10].tolist(), "target", y[:10].tolist())
print("shortlist share of targets", (y < asm.shortlist_size).float().mean().item())

try:
    nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[5, 5])
except ValueError as e:
    print("ValueError:", e)
try:
    asm(flat[:3], torch.tensor([0, 1, ntokens]))
except RuntimeError as e:
    print("RuntimeError:", e)
