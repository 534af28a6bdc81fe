"""pytorch/examples word_language_model: a Dictionary/Corpus over a toy text, batchify with
data.size(0) // bsz, data.narrow(0, 0, nbatch * bsz) and .view(bsz, -1).t().contiguous(),
get_batch with min(bptt, len(source) - 1 - i), RNNModel (nn.LSTM, getattr(nn, rnn_type),
tied weights decoder.weight = encoder.weight, init_hidden with weight.new_zeros),
repackage_hidden (detach of a tuple), clip_grad_norm_, the manual SGD step
p.data.add_(p.grad, alpha=-lr), math.exp(loss) perplexity, and TransformerModel with
PositionalEncoding (register_buffer, pe.unsqueeze(0).transpose(0, 1)) and the
torch.log(torch.tril(torch.ones(sz, sz))) causal mask."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Dictionary(object):
    def __init__(self):
        self.word2idx = {}
        self.idx2word = []

    def add_word(self, word):
        if word not in self.word2idx:
            self.idx2word.append(word)
            self.word2idx[word] = len(self.idx2word) - 1
        return self.word2idx[word]

    def __len__(self):
        return len(self.idx2word)


class Corpus(object):
    def __init__(self, lines):
        self.dictionary = Dictionary()
        self.train = self.tokenize(lines)

    def tokenize(self, lines):
        for line in lines:
            for word in line.split() + ['<eos>']:
                self.dictionary.add_word(word)
        idss = []
        for line in lines:
            ids = [self.dictionary.word2idx[w] for w in line.split() + ['<eos>']]
            idss.append(torch.tensor(ids).type(torch.int64))
        return torch.cat(idss)


lines = ["the cat sat on the mat", "the dog sat on the log", "a cat and a dog met"] * 12
corpus = Corpus(lines)
device = torch.device("cpu")


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    data = data.view(bsz, -1).t().contiguous()
    return data.to(device)


train_data = batchify(corpus.train, 4)
assert train_data.shape == (len(corpus.train) // 4, 4) and train_data.is_contiguous()
bptt = 8


def get_batch(source, i):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].view(-1)
    return data, target


class RNNModel(nn.Module):
    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5, tie_weights=False):
        super(RNNModel, self).__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        if rnn_type in ['LSTM', 'GRU']:
            self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        else:
            nonlinearity = {'RNN_TANH': 'tanh', 'RNN_RELU': 'relu'}[rnn_type]
            self.rnn = nn.RNN(ninp, nhid, nlayers, nonlinearity=nonlinearity, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            if nhid != ninp:
                raise ValueError('When using the tied flag, nhid must be equal to emsize')
            self.decoder.weight = self.encoder.weight
        self.init_weights()
        self.rnn_type = rnn_type
        self.nhid = nhid
        self.nlayers = nlayers

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        if self.rnn_type == 'LSTM':
            return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                    weight.new_zeros(self.nlayers, bsz, self.nhid))
        else:
            return weight.new_zeros(self.nlayers, bsz, self.nhid)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super(PositionalEncoding, self).__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0).transpose(0, 1)
        self.register_buffer('pe', pe)

    def forward(self, x):
        x = x + self.pe[:x.size(0), :]
        return self.dropout(x)


class TransformerModel(nn.Transformer):
    def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.5):
        super(TransformerModel, self).__init__(d_model=ninp, nhead=nhead, dim_feedforward=nhid,
                                               num_encoder_layers=nlayers)
        self.model_type = 'Transformer'
        self.src_mask = None
        self.pos_encoder = PositionalEncoding(ninp, dropout)
        self.input_emb = nn.Embedding(ntoken, ninp)
        self.ninp = ninp
        self.decoder = nn.Linear(ninp, ntoken)
        self.init_weights()

    def _generate_square_subsequent_mask(self, sz):
        return torch.log(torch.tril(torch.ones(sz, sz)))

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.input_emb.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, src, has_mask=True):
        if has_mask:
            device = src.device
            if self.src_mask is None or self.src_mask.size(0) != len(src):
                mask = self._generate_square_subsequent_mask(len(src)).to(device)
                self.src_mask = mask
        else:
            self.src_mask = None
        src = self.input_emb(src) * math.sqrt(self.ninp)
        src = self.pos_encoder(src)
        output = self.encoder(src, mask=self.src_mask)
        output = self.decoder(output)
        return F.log_softmax(output, dim=-1)


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    else:
        return tuple(repackage_hidden(v) for v in h)


def evaluate(model, data_source):
    model.eval()
    total_loss = 0.
    ntokens = len(corpus.dictionary)
    hidden = None if isinstance(model, TransformerModel) else model.init_hidden(4)
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, bptt):
            data, targets = get_batch(data_source, i)
            if hidden is None:
                output = model(data).view(-1, ntokens)
            else:
                output, hidden = model(data, hidden)
                hidden = repackage_hidden(hidden)
            total_loss += len(data) * F.nll_loss(output, targets).item()
    return total_loss / (len(data_source) - 1)


def train(model, lr, epochs):
    criterion = nn.NLLLoss()
    ntokens = len(corpus.dictionary)
    for epoch in range(epochs):
        model.train()
        hidden = None if isinstance(model, TransformerModel) else model.init_hidden(4)
        for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
            data, targets = get_batch(train_data, i)
            model.zero_grad()
            if hidden is None:
                output = model(data).view(-1, ntokens)
            else:
                hidden = repackage_hidden(hidden)
                output, hidden = model(data, hidden)
            loss = criterion(output, targets)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
            for p in model.parameters():
                p.data.add_(p.grad, alpha=-lr)


torch.manual_seed(1111)
ntokens = len(corpus.dictionary)
for rnn_type, lr in [('LSTM', 10.0), ('GRU', 10.0), ('RNN_TANH', 2.0)]:
    model = RNNModel(rnn_type, ntokens, 16, 16, 2, dropout=0.2, tie_weights=True).to(device)
    assert model.decoder.weight is model.encoder.weight
    before = evaluate(model, train_data)
    train(model, lr=lr, epochs=10)
    after = evaluate(model, train_data)
    print(f"{rnn_type}: ppl {math.exp(before):8.2f} -> {math.exp(after):8.2f}")
    assert after < before - 0.5

model = TransformerModel(ntokens, 16, 2, 32, 1, dropout=0.1).to(device)
assert model._generate_square_subsequent_mask(3)[0, 1] == float('-inf')
assert 'pos_encoder.pe' in model.state_dict()
before = evaluate(model, train_data)
train(model, lr=0.5, epochs=6)
after = evaluate(model, train_data)
print(f"Transformer: ppl {math.exp(before):8.2f} -> {math.exp(after):8.2f}")
assert after < before - 0.5
