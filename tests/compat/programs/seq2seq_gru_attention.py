"""PyTorch tutorial "NLP From Scratch: Translation with a Sequence to Sequence Network and
Attention": index arrays built with np.zeros((n, MAX_LENGTH), dtype=np.int32) and wrapped by
torch.LongTensor(...), TensorDataset + RandomSampler + DataLoader(sampler=), EncoderRNN (Embedding,
GRU(batch_first=True), Dropout), BahdanauAttention (Va(torch.tanh(Wa(query) + Ua(keys))),
scores.squeeze(2).unsqueeze(1), torch.bmm), AttnDecoderRNN with
torch.empty(batch_size, 1, dtype=torch.long).fill_(SOS_token), teacher forcing by
target_tensor[:, i].unsqueeze(1), greedy decoding by decoder_output.topk(1) and
topi.squeeze(-1).detach(), torch.cat of outputs and attentions, F.log_softmax and NLLLoss over
.view(-1, size(-1)). The toy language: reverse a word of letters."""
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim
from torch.utils.data import DataLoader, RandomSampler, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
SOS_token, EOS_token = 0, 1
MAX_LENGTH = 7
random.seed(0)
torch.manual_seed(0)
letters = "abcdefgh"
n_words = 2 + len(letters)


def indexesFromSentence(sentence):
    return [letters.index(c) + 2 for c in sentence]


pairs = []
for _ in range(300):
    w = "".join(random.choice(letters) for _ in range(random.randint(2, 5)))
    pairs.append((w, w[::-1]))


def get_dataloader(batch_size):
    n = len(pairs)
    input_ids = np.zeros((n, MAX_LENGTH), dtype=np.int32)
    target_ids = np.zeros((n, MAX_LENGTH), dtype=np.int32)
    for idx, (inp, tgt) in enumerate(pairs):
        inp_ids = indexesFromSentence(inp)
        tgt_ids = indexesFromSentence(tgt)
        inp_ids.append(EOS_token)
        tgt_ids.append(EOS_token)
        input_ids[idx, :len(inp_ids)] = inp_ids
        target_ids[idx, :len(tgt_ids)] = tgt_ids
    train_data = TensorDataset(torch.LongTensor(input_ids).to(device),
                               torch.LongTensor(target_ids).to(device))
    train_sampler = RandomSampler(train_data)
    return DataLoader(train_data, sampler=train_sampler, batch_size=batch_size)


class EncoderRNN(nn.Module):
    def __init__(self, input_size, hidden_size, dropout_p=0.1):
        super(EncoderRNN, self).__init__()
        self.hidden_size = hidden_size
        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, input):
        embedded = self.dropout(self.embedding(input))
        output, hidden = self.gru(embedded)
        return output, hidden


class BahdanauAttention(nn.Module):
    def __init__(self, hidden_size):
        super(BahdanauAttention, self).__init__()
        self.Wa = nn.Linear(hidden_size, hidden_size)
        self.Ua = nn.Linear(hidden_size, hidden_size)
        self.Va = nn.Linear(hidden_size, 1)

    def forward(self, query, keys):
        scores = self.Va(torch.tanh(self.Wa(query) + self.Ua(keys)))
        scores = scores.squeeze(2).unsqueeze(1)
        weights = F.softmax(scores, dim=-1)
        context = torch.bmm(weights, keys)
        return context, weights


class AttnDecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size, dropout_p=0.1):
        super(AttnDecoderRNN, self).__init__()
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.attention = BahdanauAttention(hidden_size)
        self.gru = nn.GRU(2 * hidden_size, hidden_size, batch_first=True)
        self.out = nn.Linear(hidden_size, output_size)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, encoder_outputs, encoder_hidden, target_tensor=None):
        batch_size = encoder_outputs.size(0)
        decoder_input = torch.empty(batch_size, 1, dtype=torch.long, device=device).fill_(SOS_token)
        decoder_hidden = encoder_hidden
        decoder_outputs = []
        attentions = []
        for i in range(MAX_LENGTH):
            decoder_output, decoder_hidden, attn_weights = self.forward_step(
                decoder_input, decoder_hidden, encoder_outputs)
            decoder_outputs.append(decoder_output)
            attentions.append(attn_weights)
            if target_tensor is not None:
                decoder_input = target_tensor[:, i].unsqueeze(1)
            else:
                _, topi = decoder_output.topk(1)
                decoder_input = topi.squeeze(-1).detach()
        decoder_outputs = torch.cat(decoder_outputs, dim=1)
        decoder_outputs = F.log_softmax(decoder_outputs, dim=-1)
        attentions = torch.cat(attentions, dim=1)
        return decoder_outputs, decoder_hidden, attentions

    def forward_step(self, input, hidden, encoder_outputs):
        embedded = self.dropout(self.embedding(input))
        query = hidden.permute(1, 0, 2)
        context, attn_weights = self.attention(query, encoder_outputs)
        input_gru = torch.cat((embedded, context), dim=2)
        output, hidden = self.gru(input_gru, hidden)
        output = self.out(output)
        return output, hidden, attn_weights


def train_epoch(dataloader, encoder, decoder, encoder_optimizer, decoder_optimizer, criterion):
    total_loss = 0
    for data in dataloader:
        input_tensor, target_tensor = data
        encoder_optimizer.zero_grad()
        decoder_optimizer.zero_grad()
        encoder_outputs, encoder_hidden = encoder(input_tensor)
        decoder_outputs, _, _ = decoder(encoder_outputs, encoder_hidden, target_tensor)
        loss = criterion(decoder_outputs.view(-1, decoder_outputs.size(-1)), target_tensor.view(-1))
        loss.backward()
        encoder_optimizer.step()
        decoder_optimizer.step()
        total_loss += loss.item()
    return total_loss / len(dataloader)


def evaluate(encoder, decoder, sentence):
    with torch.no_grad():
        ids = indexesFromSentence(sentence) + [EOS_token]
        input_tensor = torch.tensor(ids, dtype=torch.long, device=device).view(1, -1)
        encoder_outputs, encoder_hidden = encoder(input_tensor)
        decoder_outputs, decoder_hidden, decoder_attn = decoder(encoder_outputs, encoder_hidden)
        _, topi = decoder_outputs.topk(1)
        decoded_ids = topi.squeeze()
        decoded_words = []
        for idx in decoded_ids:
            if idx.item() == EOS_token:
                break
            decoded_words.append(letters[idx.item() - 2])
    return "".join(decoded_words), decoder_attn


hidden_size, batch_size = 32, 32
train_dataloader = get_dataloader(batch_size)
encoder = EncoderRNN(n_words, hidden_size).to(device)
decoder = AttnDecoderRNN(hidden_size, n_words).to(device)
encoder_optimizer = optim.Adam(encoder.parameters(), lr=0.01)
decoder_optimizer = optim.Adam(decoder.parameters(), lr=0.01)
criterion = nn.NLLLoss()
losses = [train_epoch(train_dataloader, encoder, decoder, encoder_optimizer, decoder_optimizer,
                      criterion) for epoch in range(12)]
print(f"loss {losses[0]:.3f} -> {losses[-1]:.3f}")
assert losses[-1] < losses[0] * 0.5
encoder.eval()
decoder.eval()
output, attentions = evaluate(encoder, decoder, "abc")
print("abc ->", output)
assert attentions.shape == (1, MAX_LENGTH, 4)
assert torch.allclose(attentions.sum(-1), torch.ones(1, MAX_LENGTH))
