"""Dive into Deep Learning (d2l.ai, PyTorch), chapter "Modern Recurrent Neural Networks": LSTMScratch
(init_weight = lambda *shape: nn.Parameter(torch.randn(*shape) * sigma), triple() of input /
hidden weights and a bias, the gates with torch.sigmoid(torch.matmul(X, W_xi) + torch.matmul(H,
W_hi) + b_i), C = F * C + I * C_tilde), GRUScratch (Z, R, H_tilde, H = Z * H + (1 - Z) * H_tilde),
StackedRNNScratch over nn.ModuleList of RNNScratch layers, RNNLMScratch's one_hot
(F.one_hot(X.T, vocab_size).type(torch.float32)) and output_layer (torch.stack(outputs, 1)),
the concise nn.LSTM / nn.GRU (num_layers=2, dropout) / bidirectional nn.GRU with RNNLM's
self.linear(hiddens).swapaxes(0, 1), gradient clipping over
torch.sqrt(sum(torch.sum((p.grad ** 2)) ...)) with param.grad[:] *= ratio, perplexity
torch.exp(loss), predict() with outputs[-1] and int(Y.argmax(axis=2).reshape(1)), and the
scratch LSTM checked against nn.LSTM after copying its weights in (weight_ih_l0 stacks i, f, g, o)."""
import math

import torch
from torch import nn
from torch.nn import functional as F


class RNNScratch(nn.Module):
    def __init__(self, num_inputs, num_hiddens, sigma=0.01):
        super().__init__()
        self.num_inputs, self.num_hiddens, self.sigma = num_inputs, num_hiddens, sigma
        self.W_xh = nn.Parameter(torch.randn(num_inputs, num_hiddens) * sigma)
        self.W_hh = nn.Parameter(torch.randn(num_hiddens, num_hiddens) * sigma)
        self.b_h = nn.Parameter(torch.zeros(num_hiddens))

    def forward(self, inputs, state=None):
        if state is None:
            state = torch.zeros((inputs.shape[1], self.num_hiddens), device=inputs.device)
        else:
            state, = state
        outputs = []
        for X in inputs:
            state = torch.tanh(torch.matmul(X, self.W_xh) + torch.matmul(state, self.W_hh) + self.b_h)
            outputs.append(state)
        return outputs, state


class LSTMScratch(nn.Module):
    def __init__(self, num_inputs, num_hiddens, sigma=0.01):
        super().__init__()
        self.num_inputs, self.num_hiddens, self.sigma = num_inputs, num_hiddens, sigma
        init_weight = lambda *shape: nn.Parameter(torch.randn(*shape) * sigma)
        triple = lambda: (init_weight(num_inputs, num_hiddens), init_weight(num_hiddens, num_hiddens),
                          nn.Parameter(torch.zeros(num_hiddens)))
        self.W_xi, self.W_hi, self.b_i = triple()
        self.W_xf, self.W_hf, self.b_f = triple()
        self.W_xo, self.W_ho, self.b_o = triple()
        self.W_xc, self.W_hc, self.b_c = triple()

    def forward(self, inputs, H_C=None):
        if H_C is None:
            H = torch.zeros((inputs.shape[1], self.num_hiddens), device=inputs.device)
            C = torch.zeros((inputs.shape[1], self.num_hiddens), device=inputs.device)
        else:
            H, C = H_C
        outputs = []
        for X in inputs:
            I = torch.sigmoid(torch.matmul(X, self.W_xi) + torch.matmul(H, self.W_hi) + self.b_i)
            F_ = torch.sigmoid(torch.matmul(X, self.W_xf) + torch.matmul(H, self.W_hf) + self.b_f)
            O = torch.sigmoid(torch.matmul(X, self.W_xo) + torch.matmul(H, self.W_ho) + self.b_o)
            C_tilde = torch.tanh(torch.matmul(X, self.W_xc) + torch.matmul(H, self.W_hc) + self.b_c)
            C = F_ * C + I * C_tilde
            H = O * torch.tanh(C)
            outputs.append(H)
        return outputs, (H, C)


class GRUScratch(nn.Module):
    def __init__(self, num_inputs, num_hiddens, sigma=0.01):
        super().__init__()
        self.num_inputs, self.num_hiddens, self.sigma = num_inputs, num_hiddens, sigma
        init_weight = lambda *shape: nn.Parameter(torch.randn(*shape) * sigma)
        triple = lambda: (init_weight(num_inputs, num_hiddens), init_weight(num_hiddens, num_hiddens),
                          nn.Parameter(torch.zeros(num_hiddens)))
        self.W_xz, self.W_hz, self.b_z = triple()
        self.W_xr, self.W_hr, self.b_r = triple()
        self.W_xh, self.W_hh, self.b_h = triple()

    def forward(self, inputs, H=None):
        if H is None:
            H = torch.zeros((inputs.shape[1], self.num_hiddens), device=inputs.device)
        outputs = []
        for X in inputs:
            Z = torch.sigmoid(torch.matmul(X, self.W_xz) + torch.matmul(H, self.W_hz) + self.b_z)
            R = torch.sigmoid(torch.matmul(X, self.W_xr) + torch.matmul(H, self.W_hr) + self.b_r)
            H_tilde = torch.tanh(torch.matmul(X, self.W_xh) + torch.matmul(R * H, self.W_hh) + self.b_h)
            H = Z * H + (1 - Z) * H_tilde
            outputs.append(H)
        return outputs, H


class StackedRNNScratch(nn.Module):
    def __init__(self, num_inputs, num_hiddens, num_layers, sigma=0.01):
        super().__init__()
        self.num_inputs, self.num_hiddens, self.num_layers = num_inputs, num_hiddens, num_layers
        self.sigma = sigma
        self.rnns = nn.Sequential(*[RNNScratch(num_inputs if i == 0 else num_hiddens, num_hiddens, sigma)
                                    for i in range(num_layers)])

    def forward(self, inputs, Hs=None):
        outputs = inputs
        if Hs is None:
            Hs = [None] * self.num_layers
        for i in range(self.num_layers):
            outputs, Hs[i] = self.rnns[i](outputs, Hs[i])
            outputs = torch.stack(outputs, 0)
        return outputs, Hs


class RNNLMScratch(nn.Module):
    def __init__(self, rnn, vocab_size, lr=0.01):
        super().__init__()
        self.rnn, self.vocab_size, self.lr = rnn, vocab_size, lr
        self.init_params()

    def init_params(self):
        self.W_hq = nn.Parameter(torch.randn(self.rnn.num_hiddens, self.vocab_size) * self.rnn.sigma)
        self.b_q = nn.Parameter(torch.zeros(self.vocab_size))

    def one_hot(self, X):
        return F.one_hot(X.T, self.vocab_size).type(torch.float32)

    def output_layer(self, rnn_outputs):
        outputs = [torch.matmul(H, self.W_hq) + self.b_q for H in rnn_outputs]
        return torch.stack(outputs, 1)

    def forward(self, X, state=None):
        embs = self.one_hot(X)
        rnn_outputs, _ = self.rnn(embs, state)
        return self.output_layer(rnn_outputs)

    def loss(self, Y_hat, Y):
        return F.cross_entropy(Y_hat.reshape(-1, Y_hat.shape[-1]), Y.reshape(-1))

    def predict(self, prefix, num_preds, vocab, device=None):
        state, outputs = None, [vocab[prefix[0]]]
        for i in range(len(prefix) + num_preds - 1):
            X = torch.tensor([[outputs[-1]]], device=device)
            embs = self.one_hot(X)
            rnn_outputs, state = self.rnn(embs, state)
            if i < len(prefix) - 1:
                outputs.append(vocab[prefix[i + 1]])
            else:
                Y = self.output_layer(rnn_outputs)
                outputs.append(int(Y.argmax(axis=2).reshape(1)))
        return ''.join([idx_to_token[i] for i in outputs])


class RNN(nn.Module):
    def __init__(self, num_inputs, num_hiddens):
        super().__init__()
        self.num_inputs, self.num_hiddens = num_inputs, num_hiddens
        self.rnn = nn.RNN(num_inputs, num_hiddens)

    def forward(self, inputs, H=None):
        return self.rnn(inputs, H)


class LSTM(RNN):
    def __init__(self, num_inputs, num_hiddens):
        nn.Module.__init__(self)
        self.num_inputs, self.num_hiddens = num_inputs, num_hiddens
        self.rnn = nn.LSTM(num_inputs, num_hiddens)

    def forward(self, inputs, H_C=None):
        return self.rnn(inputs, H_C)


class GRU(RNN):
    def __init__(self, num_inputs, num_hiddens, num_layers, dropout=0):
        nn.Module.__init__(self)
        self.num_inputs, self.num_hiddens, self.num_layers = num_inputs, num_hiddens, num_layers
        self.rnn = nn.GRU(num_inputs, num_hiddens, num_layers, dropout=dropout)


class BiGRU(RNN):
    def __init__(self, num_inputs, num_hiddens):
        nn.Module.__init__(self)
        self.num_inputs, self.num_hiddens = num_inputs, num_hiddens
        self.rnn = nn.GRU(num_inputs, num_hiddens, bidirectional=True)
        self.num_hiddens *= 2


class RNNLM(RNNLMScratch):
    def init_params(self):
        self.linear = nn.LazyLinear(self.vocab_size)

    def output_layer(self, hiddens):
        return self.linear(hiddens).swapaxes(0, 1)


def clip_gradients(grad_clip_val, model):
    params = [p for p in model.parameters() if p.requires_grad]
    norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params))
    if norm > grad_clip_val:
        for param in params:
            param.grad[:] *= grad_clip_val / norm


text = "the time machine by h g wells " * 20
idx_to_token = sorted(set(text))
vocab = {t: i for i, t in enumerate(idx_to_token)}
corpus = torch.tensor([vocab[c] for c in text])
num_steps, V = 10, len(idx_to_token)
X_all = torch.stack([corpus[i:i + num_steps] for i in range(len(corpus) - num_steps - 1)])
Y_all = torch.stack([corpus[i + 1:i + num_steps + 1] for i in range(len(corpus) - num_steps - 1)])


def fit(model, epochs, lr, batch_size=32):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    g = torch.Generator().manual_seed(0)
    for epoch in range(epochs):
        perm = torch.randperm(len(X_all), generator=g)
        for i in range(0, len(perm) - batch_size + 1, batch_size):
            ix = perm[i:i + batch_size]
            l = model.loss(model(X_all[ix]), Y_all[ix])
            optimizer.zero_grad()
            l.backward()
            clip_gradients(1, model)
            optimizer.step()
    with torch.no_grad():
        ppl = torch.exp(model.loss(model(X_all), Y_all))
    return ppl.item()


torch.manual_seed(0)
for name, rnn, lr, epochs in [
        ("lstm scratch", LSTMScratch(num_inputs=V, num_hiddens=32), 4, 6),
        ("gru scratch", GRUScratch(num_inputs=V, num_hiddens=32), 4, 6),
        ("stacked scratch", StackedRNNScratch(num_inputs=V, num_hiddens=32, num_layers=2, sigma=0.3), 2, 6)]:
    model = RNNLMScratch(rnn, vocab_size=V, lr=lr)
    ppl = fit(model, epochs, lr)
    print(f"{name}: perplexity {ppl:.2f}", model.predict('time ', 10, vocab))
    assert ppl < 6, (name, ppl)

for name, rnn, lr in [("lstm", LSTM(num_inputs=V, num_hiddens=32), 4),
                      ("deep gru", GRU(num_inputs=V, num_hiddens=32, num_layers=2, dropout=0.1), 4),
                      ("bigru", BiGRU(num_inputs=V, num_hiddens=16), 2)]:
    model = RNNLM(rnn, vocab_size=V, lr=lr)
    model(X_all[:2])   # materialise the LazyLinear
    ppl = fit(model, 6, lr)
    model.eval()
    print(f"{name}: perplexity {ppl:.2f}", model.predict('time ', 10, vocab) if name != "bigru" else "")
    assert ppl < (3 if name == "bigru" else 6), (name, ppl)

print(nn.GRU(4, 8, 2, bidirectional=True)._flat_weights_names)

# the scratch LSTM equals nn.LSTM once its weights are copied in (torch stacks gates as i, f, g, o)
scratch = LSTMScratch(3, 5, sigma=0.5)
ref = nn.LSTM(3, 5)
with torch.no_grad():
    ref.weight_ih_l0.copy_(torch.cat([scratch.W_xi, scratch.W_xf, scratch.W_xc, scratch.W_xo], 1).T)
    ref.weight_hh_l0.copy_(torch.cat([scratch.W_hi, scratch.W_hf, scratch.W_hc, scratch.W_ho], 1).T)
    ref.bias_ih_l0.copy_(torch.cat([scratch.b_i, scratch.b_f, scratch.b_c, scratch.b_o]))
    ref.bias_hh_l0.zero_()
x = torch.randn(7, 2, 3)
outs, (H, C) = scratch(x)
ref_out, (h_n, c_n) = ref(x)
torch.testing.assert_close(torch.stack(outs), ref_out, rtol=1e-5, atol=1e-6)
torch.testing.assert_close(H, h_n[0], rtol=1e-5, atol=1e-6)
torch.testing.assert_close(C, c_n[0], rtol=1e-5, atol=1e-6)
