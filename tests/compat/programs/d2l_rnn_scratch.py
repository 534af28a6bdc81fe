"""Dive into Deep Learning (d2l.ai, PyTorch), "Recurrent Neural Network Implementation from
Scratch": F.one_hot(torch.tensor([0, 2]), 28), inputs one-hot encoded as F.one_hot(X.T,
vocab_size).type(torch.float32), RNNScratch with nn.Parameter(torch.randn(...) * sigma), a
Python loop over time steps with torch.tanh(torch.matmul(X, W_xh) + torch.matmul(state, W_hh) +
b_h), outputs torch.stack'ed, the output layer, predict() warm-up + greedy decoding with
int(Y.argmax(axis=2).reshape(1)), gradient clipping by hand (norm = torch.sqrt(sum(torch.sum(
(p.grad ** 2)) for p in params)); p.grad[:] *= grad_clip_val / norm), and perplexity exp(loss)."""
import math

import torch
from torch import nn
from torch.nn import functional as F

text = "the time machine by h g wells the time traveller for so it will be convenient to speak of him "
text = text * 4
vocab = sorted(set(text))
vocab_size = len(vocab)
token_to_idx = {t: i for i, t in enumerate(vocab)}
corpus = [token_to_idx[c] for c in text]
print(vocab_size, len(corpus))

print(F.one_hot(torch.tensor([0, 2]), vocab_size))
X = torch.arange(10).reshape((2, 5))
print(F.one_hot(X.T, vocab_size).shape)


class RNNScratch(nn.Module):
    """The RNN model implemented from scratch."""

    def __init__(self, num_inputs, num_hiddens, sigma=0.01):
        super().__init__()
        self.num_inputs, self.num_hiddens, self.sigma = num_inputs, num_hiddens, sigma
        self.W_xh = nn.Parameter(torch.randn(num_inputs, num_hiddens) * sigma)
        self.W_hh = nn.Parameter(torch.randn(num_hiddens, num_hiddens) * sigma)
        self.b_h = nn.Parameter(torch.zeros(num_hiddens))

    def forward(self, inputs, state=None):
        if state is None:
            # Initial state with shape: (batch_size, num_hiddens)
            state = torch.zeros((inputs.shape[1], self.num_hiddens), device=inputs.device)
        else:
            state, = state
        outputs = []
        for X in inputs:  # Shape of inputs: (num_steps, batch_size, num_inputs)
            state = torch.tanh(torch.matmul(X, self.W_xh) + torch.matmul(state, self.W_hh) + self.b_h)
            outputs.append(state)
        return outputs, state


def check_len(a, n):
    assert len(a) == n, f'list\'s length {len(a)} != expected length {n}'


def check_shape(a, shape):
    assert a.shape == shape, f'tensor\'s shape {a.shape} != expected shape {shape}'


torch.manual_seed(0)
batch_size, num_inputs, num_hiddens, num_steps = 2, 16, 32, 100
rnn = RNNScratch(num_inputs, num_hiddens)
X = torch.ones((num_steps, batch_size, num_inputs))
outputs, state = rnn(X)
check_len(outputs, num_steps)
check_shape(outputs[0], (batch_size, num_hiddens))
check_shape(state, (batch_size, num_hiddens))


class RNNLMScratch(nn.Module):
    """The RNN-based language model implemented from scratch."""

    def __init__(self, rnn, vocab_size, lr=0.01):
        super().__init__()
        self.rnn, self.vocab_size, self.lr = rnn, vocab_size, lr
        self.init_params()

    def init_params(self):
        self.W_hq = nn.Parameter(torch.randn(self.rnn.num_hiddens, self.vocab_size) * self.rnn.sigma)
        self.b_q = nn.Parameter(torch.zeros(self.vocab_size))

    def one_hot(self, X):
        # Output shape: (num_steps, batch_size, vocab_size)
        return F.one_hot(X.T, self.vocab_size).type(torch.float32)

    def output_layer(self, rnn_outputs):
        outputs = [torch.matmul(H, self.W_hq) + self.b_q for H in rnn_outputs]
        return torch.stack(outputs, 1)

    def forward(self, X, state=None):
        embs = self.one_hot(X)
        rnn_outputs, _ = self.rnn(embs, state)
        return self.output_layer(rnn_outputs)

    def loss(self, Y_hat, Y):
        Y_hat = Y_hat.reshape((-1, Y_hat.shape[-1]))
        Y = Y.reshape((-1,))
        return F.cross_entropy(Y_hat, Y, reduction='mean')

    def predict(self, prefix, num_preds, device=None):
        state, outputs = None, [token_to_idx[prefix[0]]]
        for i in range(len(prefix) + num_preds - 1):
            X = torch.tensor([[outputs[-1]]], device=device)
            embs = self.one_hot(X)
            rnn_outputs, state = self.rnn(embs, state)
            if i < len(prefix) - 1:  # Warm-up period
                outputs.append(token_to_idx[prefix[i + 1]])
            else:  # Predict num_preds steps
                Y = self.output_layer(rnn_outputs)
                outputs.append(int(Y.argmax(axis=2).reshape(1)))
            state = (state,)
        return ''.join([vocab[i] for i in outputs])

    def clip_gradients(self, grad_clip_val, model):
        params = [p for p in model.parameters() if p.requires_grad]
        norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params))
        if norm > grad_clip_val:
            for param in params:
                param.grad[:] *= grad_clip_val / norm
        return norm


model = RNNLMScratch(rnn, num_inputs)
outputs = model(torch.ones((batch_size, num_steps), dtype=torch.int64))
check_shape(outputs, (batch_size, num_steps, num_inputs))

torch.manual_seed(1)
rnn = RNNScratch(num_inputs=vocab_size, num_hiddens=32, sigma=0.1)
model = RNNLMScratch(rnn, vocab_size=vocab_size, lr=1)
num_steps = 16
data = torch.tensor(corpus)
Xs = torch.stack([data[i:i + num_steps] for i in range(0, len(data) - num_steps - 1, 3)])
Ys = torch.stack([data[i + 1:i + num_steps + 1] for i in range(0, len(data) - num_steps - 1, 3)])
print(Xs.shape, Ys.shape)
optimizer = torch.optim.SGD(model.parameters(), lr=1)
ppl = []
for epoch in range(15):
    perm = torch.randperm(len(Xs))
    for b in range(0, len(Xs), 16):
        idx = perm[b:b + 16]
        optimizer.zero_grad()
        loss = model.loss(model(Xs[idx]), Ys[idx])
        loss.backward()
        norm = model.clip_gradients(1, model)
        optimizer.step()
    ppl.append(math.exp(loss.item()))
    if epoch % 5 == 0:
        print(f"epoch {epoch} perplexity {ppl[-1]:.2f} grad norm {float(norm):.3f}")
assert ppl[-1] < ppl[0]
print(model.predict('the time ', 20))
grads = [p.grad.norm() for p in model.parameters()]
assert float(torch.sqrt(sum(g ** 2 for g in grads))) <= 1 + 1e-4
