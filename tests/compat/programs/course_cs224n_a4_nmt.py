"""Stanford CS224n assignment 4 (neural machine translation with attention), a student's
completed nmt_model.py (as in the many solutions on GitHub) with the assignment's vocab.py /
utils.py pieces it calls (VocabEntry.to_input_tensor, pad_sents, batch_iter) and run.py's train /
evaluate_ppl / beam-search decode loop, on a toy 'language' (the target spells the source words
backwards) instead of the Cherokee-English corpus; torch.save of the vocab object left out (it
pickles). The idioms: nn.Embedding(padding_idx=...), a bidirectional nn.LSTM over
pack_padded_sequence(input=..., lengths=..., enforce_sorted=True) and pad_packed_sequence(
batch_first=True), nn.LSTMCell stepped over torch.split(y, 1, dim=0), attention by torch.bmm with
e_t.data.masked_fill_(enc_masks.bool(), -float('inf')), torch.gather(proba, index=...,
dim=-1), a `device` property from a weight, p.data.uniform_, clip_grad_norm_, the beam search
with expand / expand_as, torch.topk(k=...), torch.floor_divide and %, namedtuple Hypothesis, and
torch.tensor(list, dtype=torch.long, device=...)."""
import math
import sys
from collections import namedtuple, Counter
from itertools import chain
from typing import List, Tuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_packed_sequence, pack_padded_sequence

Hypothesis = namedtuple('Hypothesis', ['value', 'score'])


# ------------------------------------------------------------------ utils.py
def pad_sents(sents, pad_token):
    """ Pad list of sentences according to the longest sentence in the batch."""
    sents_padded = []
    max_len = max(len(s) for s in sents)
    for s in sents:
        padded = [pad_token] * max_len
        padded[:len(s)] = s
        sents_padded.append(padded)
    return sents_padded


def batch_iter(data, batch_size, shuffle=False):
    """ Yield batches of source and target sentences reverse sorted by length (largest to smallest)."""
    batch_num = math.ceil(len(data) / batch_size)
    index_array = list(range(len(data)))

    if shuffle:
        np.random.shuffle(index_array)

    for i in range(batch_num):
        indices = index_array[i * batch_size: (i + 1) * batch_size]
        examples = [data[idx] for idx in indices]

        examples = sorted(examples, key=lambda e: len(e[0]), reverse=True)
        src_sents = [e[0] for e in examples]
        tgt_sents = [e[1] for e in examples]

        yield src_sents, tgt_sents


# ------------------------------------------------------------------ vocab.py
class VocabEntry(object):
    def __init__(self, word2id=None):
        if word2id:
            self.word2id = word2id
        else:
            self.word2id = dict()
            self.word2id['<pad>'] = 0   # Pad Token
            self.word2id['<s>'] = 1 # Start Token
            self.word2id['</s>'] = 2    # End Token
            self.word2id['<unk>'] = 3   # Unknown Token
        self.unk_id = self.word2id['<unk>']
        self.id2word = {v: k for k, v in self.word2id.items()}

    def __getitem__(self, word):
        return self.word2id.get(word, self.unk_id)

    def __len__(self):
        return len(self.word2id)

    def add(self, word):
        if word not in self:
            wid = self.word2id[word] = len(self)
            self.id2word[wid] = word
            return wid
        else:
            return self[word]

    def __contains__(self, word):
        return word in self.word2id

    def words2indices(self, sents):
        if type(sents[0]) == list:
            return [[self[w] for w in s] for s in sents]
        else:
            return [self[w] for w in sents]

    def to_input_tensor(self, sents: List[List[str]], device: torch.device) -> torch.Tensor:
        word_ids = self.words2indices(sents)
        sents_t = pad_sents(word_ids, self['<pad>'])
        sents_var = torch.tensor(sents_t, dtype=torch.long, device=device)
        return torch.t(sents_var)

    @staticmethod
    def from_corpus(corpus, size, freq_cutoff=2):
        vocab_entry = VocabEntry()
        word_freq = Counter(chain(*corpus))
        valid_words = [w for w, v in word_freq.items() if v >= freq_cutoff]
        top_k_words = sorted(valid_words, key=lambda w: (-word_freq[w], w))[:size]
        for word in top_k_words:
            vocab_entry.add(word)
        return vocab_entry


class Vocab(object):
    def __init__(self, src_vocab: VocabEntry, tgt_vocab: VocabEntry):
        self.src = src_vocab
        self.tgt = tgt_vocab


# ------------------------------------------------------------------ model_embeddings.py / nmt_model.py
class ModelEmbeddings(nn.Module):
    def __init__(self, embed_size, vocab):
        super(ModelEmbeddings, self).__init__()
        self.embed_size = embed_size

        src_pad_token_idx = vocab.src['<pad>']
        tgt_pad_token_idx = vocab.tgt['<pad>']

        self.source = nn.Embedding(len(vocab.src), embed_size, padding_idx=src_pad_token_idx)
        self.target = nn.Embedding(len(vocab.tgt), embed_size, padding_idx=tgt_pad_token_idx)

class NMT(nn.Module):
    def __init__(self, embed_size, hidden_size, vocab, dropout_rate=0.2):
        super(NMT, self).__init__()
        self.model_embeddings = ModelEmbeddings(embed_size, vocab)
        self.hidden_size = hidden_size
        self.dropout_rate = dropout_rate
        self.vocab = vocab

        self.encoder = nn.LSTM(input_size=embed_size, hidden_size=hidden_size, num_layers=1,
                               bias=True, batch_first=False, bidirectional=True)
        self.decoder = nn.LSTMCell(input_size=hidden_size+embed_size, hidden_size=hidden_size,
                                   bias=True)
        self.h_projection = nn.Linear(in_features=2*hidden_size, out_features=hidden_size,
                                      bias=False)
        self.c_projection = nn.Linear(in_features=2*hidden_size, out_features=hidden_size,
                                      bias=False)
        self.att_projection = nn.Linear(in_features=2*hidden_size, out_features=hidden_size,
                                        bias=False)
        self.combined_output_projection = nn.Linear(in_features=3*hidden_size,
                                                    out_features=hidden_size, bias=False)
        self.target_vocab_projection = nn.Linear(in_features=hidden_size,
                                                 out_features=len(vocab.tgt), bias=False)
        self.dropout = nn.Dropout(p=dropout_rate)

    def forward(self, source: List[List[str]], target: List[List[str]]) -> torch.Tensor:
        # Compute sentence lengths
        source_lengths = [len(s) for s in source]

        # Convert list of lists into tensors
        source_padded = self.vocab.src.to_input_tensor(source, device=self.device) #(l_src, b)
        target_padded = self.vocab.tgt.to_input_tensor(target, device=self.device) #(l_tgt, b)

        enc_hiddens, dec_init_state = self.encode(source_padded, source_lengths)
        enc_masks = self.generate_sent_masks(enc_hiddens, source_lengths)
        combined_outputs = self.decode(enc_hiddens, enc_masks, dec_init_state, target_padded) #(l_tgt, b, h)
        proba = F.log_softmax(self.target_vocab_projection(combined_outputs), dim=-1) #(l_tgt, b, vocab_tgt)

        # Zero out, probabilities for which we have nothing in the target text
        target_masks = (target_padded != self.vocab.tgt['<pad>']).float() #(l_tgt, b)

        # Compute log probability of generating true target words
        target_gold_words_log_prob = torch.gather(proba, index=target_padded[1:].unsqueeze(-1),
                                                  dim=-1).squeeze(-1) * target_masks[1:]
        scores = target_gold_words_log_prob.sum(dim=0)
        return scores

    def encode(self, source_padded: torch.Tensor,
              source_lengths: List[int]) -> Tuple[torch.Tensor, Tuple[torch.Tensor, torch.Tensor]]:
        # Retrieve embeddings of source sentences -> shape (seq_len, batch, emb_size)
        x = self.model_embeddings.source(source_padded)

        # Pack padded input
        x_packed = pack_padded_sequence(input=x, lengths=source_lengths, batch_first=False,
                                        enforce_sorted= True)
        # Retrieve the outputs of the LSTM
        output, (last_hidden, last_cell) = self.encoder(x_packed)

        # Pad packed hidden states and put batch first -> shape (batch, seq_len, 2*hidden_size)
        enc_hiddens, _ = pad_packed_sequence(output, batch_first=True)

        init_decoder_hidden = self.h_projection(torch.cat((last_hidden[0], last_hidden[1]), dim=1))
        init_decoder_cell = self.c_projection(torch.cat((last_cell[0], last_cell[1]), dim=1))
        dec_init_state = (init_decoder_hidden, init_decoder_cell)

        return enc_hiddens, dec_init_state

    def decode(self, enc_hiddens: torch.Tensor, enc_masks: torch.Tensor,
               dec_init_state: Tuple[torch.Tensor, torch.Tensor],
               target_padded: torch.Tensor) -> torch.Tensor:
        # Chop of the <END> token for max length sentences.
        target_padded = target_padded[:-1]

        # Initialize the decoder state (hidden and cell)
        dec_state = dec_init_state

        # Initialize previous combined-output vector (o{t-1}) as zero
        batch_size = enc_hiddens.size(0)
        o_prev = torch.zeros(batch_size, self.hidden_size, device=self.device)

        # List used to collect the combined-output vectors (o{t}) on each step
        combined_outputs = []

        y = self.model_embeddings.target(target_padded)

        enc_hiddens_proj = self.att_projection(enc_hiddens)

        for y_t in torch.split(y, 1, dim=0):
            y_t = torch.squeeze(y_t, dim=0)
            ybar_t = torch.cat((y_t, o_prev), dim=1)
            dec_state, o_t, _ = self.step(ybar_t, dec_state, enc_hiddens, enc_hiddens_proj,
                                          enc_masks)
            combined_outputs.append(o_t)
            o_prev = o_t

        combined_outputs = torch.stack(combined_outputs, dim=0)

        return combined_outputs

    def step(self, ybar_t: torch.Tensor,
            dec_state: Tuple[torch.Tensor, torch.Tensor],
            enc_hiddens: torch.Tensor,
            enc_hiddens_proj: torch.Tensor,
            enc_masks: torch.Tensor) -> Tuple[Tuple, torch.Tensor, torch.Tensor]:
        combined_output = None

        # New decoder hidden and cell states
        dec_state = self.decoder(ybar_t, dec_state)
        dec_hidden, _ = dec_state # cell state not needed below

        # Attention scores - shape (b, l_src)
        e_t = torch.squeeze(torch.bmm(enc_hiddens_proj, torch.unsqueeze(dec_hidden, dim=2)), dim=2)

        # Set e_t to -inf where enc_masks has 1
        if enc_masks is not None:
            e_t.data.masked_fill_(enc_masks.bool(), -float('inf'))

        # Distribution of attention scores
        alpha_t = F.softmax(e_t, dim=1)

        # Weighted sum of encoder hidden states based on attention distribution
        a_t = torch.squeeze(torch.bmm(torch.unsqueeze(alpha_t, dim=1), enc_hiddens), dim=1)

        # Compute the combined-output vectors
        u_t = torch.cat((a_t, dec_hidden), dim=1)
        v_t = self.combined_output_projection(u_t)
        o_t = self.dropout(torch.tanh(v_t))

        combined_output = o_t
        return dec_state, combined_output, e_t

    def generate_sent_masks(self, enc_hiddens: torch.Tensor, source_lengths: List[int]) -> torch.Tensor:
        enc_masks = torch.zeros(enc_hiddens.size(0), enc_hiddens.size(1), dtype=torch.float)
        for e_id, src_len in enumerate(source_lengths):
            enc_masks[e_id, src_len:] = 1
        return enc_masks.to(self.device)

    def beam_search(self, src_sent: List[str], beam_size: int=5, max_decoding_time_step: int=70) -> List[Hypothesis]:
        src_sents_var = self.vocab.src.to_input_tensor([src_sent], self.device)

        src_encodings, dec_init_vec = self.encode(src_sents_var, [len(src_sent)])
        src_encodings_att_linear = self.att_projection(src_encodings)

        h_tm1 = dec_init_vec
        att_tm1 = torch.zeros(1, self.hidden_size, device=self.device)

        eos_id = self.vocab.tgt['</s>']

        hypotheses = [['<s>']]
        hyp_scores = torch.zeros(len(hypotheses), dtype=torch.float, device=self.device)
        completed_hypotheses = []

        t = 0
        while len(completed_hypotheses) < beam_size and t < max_decoding_time_step:
            t += 1
            hyp_num = len(hypotheses)

            exp_src_encodings = src_encodings.expand(hyp_num, src_encodings.size(1), src_encodings.size(2))

            exp_src_encodings_att_linear = src_encodings_att_linear.expand(hyp_num, src_encodings_att_linear.size(1),
                                                                           src_encodings_att_linear.size(2))

            y_tm1 = torch.tensor([self.vocab.tgt[hyp[-1]] for hyp in hypotheses], dtype=torch.long, device=self.device)
            y_t_embed = self.model_embeddings.target(y_tm1)

            x = torch.cat([y_t_embed, att_tm1], dim=-1)

            (h_t, cell_t), att_t, _  = self.step(x, h_tm1, exp_src_encodings, exp_src_encodings_att_linear, enc_masks=None)

            # log probabilities over target words
            log_p_t = F.log_softmax(self.target_vocab_projection(att_t), dim=-1)

            live_hyp_num = beam_size - len(completed_hypotheses)
            contiuating_hyp_scores = (hyp_scores.unsqueeze(1).expand_as(log_p_t) + log_p_t).view(-1)
            top_cand_hyp_scores, top_cand_hyp_pos = torch.topk(contiuating_hyp_scores, k=live_hyp_num)

            prev_hyp_ids = torch.floor_divide(top_cand_hyp_pos, len(self.vocab.tgt))
            hyp_word_ids = top_cand_hyp_pos % len(self.vocab.tgt)

            new_hypotheses = []
            live_hyp_ids = []
            new_hyp_scores = []

            for prev_hyp_id, hyp_word_id, cand_new_hyp_score in zip(prev_hyp_ids, hyp_word_ids, top_cand_hyp_scores):
                prev_hyp_id = prev_hyp_id.item()
                hyp_word_id = hyp_word_id.item()
                cand_new_hyp_score = cand_new_hyp_score.item()

                hyp_word = self.vocab.tgt.id2word[hyp_word_id]
                new_hyp_sent = hypotheses[prev_hyp_id] + [hyp_word]
                if hyp_word == '</s>':
                    completed_hypotheses.append(Hypothesis(value=new_hyp_sent[1:-1],
                                                           score=cand_new_hyp_score))
                else:
                    new_hypotheses.append(new_hyp_sent)
                    live_hyp_ids.append(prev_hyp_id)
                    new_hyp_scores.append(cand_new_hyp_score)

            if len(completed_hypotheses) == beam_size:
                break

            live_hyp_ids = torch.tensor(live_hyp_ids, dtype=torch.long, device=self.device)
            h_tm1 = (h_t[live_hyp_ids], cell_t[live_hyp_ids])
            att_tm1 = att_t[live_hyp_ids]

            hypotheses = new_hypotheses
            hyp_scores = torch.tensor(new_hyp_scores, dtype=torch.float, device=self.device)

        if len(completed_hypotheses) == 0:
            completed_hypotheses.append(Hypothesis(value=hypotheses[0][1:],
                                                   score=hyp_scores[0].item()))

        completed_hypotheses.sort(key=lambda hyp: hyp.score, reverse=True)

        return completed_hypotheses

    @property
    def device(self) -> torch.device:
        """ Determine which device to place the Tensors upon, CPU or GPU.
        """
        return self.model_embeddings.source.weight.device


# ------------------------------------------------------------------ run.py
def evaluate_ppl(model, dev_data, batch_size=32):
    was_training = model.training
    model.eval()

    cum_loss = 0.
    cum_tgt_words = 0.

    # no_grad() signals backend to throw away all gradients
    with torch.no_grad():
        for src_sents, tgt_sents in batch_iter(dev_data, batch_size):
            loss = -model(src_sents, tgt_sents).sum()

            cum_loss += loss.item()
            tgt_word_num_to_predict = sum(len(s[1:]) for s in tgt_sents)  # omitting leading `<s>`
            cum_tgt_words += tgt_word_num_to_predict

        ppl = np.exp(cum_loss / cum_tgt_words)

    if was_training:
        model.train()

    return ppl


np.random.seed(0)
torch.manual_seed(0)

letters = 'abcdefgh'
words = [''.join(np.random.choice(list(letters), size=np.random.randint(2, 4))) for _ in range(12)]
def make_sentence():
    src = [words[i] for i in np.random.randint(0, len(words), size=np.random.randint(2, 6))]
    tgt = ['<s>'] + [w[::-1] for w in reversed(src)] + ['</s>']
    return src, tgt
train_data = [make_sentence() for _ in range(96)]
dev_data = [make_sentence() for _ in range(16)]

src_vocab = VocabEntry.from_corpus([s for s, _ in train_data], 50, freq_cutoff=1)
tgt_vocab = VocabEntry.from_corpus([t for _, t in train_data], 50, freq_cutoff=1)
vocab = Vocab(src_vocab, tgt_vocab)
print('src vocab %d, tgt vocab %d' % (len(vocab.src), len(vocab.tgt)))

model = NMT(embed_size=16, hidden_size=24, dropout_rate=0.3, vocab=vocab)
model.train()

uniform_init = 0.1
if np.abs(uniform_init) > 0.:
    print('uniformly initialize parameters [-%f, +%f]' % (uniform_init, uniform_init), file=sys.stderr)
    for p in model.parameters():
        p.data.uniform_(-uniform_init, uniform_init)

device = torch.device("cpu")
print('use device: %s' % device, file=sys.stderr)
model = model.to(device)

optimizer = torch.optim.Adam(model.parameters(), lr=0.005)
train_batch_size = 16
clip_grad = 5.0

ppls = [evaluate_ppl(model, dev_data, batch_size=8)]
for epoch in range(4):
    for src_sents, tgt_sents in batch_iter(train_data, batch_size=train_batch_size, shuffle=True):
        optimizer.zero_grad()

        batch_size = len(src_sents)

        example_losses = -model(src_sents, tgt_sents) # (batch_size,)
        batch_loss = example_losses.sum()
        loss = batch_loss / batch_size

        loss.backward()

        # clip gradient
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), clip_grad)

        optimizer.step()
    dev_ppl = evaluate_ppl(model, dev_data, batch_size=8)   # dev batch size can be a bit larger
    ppls.append(dev_ppl)
    print('epoch %d, loss %.4f, grad norm %.4f, dev. ppl %f' % (epoch, loss.item(), grad_norm, dev_ppl))

assert ppls[-1] < ppls[0]
assert model.model_embeddings.source.weight.grad[0].abs().sum() == 0   # the padding row

model.eval()
hypotheses = []
with torch.no_grad():
    for src_sent, _ in dev_data[:4]:
        example_hyps = model.beam_search(src_sent, beam_size=3, max_decoding_time_step=10)
        hypotheses.append(example_hyps)
for (src_sent, tgt_sent), hyps in zip(dev_data[:4], hypotheses):
    top_hyp = hyps[0]
    print(' '.join(src_sent), '->', ' '.join(top_hyp.value), '%.4f' % top_hyp.score)
    assert all(h1.score >= h2.score for h1, h2 in zip(hyps, hyps[1:]))
