"""codertimo/BERT-pytorch (bert_pytorch/: dataset, model, trainer) at toy size on a synthetic
tab-separated corpus written to disk: WordVocab built with a Counter (specials <pad> <unk> <eos>
<sos> <mask>, frequency then alphabetical order), BERTDataset reading the corpus through tqdm
with random_sent (50% next sentence) and random_word (15% of tokens: 80% <mask>, 10% random,
10% kept; labels 0 elsewhere), {key: torch.tensor(value)} items, DataLoader; the model: sinusoid
PositionalEmbedding buffer (pe.require_grad = False, pe[:, 0::2] = torch.sin(...)),
TokenEmbedding / SegmentEmbedding subclassing nn.Embedding with padding_idx=0, the padding mask
(x > 0).unsqueeze(1).repeat(1, x.size(1), 1).unsqueeze(1) used by masked_fill(mask == 0, -1e9),
MultiHeadedAttention over a ModuleList of three projections with view / transpose /
.contiguous().view, the tanh GELU, LayerNorm with x.std(-1, keepdim=True), SublayerConnection
taking a lambda, BERTLM's NextSentencePrediction (x[:, 0]) and MaskedLanguageModel with
nn.LogSoftmax; BERTTrainer: Adam(weight_decay=0.01), ScheduledOptim (np.power warm-up that
writes param_group['lr']), nn.NLLLoss(ignore_index=0) on mask_lm_output.transpose(1, 2), the
tqdm loop with data_iter.write(str(post_fix)), argmax(dim=-1).eq(...).sum().item(), train and
test epochs, and save. One change: save() stores the state_dict, where the repo pickles the
whole module (torch.save(self.bert.cpu(), path))."""
import math
import os
import random
from collections import Counter

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import tqdm
from torch.optim import Adam
from torch.utils.data import DataLoader, Dataset


# ---------------------------------------------------------------- dataset/vocab.py
class TorchVocab(object):
    def __init__(self, counter, max_size=None, min_freq=1, specials=['<pad>', '<oov>']):
        self.freqs = counter
        counter = counter.copy()
        min_freq = max(min_freq, 1)
        self.itos = list(specials)
        for tok in specials:
            del counter[tok]
        max_size = None if max_size is None else max_size + len(self.itos)
        words_and_frequencies = sorted(counter.items(), key=lambda tup: tup[0])
        words_and_frequencies.sort(key=lambda tup: tup[1], reverse=True)
        for word, freq in words_and_frequencies:
            if freq < min_freq or len(self.itos) == max_size:
                break
            self.itos.append(word)
        self.stoi = {tok: i for i, tok in enumerate(self.itos)}

    def __len__(self):
        return len(self.itos)


class Vocab(TorchVocab):
    def __init__(self, counter, max_size=None, min_freq=1):
        self.pad_index = 0
        self.unk_index = 1
        self.eos_index = 2
        self.sos_index = 3
        self.mask_index = 4
        super().__init__(counter, specials=["<pad>", "<unk>", "<eos>", "<sos>", "<mask>"],
                         max_size=max_size, min_freq=min_freq)


class WordVocab(Vocab):
    def __init__(self, texts, max_size=None, min_freq=1):
        print("Building Vocab")
        counter = Counter()
        for line in tqdm.tqdm(texts):
            if isinstance(line, list):
                words = line
            else:
                words = line.replace("\n", "").replace("\t", "").split()
            for word in words:
                counter[word] += 1
        super().__init__(counter, max_size=max_size, min_freq=min_freq)

    def from_seq(self, seq, join=False, with_pad=False):
        words = [self.itos[idx] if idx < len(self.itos) else "<%d>" % idx
                 for idx in seq if not with_pad or idx != self.pad_index]
        return " ".join(words) if join else words


# ---------------------------------------------------------------- dataset/dataset.py
class BERTDataset(Dataset):
    def __init__(self, corpus_path, vocab, seq_len, encoding="utf-8", corpus_lines=None, on_memory=True):
        self.vocab = vocab
        self.seq_len = seq_len
        self.on_memory = on_memory
        self.corpus_lines = corpus_lines
        self.corpus_path = corpus_path
        self.encoding = encoding
        with open(corpus_path, "r", encoding=encoding) as f:
            if on_memory:
                self.lines = [line[:-1].split("\t") for line in tqdm.tqdm(f, desc="Loading Dataset", total=corpus_lines)]
                self.corpus_lines = len(self.lines)

    def __len__(self):
        return self.corpus_lines

    def __getitem__(self, item):
        t1, t2, is_next_label = self.random_sent(item)
        t1_random, t1_label = self.random_word(t1)
        t2_random, t2_label = self.random_word(t2)
        # [CLS] tag = SOS tag, [SEP] tag = EOS tag
        t1 = [self.vocab.sos_index] + t1_random + [self.vocab.eos_index]
        t2 = t2_random + [self.vocab.eos_index]
        t1_label = [self.vocab.pad_index] + t1_label + [self.vocab.pad_index]
        t2_label = t2_label + [self.vocab.pad_index]
        segment_label = ([1 for _ in range(len(t1))] + [2 for _ in range(len(t2))])[:self.seq_len]
        bert_input = (t1 + t2)[:self.seq_len]
        bert_label = (t1_label + t2_label)[:self.seq_len]
        padding = [self.vocab.pad_index for _ in range(self.seq_len - len(bert_input))]
        bert_input.extend(padding), bert_label.extend(padding), segment_label.extend(padding)
        output = {"bert_input": bert_input, "bert_label": bert_label, "segment_label": segment_label,
                  "is_next": is_next_label}
        return {key: torch.tensor(value) for key, value in output.items()}

    def random_word(self, sentence):
        tokens = sentence.split()
        output_label = []
        for i, token in enumerate(tokens):
            prob = random.random()
            if prob < 0.15:
                prob /= 0.15
                if prob < 0.8:            # 80% randomly change token to mask token
                    tokens[i] = self.vocab.mask_index
                elif prob < 0.9:          # 10% randomly change token to random token
                    tokens[i] = random.randrange(len(self.vocab))
                else:                     # 10% randomly change token to current token
                    tokens[i] = self.vocab.stoi.get(token, self.vocab.unk_index)
                output_label.append(self.vocab.stoi.get(token, self.vocab.unk_index))
            else:
                tokens[i] = self.vocab.stoi.get(token, self.vocab.unk_index)
                output_label.append(0)
        return tokens, output_label

    def random_sent(self, index):
        t1, t2 = self.get_corpus_line(index)
        if random.random() > 0.5:        # output_text, label(isNotNext:0, isNext:1)
            return t1, t2, 1
        return t1, self.get_random_line(), 0

    def get_corpus_line(self, item):
        return self.lines[item][0], self.lines[item][1]

    def get_random_line(self):
        return self.lines[random.randrange(len(self.lines))][1]


# ---------------------------------------------------------------- model/
class Attention(nn.Module):
    def forward(self, query, key, value, mask=None, dropout=None):
        scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(query.size(-1))
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        p_attn = F.softmax(scores, dim=-1)
        if dropout is not None:
            p_attn = dropout(p_attn)
        return torch.matmul(p_attn, value), p_attn


class MultiHeadedAttention(nn.Module):
    def __init__(self, h, d_model, dropout=0.1):
        super().__init__()
        assert d_model % h == 0
        self.d_k = d_model // h
        self.h = h
        self.linear_layers = nn.ModuleList([nn.Linear(d_model, d_model) for _ in range(3)])
        self.output_linear = nn.Linear(d_model, d_model)
        self.attention = Attention()
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, query, key, value, mask=None):
        batch_size = query.size(0)
        query, key, value = [l(x).view(batch_size, -1, self.h, self.d_k).transpose(1, 2)
                             for l, x in zip(self.linear_layers, (query, key, value))]
        x, attn = self.attention(query, key, value, mask=mask, dropout=self.dropout)
        x = x.transpose(1, 2).contiguous().view(batch_size, -1, self.h * self.d_k)
        return self.output_linear(x)


class GELU(nn.Module):
    def forward(self, x):
        return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * torch.pow(x, 3))))


class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.1):
        super(PositionwiseFeedForward, self).__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)
        self.activation = GELU()

    def forward(self, x):
        return self.w_2(self.dropout(self.activation(self.w_1(x))))


class LayerNorm(nn.Module):
    def __init__(self, features, eps=1e-6):
        super(LayerNorm, self).__init__()
        self.a_2 = nn.Parameter(torch.ones(features))
        self.b_2 = nn.Parameter(torch.zeros(features))
        self.eps = eps

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        std = x.std(-1, keepdim=True)
        return self.a_2 * (x - mean) / (std + self.eps) + self.b_2


class SublayerConnection(nn.Module):
    def __init__(self, size, dropout):
        super(SublayerConnection, self).__init__()
        self.norm = LayerNorm(size)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, sublayer):
        return x + self.dropout(sublayer(self.norm(x)))


class TransformerBlock(nn.Module):
    def __init__(self, hidden, attn_heads, feed_forward_hidden, dropout):
        super().__init__()
        self.attention = MultiHeadedAttention(h=attn_heads, d_model=hidden)
        self.feed_forward = PositionwiseFeedForward(d_model=hidden, d_ff=feed_forward_hidden, dropout=dropout)
        self.input_sublayer = SublayerConnection(size=hidden, dropout=dropout)
        self.output_sublayer = SublayerConnection(size=hidden, dropout=dropout)
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, x, mask):
        x = self.input_sublayer(x, lambda _x: self.attention.forward(_x, _x, _x, mask=mask))
        x = self.output_sublayer(x, self.feed_forward)
        return self.dropout(x)


class PositionalEmbedding(nn.Module):
    def __init__(self, d_model, max_len=512):
        super().__init__()
        pe = torch.zeros(max_len, d_model).float()
        pe.require_grad = False
        position = torch.arange(0, max_len).float().unsqueeze(1)
        div_term = (torch.arange(0, d_model, 2).float() * -(math.log(10000.0) / d_model)).exp()
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0)
        self.register_buffer('pe', pe)

    def forward(self, x):
        return self.pe[:, :x.size(1)]


class SegmentEmbedding(nn.Embedding):
    def __init__(self, embed_size=512):
        super().__init__(3, embed_size, padding_idx=0)


class TokenEmbedding(nn.Embedding):
    def __init__(self, vocab_size, embed_size=512):
        super().__init__(vocab_size, embed_size, padding_idx=0)


class BERTEmbedding(nn.Module):
    def __init__(self, vocab_size, embed_size, dropout=0.1):
        super().__init__()
        self.token = TokenEmbedding(vocab_size=vocab_size, embed_size=embed_size)
        self.position = PositionalEmbedding(d_model=self.token.embedding_dim)
        self.segment = SegmentEmbedding(embed_size=self.token.embedding_dim)
        self.dropout = nn.Dropout(p=dropout)
        self.embed_size = embed_size

    def forward(self, sequence, segment_label):
        x = self.token(sequence) + self.position(sequence) + self.segment(segment_label)
        return self.dropout(x)


class BERT(nn.Module):
    def __init__(self, vocab_size, hidden=768, n_layers=12, attn_heads=12, dropout=0.1):
        super().__init__()
        self.hidden = hidden
        self.n_layers = n_layers
        self.attn_heads = attn_heads
        self.feed_forward_hidden = hidden * 4
        self.embedding = BERTEmbedding(vocab_size=vocab_size, embed_size=hidden)
        self.transformer_blocks = nn.ModuleList(
            [TransformerBlock(hidden, attn_heads, hidden * 4, dropout) for _ in range(n_layers)])

    def forward(self, x, segment_info):
        # attention masking for padded token: (batch_size, 1, seq_len, seq_len)
        mask = (x > 0).unsqueeze(1).repeat(1, x.size(1), 1).unsqueeze(1)
        x = self.embedding(x, segment_info)
        for transformer in self.transformer_blocks:
            x = transformer.forward(x, mask)
        return x


class NextSentencePrediction(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.linear = nn.Linear(hidden, 2)
        self.softmax = nn.LogSoftmax(dim=-1)

    def forward(self, x):
        return self.softmax(self.linear(x[:, 0]))


class MaskedLanguageModel(nn.Module):
    def __init__(self, hidden, vocab_size):
        super().__init__()
        self.linear = nn.Linear(hidden, vocab_size)
        self.softmax = nn.LogSoftmax(dim=-1)

    def forward(self, x):
        return self.softmax(self.linear(x))


class BERTLM(nn.Module):
    def __init__(self, bert: BERT, vocab_size):
        super().__init__()
        self.bert = bert
        self.next_sentence = NextSentencePrediction(self.bert.hidden)
        self.mask_lm = MaskedLanguageModel(self.bert.hidden, vocab_size)

    def forward(self, x, segment_label):
        x = self.bert(x, segment_label)
        return self.next_sentence(x), self.mask_lm(x)


# ---------------------------------------------------------------- trainer/
class ScheduledOptim():
    '''A simple wrapper class for learning rate scheduling'''

    def __init__(self, optimizer, d_model, n_warmup_steps):
        self._optimizer = optimizer
        self.n_warmup_steps = n_warmup_steps
        self.n_current_steps = 0
        self.init_lr = np.power(d_model, -0.5)

    def step_and_update_lr(self):
        self._update_learning_rate()
        self._optimizer.step()

    def zero_grad(self):
        self._optimizer.zero_grad()

    def _get_lr_scale(self):
        return np.min([np.power(self.n_current_steps, -0.5),
                       np.power(self.n_warmup_steps, -1.5) * self.n_current_steps])

    def _update_learning_rate(self):
        self.n_current_steps += 1
        lr = self.init_lr * self._get_lr_scale()
        for param_group in self._optimizer.param_groups:
            param_group['lr'] = lr


class BERTTrainer:
    def __init__(self, bert, vocab_size, train_dataloader, test_dataloader=None, lr=1e-4, betas=(0.9, 0.999),
                 weight_decay=0.01, warmup_steps=10000, with_cuda=True, cuda_devices=None, log_freq=10):
        cuda_condition = torch.cuda.is_available() and with_cuda
        self.device = torch.device("cuda:0" if cuda_condition else "cpu")
        self.bert = bert
        self.model = BERTLM(bert, vocab_size).to(self.device)
        if with_cuda and torch.cuda.device_count() > 1:
            self.model = nn.DataParallel(self.model, device_ids=cuda_devices)
        self.train_data = train_dataloader
        self.test_data = test_dataloader
        self.optim = Adam(self.model.parameters(), lr=lr, betas=betas, weight_decay=weight_decay)
        self.optim_schedule = ScheduledOptim(self.optim, self.bert.hidden, n_warmup_steps=warmup_steps)
        self.criterion = nn.NLLLoss(ignore_index=0)
        self.log_freq = log_freq
        print("Total Parameters:", sum([p.nelement() for p in self.model.parameters()]))

    def train(self, epoch):
        return self.iteration(epoch, self.train_data)

    def test(self, epoch):
        return self.iteration(epoch, self.test_data, train=False)

    def iteration(self, epoch, data_loader, train=True):
        str_code = "train" if train else "test"
        data_iter = tqdm.tqdm(enumerate(data_loader), desc="EP_%s:%d" % (str_code, epoch),
                              total=len(data_loader), bar_format="{l_bar}{r_bar}")
        avg_loss = 0.0
        total_correct = 0
        total_element = 0
        for i, data in data_iter:
            data = {key: value.to(self.device) for key, value in data.items()}
            next_sent_output, mask_lm_output = self.model.forward(data["bert_input"], data["segment_label"])
            next_loss = self.criterion(next_sent_output, data["is_next"])
            mask_loss = self.criterion(mask_lm_output.transpose(1, 2), data["bert_label"])
            loss = next_loss + mask_loss
            if train:
                self.optim_schedule.zero_grad()
                loss.backward()
                self.optim_schedule.step_and_update_lr()
            correct = next_sent_output.argmax(dim=-1).eq(data["is_next"]).sum().item()
            avg_loss += loss.item()
            total_correct += correct
            total_element += data["is_next"].nelement()
            post_fix = {"epoch": epoch, "iter": i, "avg_loss": avg_loss / (i + 1),
                        "avg_acc": total_correct / total_element * 100, "loss": loss.item()}
            if i % self.log_freq == 0:
                data_iter.write(str(post_fix))
        print("EP%d_%s, avg_loss=" % (epoch, str_code), avg_loss / len(data_iter), "total_acc=",
              total_correct * 100.0 / total_element)
        return avg_loss / len(data_iter)

    def save(self, epoch, file_path="output/bert_trained.model"):
        output_path = file_path + ".ep%d" % epoch
        torch.save(self.bert.cpu().state_dict(), output_path)
        self.bert.to(self.device)
        print("EP:%d Model Saved on:" % epoch, output_path)
        return output_path


# ---------------------------------------------------------------- the run
random.seed(0)
torch.manual_seed(0)
subjects, verbs, objects = ["the cat", "a dog", "my bird", "the fish"], ["eats", "sees", "likes"], ["food", "a ball", "water"]
with open("corpus.small", "w", encoding="utf-8") as f:
    for i in range(48):
        s, v, o = subjects[i % 4], verbs[i % 3], objects[(i // 3) % 3]
        f.write(f"{s} {v} {o}\t{s.split()[1]} {v} more {o}\n")

with open("corpus.small", "r", encoding="utf-8") as f:
    vocab = WordVocab(f, max_size=None, min_freq=1)
assert vocab.itos[:5] == ["<pad>", "<unk>", "<eos>", "<sos>", "<mask>"]
counts = [vocab.freqs[w] for w in vocab.itos[5:]]
assert counts == sorted(counts, reverse=True)
print("Vocab Size: ", len(vocab))

train_dataset = BERTDataset("corpus.small", vocab, seq_len=16, on_memory=True)
assert len(train_dataset) == 48
item = train_dataset[0]
assert set(item) == {"bert_input", "bert_label", "segment_label", "is_next"}
assert item["bert_input"].shape == (16,) and item["bert_input"].dtype == torch.long
assert item["bert_input"][0].item() == vocab.sos_index and item["is_next"].dim() == 0
tokens, labels = zip(*(train_dataset.random_word("the cat eats food the dog sees water") for _ in range(200)))
masked = sum(l != 0 for ls in labels for l in ls) / (200 * 8)
assert 0.10 < masked < 0.20, masked

train_data_loader = DataLoader(train_dataset, batch_size=8, num_workers=0, shuffle=True)
test_data_loader = DataLoader(BERTDataset("corpus.small", vocab, seq_len=16), batch_size=16, num_workers=0)

bert = BERT(len(vocab), hidden=32, n_layers=2, attn_heads=4, dropout=0.1)
assert bert.embedding.position.pe.shape == (1, 512, 32) and "embedding.position.pe" in bert.state_dict()
assert bert.embedding.token.padding_idx == 0 and torch.count_nonzero(bert.embedding.segment.weight[0]) == 0

# the padding mask: more padding changes nothing at the real tokens
bert.eval()
x = torch.tensor([[3, 7, 9, 2, 8, 2, 0, 0]])
seg = torch.tensor([[1, 1, 1, 1, 2, 2, 0, 0]])
with torch.no_grad():
    short_out = bert(x, seg)
    long_out = bert(torch.cat([x, torch.zeros(1, 4, dtype=torch.long)], 1), torch.cat([seg, torch.zeros(1, 4, dtype=torch.long)], 1))
assert torch.allclose(short_out[:, :6], long_out[:, :6], atol=1e-5)
mask = (x > 0).unsqueeze(1).repeat(1, x.size(1), 1).unsqueeze(1)
assert mask.shape == (1, 1, 8, 8) and mask.dtype == torch.bool and not mask[0, 0, 3, 7]

trainer = BERTTrainer(bert, len(vocab), train_dataloader=train_data_loader, test_dataloader=test_data_loader,
                      lr=1e-3, betas=(0.9, 0.999), weight_decay=0.01, warmup_steps=10, with_cuda=True, log_freq=3)
lm_out = trainer.model(x, seg)
assert lm_out[0].shape == (1, 2) and lm_out[1].shape == (1, 8, len(vocab))
assert torch.allclose(lm_out[0].exp().sum(-1), torch.ones(1), atol=1e-5)
nll = trainer.criterion(lm_out[1].transpose(1, 2), x)
keep = x != 0
assert torch.allclose(nll, -lm_out[1][keep].gather(-1, x[keep].unsqueeze(-1)).mean(), atol=1e-5)

losses = []
for epoch in range(4):
    losses.append(trainer.train(epoch))
    path = trainer.save(epoch, "bert.model")
test_loss = trainer.test(3)
assert losses[-1] < losses[0], losses
sched = trainer.optim_schedule
assert sched.n_current_steps == 4 * 6
expected_lr = np.power(32, -0.5) * min(24 ** -0.5, 10 ** -1.5 * 24)
assert abs(trainer.optim.param_groups[0]["lr"] - expected_lr) < 1e-12

restored = BERT(len(vocab), hidden=32, n_layers=2, attn_heads=4)
restored.load_state_dict(torch.load(path))
restored.eval()
bert.eval()
with torch.no_grad():
    assert torch.equal(restored(x, seg), bert(x, seg))
for e in range(4):
    os.remove("bert.model.ep%d" % e)
print("bert ok", [round(v, 3) for v in losses], round(test_loss, 3))
