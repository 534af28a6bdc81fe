"""Stanford CS224n assignment 3 (neural dependency parsing), a student's completed parser_model.py
with its __main__ sanity checks (check_embedding / check_forward), and run.py's train_for_epoch
/ AverageMeter / minibatches loop, on synthetic feature vectors and one-hot transition labels
instead of the Penn Treebank features (tqdm and the UAS evaluation left out). The idioms:
nn.Parameter(torch.tensor(embeddings), requires_grad=False) among the optimizer's parameters,
nn.Parameter(torch.empty(...)) initialised by nn.init.xavier_uniform_ / nn.init.uniform_,
self.embeddings[w] gathering (batch, n_features, embed) and .view(x.shape[0], -1),
torch.matmul + bias, F.relu, nn.Dropout, torch.randint(0, 100, (4, 36), dtype=torch.long),
np.all(selected.data.numpy() == 0), repr(out.shape) in an assert message, and the training step
with torch.from_numpy(train_x).long() and torch.from_numpy(train_y.nonzero()[1]).long()."""
import math

import numpy as np

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class ParserModel(nn.Module):

    def __init__(self, embeddings, n_features=36,
                 hidden_size=200, n_classes=3, dropout_prob=0.5):
        super(ParserModel, self).__init__()

        self.n_features = n_features
        self.n_classes = n_classes
        self.dropout_prob = dropout_prob
        self.embed_size = embeddings.shape[1]
        self.hidden_size = hidden_size

        self.embeddings = nn.Parameter(torch.tensor(embeddings), requires_grad=False)

        self.embed_to_hidden_weight = nn.Parameter(
            torch.empty(self.n_features * self.embed_size, self.hidden_size)
        )
        nn.init.xavier_uniform_(self.embed_to_hidden_weight)

        self.embed_to_hidden_bias = nn.Parameter(torch.empty(self.hidden_size))
        nn.init.uniform_(self.embed_to_hidden_bias)

        self.dropout = nn.Dropout(self.dropout_prob)

        self.hidden_to_logits_weight = nn.Parameter(
            torch.empty(self.hidden_size, self.n_classes)
        )
        nn.init.xavier_uniform_(self.hidden_to_logits_weight)

        self.hidden_to_logits_bias = nn.Parameter(torch.empty(self.n_classes))
        nn.init.uniform_(self.hidden_to_logits_bias)


    def embedding_lookup(self, w):
        x = self.embeddings[w]  # (batch_size, n_features, embed_size)
        x = x.view(x.shape[0], -1)  # flatten last two dims
        return x


    def forward(self, w):
        """ Forward pass of the model """
        x = self.embedding_lookup(w)
        h = torch.matmul(x, self.embed_to_hidden_weight) + self.embed_to_hidden_bias
        h = F.relu(h)
        h = self.dropout(h)
        logits = torch.matmul(h, self.hidden_to_logits_weight) + self.hidden_to_logits_bias
        return logits


torch.manual_seed(0)
np.random.seed(0)

embeddings = np.zeros((100, 30), dtype=np.float32)
model = ParserModel(embeddings)

def check_embedding():
    inds = torch.randint(0, 100, (4, 36), dtype=torch.long)
    selected = model.embedding_lookup(inds)
    assert np.all(selected.data.numpy() == 0), "The result of embedding lookup: " \
                                  + repr(selected) + " contains non-zero elements."

def check_forward():
    inputs = torch.randint(0, 100, (4, 36), dtype=torch.long)
    out = model(inputs)
    expected_out_shape = (4, 3)
    assert out.shape == expected_out_shape, "The result shape of forward is: " + repr(out.shape) + \
                                            " which doesn't match expected " + repr(expected_out_shape)

check_embedding()
print("Embedding_lookup sanity check passes!")
check_forward()
print("Forward sanity check passes!")

# ---------------------------------------------------------------- run.py / utils
class AverageMeter(object):
    """Computes and stores the average and current value"""
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def get_minibatches(data, minibatch_size, shuffle=True):
    data_size = len(data[0])
    indices = np.arange(data_size)
    if shuffle:
        np.random.shuffle(indices)
    for minibatch_start in np.arange(0, data_size, minibatch_size):
        minibatch_indices = indices[minibatch_start:minibatch_start + minibatch_size]
        yield [d[minibatch_indices] for d in data]


def minibatches(data, batch_size):
    x = np.array([d[0] for d in data])
    y = np.array([d[2] for d in data])
    one_hot = np.zeros((y.size, 3))
    one_hot[np.arange(y.size), y] = 1
    return get_minibatches([x, one_hot], batch_size)


class Parser:
    def __init__(self, model):
        self.model = model


def train_for_epoch(parser, train_data, dev_data, optimizer, loss_func, batch_size):
    parser.model.train() # Places model in "train" mode, i.e. apply dropout layer
    n_minibatches = math.ceil(len(train_data) / batch_size)
    loss_meter = AverageMeter()

    for i, (train_x, train_y) in enumerate(minibatches(train_data, batch_size)):
        optimizer.zero_grad()   # remove any baggage in the optimizer
        loss = 0. # store loss for this batch here
        train_x = torch.from_numpy(train_x).long()
        train_y = torch.from_numpy(train_y.nonzero()[1]).long()

        logits = parser.model(train_x)
        loss = loss_func(logits, train_y)
        loss.backward()
        optimizer.step()
        loss_meter.update(loss.item())

    print ("Average Train Loss: {}".format(round(loss_meter.avg, 6)))
    return loss_meter.avg


emb = np.random.randn(100, 8).astype(np.float32)
model = ParserModel(emb, n_features=6, hidden_size=32)
parser = Parser(model)
W = np.random.randn(6, 3)
train_data = []
for _ in range(256):
    feats = np.random.randint(0, 100, 6)
    label = int(np.argmax(emb[feats].mean(1) @ W))
    train_data.append((feats, None, label))

optimizer = optim.Adam(parser.model.parameters(), lr=0.005)
loss_func = nn.CrossEntropyLoss()
print([p.requires_grad for p in parser.model.parameters()])
avgs = [train_for_epoch(parser, train_data, None, optimizer, loss_func, batch_size=64)
        for epoch in range(6)]
assert avgs[-1] < avgs[0]
assert model.embeddings.grad is None and torch.equal(model.embeddings, torch.tensor(emb))
parser.model.eval()
with torch.no_grad():
    x = torch.from_numpy(np.array([d[0] for d in train_data])).long()
    acc = (parser.model(x).argmax(1).numpy() == np.array([d[2] for d in train_data])).mean()
print('train accuracy %.4f' % acc)
