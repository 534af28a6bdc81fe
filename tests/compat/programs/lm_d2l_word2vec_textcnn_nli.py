"""Dive into Deep Learning (d2l.ai, PyTorch), chapters "Natural Language Processing: Pretraining"
and "...: Applications" at toy size. word2vec: the skip-gram forward (embed_v(center),
embed_u(contexts_and_negatives), torch.bmm(v, u.permute(0, 2, 1))), SigmoidBCELoss calling
nn.functional.binary_cross_entropy_with_logits(inputs, target, weight=mask, reduction="none")
.mean(dim=1), batchify padding with masks and labels, loss scaled by mask.shape[1] / mask.sum(axis=
1), get_similar_tokens with torch.mv and 1e-9 in the cosine, torch.topk(cos, k=k + 1);
sentiment TextCNN (nn.Embedding twice, one frozen with requires_grad = False, nn.Conv1d per
kernel size, nn.AdaptiveAvgPool1d(1), torch.cat([torch.squeeze(self.relu(self.pool(conv(
embeddings))), dim=-1) ...], dim=1), embeddings.permute(0, 2, 1), init_weights with
nn.init.xavier_uniform_ on Linear and Conv1d); and natural language inference with decomposable
attention (mlp() with nn.Flatten(start_dim=1), Attend: e = torch.bmm(f_A, f_B.permute(0, 2, 1)),
beta = torch.bmm(F.softmax(e, dim=-1), B), alpha = torch.bmm(F.softmax(e.permute(0, 2, 1),
dim=-1), A); Compare over torch.cat([A, beta], dim=2); Aggregate with V_A.sum(dim=1))."""
import collections
import random

import torch
from torch import nn
from torch.nn import functional as F


class SigmoidBCELoss(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, inputs, target, mask=None):
        out = nn.functional.binary_cross_entropy_with_logits(inputs, target, weight=mask, reduction="none")
        return out.mean(dim=1)


def skip_gram(center, contexts_and_negatives, embed_v, embed_u):
    v = embed_v(center)
    u = embed_u(contexts_and_negatives)
    pred = torch.bmm(v, u.permute(0, 2, 1))
    return pred


def batchify(data):
    max_len = max(len(c) + len(n) for _, c, n in data)
    centers, contexts_negatives, masks, labels = [], [], [], []
    for center, context, negative in data:
        cur_len = len(context) + len(negative)
        centers += [center]
        contexts_negatives += [context + negative + [0] * (max_len - cur_len)]
        masks += [[1] * cur_len + [0] * (max_len - cur_len)]
        labels += [[1] * len(context) + [0] * (max_len - len(context))]
    return (torch.tensor(centers).reshape((-1, 1)), torch.tensor(contexts_negatives),
            torch.tensor(masks), torch.tensor(labels))


loss = SigmoidBCELoss()
pred = torch.tensor([[1.1, -2.2, 3.3, -4.4]] * 2)
label = torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]])
mask = torch.tensor([[1, 1, 1, 1], [1, 1, 0, 0]])
print(loss(pred, label, mask) * mask.shape[1] / mask.sum(axis=1))

x_1 = (1, [2, 2], [3, 3, 3, 3])
x_2 = (1, [2, 2, 2], [3, 3])
batch = batchify((x_1, x_2))
names = ['centers', 'contexts_negatives', 'masks', 'labels']
for name, data in zip(names, batch):
    print(name, '=', data)

# a corpus where words come in fixed pairs ("a0 b0", "a1 b1", ...) so pairs become similar
random.seed(0)
torch.manual_seed(0)
pairs = [(2 * i, 2 * i + 1) for i in range(10)]
vocab_size = 20
examples = []
for _ in range(300):
    a, b = random.choice(pairs)
    center, context = (a, b) if random.random() < 0.5 else (b, a)
    negatives = random.sample([w for w in range(vocab_size) if w not in (a, b)], 4)
    examples.append((center, [context], negatives))

embed_size = 16
net = nn.Sequential(nn.Embedding(num_embeddings=vocab_size, embedding_dim=embed_size),
                    nn.Embedding(num_embeddings=vocab_size, embedding_dim=embed_size))


def init_weights(module):
    if type(module) == nn.Embedding:
        nn.init.xavier_uniform_(module.weight)


net.apply(init_weights)
optimizer = torch.optim.Adam(net.parameters(), lr=0.01)
for epoch in range(20):
    for i in range(0, len(examples), 32):
        center, context_negative, mask, label = batchify(examples[i:i + 32])
        pred = skip_gram(center, context_negative, net[0], net[1])
        l = (loss(pred.reshape(label.shape).float(), label.float(), mask) / mask.sum(axis=1) * mask.shape[1])
        optimizer.zero_grad()
        l.sum().backward()
        optimizer.step()
print('word2vec loss', round(l.mean().item(), 4))


def get_similar_tokens(query_token, k, embed):
    W = embed.weight.data
    x = W[query_token]
    cos = torch.mv(W, x) / torch.sqrt(torch.sum(W * W, dim=1) * torch.sum(x * x) + 1e-9)
    topk = torch.topk(cos, k=k + 1)[1].cpu().numpy().astype('int32')
    for i in topk[1:]:
        print(f'cosine sim={float(cos[i]):.3f}: {i}')
    return topk[1:]


similar = get_similar_tokens(4, 3, net[0])
assert l.mean().item() < 0.6


# sentiment analysis with TextCNN
class TextCNN(nn.Module):
    def __init__(self, vocab_size, embed_size, kernel_sizes, num_channels, **kwargs):
        super(TextCNN, self).__init__(**kwargs)
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.constant_embedding = nn.Embedding(vocab_size, embed_size)
        self.dropout = nn.Dropout(0.5)
        self.decoder = nn.Linear(sum(num_channels), 2)
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.relu = nn.ReLU()
        self.convs = nn.ModuleList()
        for c, k in zip(num_channels, kernel_sizes):
            self.convs.append(nn.Conv1d(2 * embed_size, c, k))

    def forward(self, inputs):
        embeddings = torch.cat((self.embedding(inputs), self.constant_embedding(inputs)), dim=2)
        embeddings = embeddings.permute(0, 2, 1)
        encoding = torch.cat([torch.squeeze(self.relu(self.pool(conv(embeddings))), dim=-1)
                              for conv in self.convs], dim=1)
        outputs = self.decoder(self.dropout(encoding))
        return outputs


torch.manual_seed(1)
net = TextCNN(30, 8, [3, 4, 5], [10, 10, 10])


def init_weights(module):
    if type(module) in (nn.Linear, nn.Conv1d):
        nn.init.xavier_uniform_(module.weight)


net.apply(init_weights)
pretrained = torch.randn(30, 8)
net.embedding.weight.data.copy_(pretrained)
net.constant_embedding.weight.data.copy_(pretrained)
net.constant_embedding.weight.requires_grad = False

# label: does the sentence contain token 3 ("great")?
X = torch.randint(4, 30, (160, 12))
y = torch.randint(0, 2, (160,))
X[y == 1, torch.randint(0, 12, (int((y == 1).sum()),))] = 3
trainer = torch.optim.Adam(net.parameters(), lr=0.01)
loss = nn.CrossEntropyLoss(reduction="none")
for epoch in range(15):
    net.train()
    for i in range(0, 160, 32):
        l = loss(net(X[i:i + 32]), y[i:i + 32])
        trainer.zero_grad()
        l.sum().backward()
        trainer.step()
net.eval()
acc = (net(X).argmax(dim=1) == y).float().mean().item()
print(f'textcnn train acc {acc:.3f}')
assert acc > 0.9
assert torch.equal(net.constant_embedding.weight, pretrained)


def predict_sentiment(net, tokens):
    sequence = torch.tensor(tokens)
    label = torch.argmax(net(sequence.reshape(1, -1)), dim=1)
    return 'positive' if label == 1 else 'negative'


print(predict_sentiment(net, [5, 6, 3, 7, 8, 9]), predict_sentiment(net, [5, 6, 10, 7, 8, 9]))


# natural language inference: decomposable attention
def mlp(num_inputs, num_hiddens, flatten):
    net = []
    net.append(nn.Dropout(0.2))
    net.append(nn.Linear(num_inputs, num_hiddens))
    net.append(nn.ReLU())
    if flatten:
        net.append(nn.Flatten(start_dim=1))
    net.append(nn.Dropout(0.2))
    net.append(nn.Linear(num_hiddens, num_hiddens))
    net.append(nn.ReLU())
    if flatten:
        net.append(nn.Flatten(start_dim=1))
    return nn.Sequential(*net)


class Attend(nn.Module):
    def __init__(self, num_inputs, num_hiddens, **kwargs):
        super(Attend, self).__init__(**kwargs)
        self.f = mlp(num_inputs, num_hiddens, flatten=False)

    def forward(self, A, B):
        f_A = self.f(A)
        f_B = self.f(B)
        e = torch.bmm(f_A, f_B.permute(0, 2, 1))
        beta = torch.bmm(F.softmax(e, dim=-1), B)
        alpha = torch.bmm(F.softmax(e.permute(0, 2, 1), dim=-1), A)
        return beta, alpha


class Compare(nn.Module):
    def __init__(self, num_inputs, num_hiddens, **kwargs):
        super(Compare, self).__init__(**kwargs)
        self.g = mlp(num_inputs, num_hiddens, flatten=False)

    def forward(self, A, B, beta, alpha):
        V_A = self.g(torch.cat([A, beta], dim=2))
        V_B = self.g(torch.cat([B, alpha], dim=2))
        return V_A, V_B


class Aggregate(nn.Module):
    def __init__(self, num_inputs, num_hiddens, num_outputs, **kwargs):
        super(Aggregate, self).__init__(**kwargs)
        self.h = mlp(num_inputs, num_hiddens, flatten=True)
        self.linear = nn.Linear(num_hiddens, num_outputs)

    def forward(self, V_A, V_B):
        V_A = V_A.sum(dim=1)
        V_B = V_B.sum(dim=1)
        Y_hat = self.linear(self.h(torch.cat([V_A, V_B], dim=1)))
        return Y_hat


class DecomposableAttention(nn.Module):
    def __init__(self, vocab, embed_size, num_hiddens, num_inputs_attend=16,
                 num_inputs_compare=32, num_inputs_agg=64, **kwargs):
        super(DecomposableAttention, self).__init__(**kwargs)
        self.embedding = nn.Embedding(len(vocab), embed_size)
        self.attend = Attend(num_inputs_attend, num_hiddens)
        self.compare = Compare(num_inputs_compare, num_hiddens)
        self.aggregate = Aggregate(num_inputs_agg, num_hiddens, num_outputs=3)

    def forward(self, X):
        premises, hypotheses = X
        A = self.embedding(premises)
        B = self.embedding(hypotheses)
        beta, alpha = self.attend(A, B)
        V_A, V_B = self.compare(A, B, beta, alpha)
        Y_hat = self.aggregate(V_A, V_B)
        return Y_hat


torch.manual_seed(2)
vocab = collections.OrderedDict((str(i), i) for i in range(12))
net = DecomposableAttention(vocab, 16, 32)
premises = torch.randint(0, 12, (96, 6))
# entailment (0): hypothesis is a shuffled premise; contradiction (1): disjoint tokens; neutral (2): mixed
labels = torch.arange(96) % 3
hypotheses = premises[:, torch.randperm(6)].clone()
hypotheses[labels == 1] = (premises[labels == 1] + 6) % 12
hypotheses[labels == 2, :3] = torch.randint(0, 12, (32, 3))
trainer = torch.optim.Adam(net.parameters(), lr=0.003)
loss = nn.CrossEntropyLoss(reduction="none")
for epoch in range(30):
    net.train()
    for i in range(0, 96, 16):
        l = loss(net([premises[i:i + 16], hypotheses[i:i + 16]]), labels[i:i + 16])
        trainer.zero_grad()
        l.sum().backward()
        trainer.step()
net.eval()
with torch.no_grad():
    acc = (net([premises, hypotheses]).argmax(dim=1) == labels).float().mean().item()
print(f'nli train acc {acc:.3f}')
assert acc > 0.6
beta, alpha = net.attend(net.embedding(premises[:2]), net.embedding(hypotheses[:2]))
print(beta.shape, alpha.shape)
