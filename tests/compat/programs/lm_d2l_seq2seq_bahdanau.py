"""Dive into Deep Learning (d2l.ai, PyTorch), chapters "Encoder-Decoder Seq2Seq for Machine
Translation", "The Bahdanau Attention Mechanism" and "Beam Search" on a toy reversal "language":
init_seq2seq (nn.init.xavier_uniform_ on Linear weights and, for nn.GRU, on
module._parameters[param] for every name in module._flat_weights_names holding "weight"),
Seq2SeqEncoder (embedding(X.t().type(torch.int64)), a multi-layer nn.GRU with dropout),
Seq2SeqDecoder (context = enc_output[-1].repeat(embs.shape[0], 1, 1), torch.cat((embs, context),
-1), self.dense(outputs).swapaxes(0, 1)), the masked loss ((l * mask).sum() / mask.sum() with
mask = (Y.reshape(-1) != pad).type(torch.float32)), AdditiveAttention with nn.LazyLinear
(queries.unsqueeze(2) + keys.unsqueeze(1), w_v(features).squeeze(-1), masked_softmax with
torch.repeat_interleave and X[~mask] = -1e6, torch.bmm), Seq2SeqAttentionDecoder stepping over
embs with torch.unsqueeze(x, dim=1), enc_outputs.permute(1, 0, 2), torch.cat(outputs, dim=0),
clip_gradients (torch.sqrt(sum(torch.sum((p.grad ** 2)) ...)) and p.grad[:] *= ...), greedy
predict_step (Y.argmax(2), torch.cat(outputs[1:], 1)), BLEU, and a beam search over log_softmax
scores with torch.topk on the flattened (beam * vocab) candidates."""
import collections
import math

import torch
from torch import nn
from torch.nn import functional as F

PAD, BOS, EOS = 0, 1, 2
VOCAB = 10


def init_seq2seq(module):
    if type(module) == nn.Linear:
        nn.init.xavier_uniform_(module.weight)
    if type(module) == nn.GRU:
        for param in module._flat_weights_names:
            if "weight" in param:
                nn.init.xavier_uniform_(module._parameters[param])


class Seq2SeqEncoder(nn.Module):
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size, num_hiddens, num_layers, dropout=dropout)
        self.apply(init_seq2seq)

    def forward(self, X, *args):
        embs = self.embedding(X.t().type(torch.int64))
        outputs, state = self.rnn(embs)
        return outputs, state


class Seq2SeqDecoder(nn.Module):
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size + num_hiddens, num_hiddens, num_layers, dropout=dropout)
        self.dense = nn.LazyLinear(vocab_size)
        self.apply(init_seq2seq)

    def init_state(self, enc_all_outputs, *args):
        return enc_all_outputs

    def forward(self, X, state):
        embs = self.embedding(X.t().type(torch.int32))
        enc_output, hidden_state = state
        context = enc_output[-1]
        context = context.repeat(embs.shape[0], 1, 1)
        embs_and_context = torch.cat((embs, context), -1)
        outputs, hidden_state = self.rnn(embs_and_context, hidden_state)
        outputs = self.dense(outputs).swapaxes(0, 1)
        return outputs, [enc_output, hidden_state]


def sequence_mask(X, valid_len, value=0):
    maxlen = X.size(1)
    mask = torch.arange((maxlen), dtype=torch.float32, device=X.device)[None, :] < valid_len[:, None]
    X[~mask] = value
    return X


def masked_softmax(X, valid_lens):
    if valid_lens is None:
        return nn.functional.softmax(X, dim=-1)
    else:
        shape = X.shape
        if valid_lens.dim() == 1:
            valid_lens = torch.repeat_interleave(valid_lens, shape[1])
        else:
            valid_lens = valid_lens.reshape(-1)
        X = sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
        return nn.functional.softmax(X.reshape(shape), dim=-1)


class AdditiveAttention(nn.Module):
    def __init__(self, num_hiddens, dropout, **kwargs):
        super(AdditiveAttention, self).__init__(**kwargs)
        self.W_k = nn.LazyLinear(num_hiddens, bias=False)
        self.W_q = nn.LazyLinear(num_hiddens, bias=False)
        self.w_v = nn.LazyLinear(1, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens):
        queries, keys = self.W_q(queries), self.W_k(keys)
        features = queries.unsqueeze(2) + keys.unsqueeze(1)
        features = torch.tanh(features)
        scores = self.w_v(features).squeeze(-1)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


class Seq2SeqAttentionDecoder(nn.Module):
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
        super().__init__()
        self.attention = AdditiveAttention(num_hiddens, dropout)
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size + num_hiddens, num_hiddens, num_layers, dropout=dropout)
        self.dense = nn.LazyLinear(vocab_size)
        self.apply(init_seq2seq)

    def init_state(self, enc_outputs, enc_valid_lens):
        outputs, hidden_state = enc_outputs
        return (outputs.permute(1, 0, 2), hidden_state, enc_valid_lens)

    def forward(self, X, state):
        enc_outputs, hidden_state, enc_valid_lens = state
        X = self.embedding(X).permute(1, 0, 2)
        outputs, self._attention_weights = [], []
        for x in X:
            query = torch.unsqueeze(hidden_state[-1], dim=1)
            context = self.attention(query, enc_outputs, enc_outputs, enc_valid_lens)
            x = torch.cat((context, torch.unsqueeze(x, dim=1)), dim=-1)
            out, hidden_state = self.rnn(x.permute(1, 0, 2), hidden_state)
            outputs.append(out)
            self._attention_weights.append(self.attention.attention_weights)
        outputs = self.dense(torch.cat(outputs, dim=0))
        return outputs.permute(1, 0, 2), [enc_outputs, hidden_state, enc_valid_lens]

    @property
    def attention_weights(self):
        return self._attention_weights


class Seq2Seq(nn.Module):
    def __init__(self, encoder, decoder, tgt_pad, lr):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder
        self.tgt_pad = tgt_pad
        self.lr = lr

    def forward(self, enc_X, dec_X, *args):
        enc_all_outputs = self.encoder(enc_X, *args)
        dec_state = self.decoder.init_state(enc_all_outputs, *args)
        return self.decoder(dec_X, dec_state)[0]

    def loss(self, Y_hat, Y, averaged=True):
        Y_hat = Y_hat.reshape((-1, Y_hat.shape[-1]))
        Y = Y.reshape((-1,))
        l = F.cross_entropy(Y_hat, Y, reduction='none')
        mask = (Y.reshape(-1) != self.tgt_pad).type(torch.float32)
        return (l * mask).sum() / mask.sum()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)

    def predict_step(self, batch, device, num_steps, save_attention_weights=False):
        batch = [a.to(device) for a in batch]
        src, tgt, src_valid_len, _ = batch
        enc_all_outputs = self.encoder(src, src_valid_len)
        dec_state = self.decoder.init_state(enc_all_outputs, src_valid_len)
        outputs, attention_weights = [tgt[:, (0)].unsqueeze(1), ], []
        for _ in range(num_steps):
            Y, dec_state = self.decoder(outputs[-1], dec_state)
            outputs.append(Y.argmax(2))
            if save_attention_weights:
                attention_weights.append(self.decoder.attention_weights)
        return torch.cat(outputs[1:], 1), attention_weights


def clip_gradients(grad_clip_val, model):
    params = [p for p in model.parameters() if p.requires_grad]
    norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params))
    if norm > grad_clip_val:
        for param in params:
            param.grad[:] *= grad_clip_val / norm


def bleu(pred_seq, label_seq, k):
    pred_tokens, label_tokens = pred_seq.split(' '), label_seq.split(' ')
    len_pred, len_label = len(pred_tokens), len(label_tokens)
    score = math.exp(min(0, 1 - len_label / len_pred))
    for n in range(1, min(k, len_pred) + 1):
        num_matches, label_subs = 0, collections.defaultdict(int)
        for i in range(len_label - n + 1):
            label_subs[' '.join(label_tokens[i: i + n])] += 1
        for i in range(len_pred - n + 1):
            if label_subs[' '.join(pred_tokens[i: i + n])] > 0:
                num_matches += 1
                label_subs[' '.join(pred_tokens[i: i + n])] -= 1
        score *= math.pow(num_matches / (len_pred - n + 1), math.pow(0.5, n))
    return score


# toy data: the target is the source reversed; variable lengths, padded
num_steps = 7


def make_batch(n, g):
    src = torch.full((n, num_steps), PAD, dtype=torch.long)
    tgt = torch.full((n, num_steps + 1), PAD, dtype=torch.long)
    lens = torch.randint(3, num_steps, (n,), generator=g)
    for i in range(n):
        words = torch.randint(3, VOCAB, (int(lens[i]),), generator=g)
        src[i, :lens[i]] = words
        src[i, lens[i]] = EOS
        tgt[i, 0] = BOS
        tgt[i, 1:lens[i] + 1] = words.flip(0)
        tgt[i, lens[i] + 1] = EOS
    src_valid_len = (src != PAD).type(torch.int32).sum(1)
    return src, tgt[:, :-1], src_valid_len, tgt[:, 1:]


def train(model, steps, g):
    optim = model.configure_optimizers()
    for step in range(steps):
        src, dec_in, src_valid_len, label = make_batch(32, g)
        Y_hat = model(src, dec_in, src_valid_len)
        l = model.loss(Y_hat, label)
        optim.zero_grad()
        with torch.no_grad():
            l.backward()
            clip_gradients(1, model)
        optim.step()
    return l.item()


print(bleu("a b c d", "a b c d", k=2), round(bleu("a b d", "a b c d", k=2), 4))

torch.manual_seed(0)
g = torch.Generator().manual_seed(0)
encoder = Seq2SeqEncoder(VOCAB, embed_size=8, num_hiddens=16, num_layers=2)
decoder = Seq2SeqDecoder(VOCAB, embed_size=8, num_hiddens=16, num_layers=2)
X = torch.zeros((4, 9))
enc_outputs, enc_state = encoder(X)
assert enc_outputs.shape == (9, 4, 16) and enc_state.shape == (2, 4, 16)
state = decoder.init_state(encoder(X))
dec_outputs, state = decoder(X, state)
assert dec_outputs.shape == (4, 9, VOCAB) and state[1].shape == (2, 4, 16)
print(encoder.rnn._flat_weights_names)

model = Seq2Seq(encoder, decoder, tgt_pad=PAD, lr=0.01)
first = model.loss(model(*make_batch(32, g)[:3]), make_batch(32, g)[3]).item()
last = train(model, 60, g)
print(f"seq2seq loss {first:.3f} -> {last:.3f}")
assert last < first

torch.manual_seed(0)
encoder = Seq2SeqEncoder(VOCAB, 8, 16, 1)
decoder = Seq2SeqAttentionDecoder(VOCAB, 8, 16, 1)
model = Seq2Seq(encoder, decoder, tgt_pad=PAD, lr=0.01)
_ = model(*make_batch(2, g)[:3])   # materialise the lazy layers
first = model.loss(model(*make_batch(32, g)[:3]), make_batch(32, g)[3]).item()
last = train(model, 150, g)
print(f"attention seq2seq loss {first:.3f} -> {last:.3f}")
assert last < 0.6 * first

model.eval()
batch = make_batch(4, g)
preds, attn = model.predict_step(batch, torch.device('cpu'), num_steps, save_attention_weights=True)
print(preds)
print(len(attn), attn[0][0].shape)
scores = []
for p, l in zip(preds.tolist(), batch[3].tolist()):
    p = p[:p.index(EOS)] if EOS in p else p
    l = l[:l.index(EOS)]
    if p:
        scores.append(bleu(' '.join(map(str, p)), ' '.join(map(str, l)), k=2))
print('bleu', [round(s, 3) for s in scores])
w = attn[0][0]
assert torch.allclose(w.sum(-1), torch.ones_like(w.sum(-1)))
valid = batch[2]
assert torch.all(w[:, 0, :][torch.arange(num_steps)[None, :] >= valid[:, None]] < 1e-5)


# beam search on the attention model, one source sentence
@torch.no_grad()
def beam_search(model, src, src_valid_len, beam_size, num_steps):
    enc_outputs = model.encoder(src, src_valid_len)
    state = model.decoder.init_state(enc_outputs, src_valid_len)
    seqs = torch.full((1, 1), BOS, dtype=torch.long)
    scores = torch.zeros(1)
    finished = []
    for _ in range(num_steps):
        k = seqs.shape[0]
        st = [state[0].expand(k, -1, -1), state[1], state[2].expand(k)]
        Y, (enc, hid, vl) = model.decoder(seqs[:, -1:], st)
        logp = F.log_softmax(Y[:, -1], dim=-1)
        cand = (scores[:, None] + logp).reshape(-1)
        top, idx = torch.topk(cand, beam_size)
        beam, tok = idx // VOCAB, idx % VOCAB
        seqs = torch.cat([seqs[beam], tok[:, None]], dim=1)
        scores = top
        state = [state[0], hid[:, beam], state[2]]
        done = tok == EOS
        for s, sc in zip(seqs[done], scores[done]):
            finished.append((sc.item() / (len(s) - 1) ** 0.75, s[1:-1].tolist()))
        if done.all():
            break
        seqs, scores = seqs[~done], scores[~done]
        state[1] = state[1][:, ~done]
        beam_size = int((~done).sum())
    finished.sort(key=lambda t: t[0], reverse=True)
    return finished


src, _, src_valid_len, label = make_batch(1, g)
hyps = beam_search(model, src, src_valid_len, beam_size=3, num_steps=num_steps)
print('source', src[0, :int(src_valid_len) - 1].tolist(), 'beams', hyps[:2])
assert len(hyps) >= 1 and hyps[0][0] <= 0
