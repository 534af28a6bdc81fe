"""deeplearningzerotoall/PyTorch RNN labs: 2-hihello (one-hot FloatTensor into nn.RNN, Adam,
outputs.view(-1, input_size), argmax(axis=2) on .data.numpy(), printed predictions),
6-seq2seq (Vocab, GRU Encoder/Decoder fed one token at a time, torch.Tensor(indexes).long()
.view(-1, 1), NLLLoss summed over the target with teacher forcing, "{:05.4f}" formatting, greedy
decoding with .data.topk(1); its legacy torch.Tensor([[SOS_token]], device=device) comes last)
and 7-packed_sequence (pad_sequence, pack_sequence, eye[padded] one-hot, nn.RNN on padded and on
packed input, pad_packed_sequence, pack_padded_sequence and the printed PackedSequence)."""
import random

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.nn.utils.rnn import pad_sequence, pack_sequence, pack_padded_sequence, pad_packed_sequence

torch.manual_seed(0)
random.seed(0)
char_set = ['h', 'i', 'e', 'l', 'o']
input_size = len(char_set)
hidden_size = len(char_set)
x_one_hot = [[[1, 0, 0, 0, 0],
              [0, 1, 0, 0, 0],
              [1, 0, 0, 0, 0],
              [0, 0, 1, 0, 0],
              [0, 0, 0, 1, 0],
              [0, 0, 0, 1, 0]]]
y_data = [[1, 0, 2, 3, 3, 4]]
X = torch.FloatTensor(x_one_hot)
Y = torch.LongTensor(y_data)
rnn = torch.nn.RNN(input_size, hidden_size, batch_first=True)
criterion = torch.nn.CrossEntropyLoss()
optimizer = optim.Adam(rnn.parameters(), 0.1)
for i in range(60):
    optimizer.zero_grad()
    outputs, _status = rnn(X)
    loss = criterion(outputs.view(-1, input_size), Y.view(-1))
    loss.backward()
    optimizer.step()
    result = outputs.data.numpy().argmax(axis=2)
    result_str = ''.join([char_set[c] for c in np.squeeze(result)])
    if i % 10 == 0 or i == 59:
        print(i, "loss: ", round(loss.item(), 4), "prediction: ", result, "true Y: ", y_data,
              "prediction str: ", result_str)
assert loss.item() < 0.7 and result_str.endswith("ello")

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
raw = ["I feel hungry.\tna-neun bae-ga go-peu-da.",
       "Pytorch is very easy.\tpytorch-neun mae-u swib-da.",
       "Pytorch is a framework for deep learning.\tpytorch-neun deep-learning-eul wi-han framework-i-da.",
       "Pytorch is very clear to use.\tpytorch-neun sa-yong-ha-gi mae-u jik-gwan-jeok-i-da."]
SOS_token = 0
EOS_token = 1


class Vocab:
    def __init__(self):
        self.vocab2index = {"<SOS>": SOS_token, "<EOS>": EOS_token}
        self.index2vocab = {SOS_token: "<SOS>", EOS_token: "<EOS>"}
        self.vocab_count = {}
        self.n_vocab = len(self.vocab2index)

    def add_vocab(self, sentence):
        for word in sentence.split(" "):
            if word not in self.vocab2index:
                self.vocab2index[word] = self.n_vocab
                self.vocab_count[word] = 1
                self.index2vocab[self.n_vocab] = word
                self.n_vocab += 1
            else:
                self.vocab_count[word] += 1


def filter_pair(pair, source_max_length, target_max_length):
    return len(pair[0].split(" ")) < source_max_length and len(pair[1].split(" ")) < target_max_length


def preprocess(corpus, source_max_length, target_max_length):
    print("reading corpus...")
    pairs = []
    for line in corpus:
        pairs.append([s for s in line.strip().lower().split("\t")])
    print("Read {} sentence pairs".format(len(pairs)))
    pairs = [pair for pair in pairs if filter_pair(pair, source_max_length, target_max_length)]
    print("Trimmed to {} sentence pairs".format(len(pairs)))
    source_vocab = Vocab()
    target_vocab = Vocab()
    print("Counting words...")
    for pair in pairs:
        source_vocab.add_vocab(pair[0])
        target_vocab.add_vocab(pair[1])
    print("source vocab size =", source_vocab.n_vocab)
    print("target vocab size =", target_vocab.n_vocab)
    return pairs, source_vocab, target_vocab


class Encoder(nn.Module):
    def __init__(self, input_size, hidden_size):
        super(Encoder, self).__init__()
        self.hidden_size = hidden_size
        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size)

    def forward(self, x, hidden):
        x = self.embedding(x).view(1, 1, -1)
        x, hidden = self.gru(x, hidden)
        return x, hidden


class Decoder(nn.Module):
    def __init__(self, hidden_size, output_size):
        super(Decoder, self).__init__()
        self.hidden_size = hidden_size
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size)
        self.out = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, x, hidden):
        x = self.embedding(x).view(1, 1, -1)
        x, hidden = self.gru(x, hidden)
        x = self.softmax(self.out(x[0]))
        return x, hidden


def tensorize(vocab, sentence):
    indexes = [vocab.vocab2index[word] for word in sentence.split(" ")]
    indexes.append(vocab.vocab2index["<EOS>"])
    return torch.Tensor(indexes).long().to(device).view(-1, 1)


def train(pairs, source_vocab, target_vocab, encoder, decoder, n_iter, print_every=1000,
          learning_rate=0.01):
    loss_total = 0
    encoder_optimizer = optim.SGD(encoder.parameters(), lr=learning_rate)
    decoder_optimizer = optim.SGD(decoder.parameters(), lr=learning_rate)
    training_batch = [random.choice(pairs) for _ in range(n_iter)]
    training_source = [tensorize(source_vocab, pair[0]) for pair in training_batch]
    training_target = [tensorize(target_vocab, pair[1]) for pair in training_batch]
    criterion = nn.NLLLoss()
    for i in range(1, n_iter + 1):
        source_tensor = training_source[i - 1]
        target_tensor = training_target[i - 1]
        encoder_hidden = torch.zeros([1, 1, encoder.hidden_size]).to(device)
        encoder_optimizer.zero_grad()
        decoder_optimizer.zero_grad()
        source_length = source_tensor.size(0)
        target_length = target_tensor.size(0)
        loss = 0
        for enc_input in range(source_length):
            _, encoder_hidden = encoder(source_tensor[enc_input], encoder_hidden)
        decoder_input = torch.Tensor([[SOS_token]]).long().to(device)
        decoder_hidden = encoder_hidden
        for di in range(target_length):
            decoder_output, decoder_hidden = decoder(decoder_input, decoder_hidden)
            loss += criterion(decoder_output, target_tensor[di])
            decoder_input = target_tensor[di]
        loss.backward()
        encoder_optimizer.step()
        decoder_optimizer.step()
        loss_iter = loss.item() / target_length
        loss_total += loss_iter
        if i % print_every == 0:
            loss_avg = loss_total / print_every
            loss_total = 0
            print("[{} - {}%] loss = {:05.4f}".format(i, i / n_iter * 100, loss_avg))
    return loss_avg


def evaluate(pairs, source_vocab, target_vocab, encoder, decoder, target_max_length):
    correct = 0
    for pair in pairs:
        print(">", pair[0])
        print("=", pair[1])
        source_tensor = tensorize(source_vocab, pair[0])
        source_length = source_tensor.size()[0]
        encoder_hidden = torch.zeros([1, 1, encoder.hidden_size]).to(device)
        for ei in range(source_length):
            _, encoder_hidden = encoder(source_tensor[ei], encoder_hidden)
        decoder_input = torch.Tensor([[SOS_token]]).long().to(device)
        decoder_hidden = encoder_hidden
        decoded_words = []
        for di in range(target_max_length):
            decoder_output, decoder_hidden = decoder(decoder_input, decoder_hidden)
            _, top_index = decoder_output.data.topk(1)
            if top_index.item() == EOS_token:
                decoded_words.append("<EOS>")
                break
            else:
                decoded_words.append(target_vocab.index2vocab[top_index.item()])
            decoder_input = top_index.squeeze().detach()
        predict_sentence = " ".join(decoded_words)
        print("<", predict_sentence)
        print("")
        correct += predict_sentence == pair[1] + " <EOS>"
    return correct


load_pairs, load_source_vocab, load_target_vocab = preprocess(raw, 10, 12)
print(random.choice(load_pairs))
enc = Encoder(load_source_vocab.n_vocab, 16).to(device)
dec = Decoder(16, load_target_vocab.n_vocab).to(device)
last = train(load_pairs, load_source_vocab, load_target_vocab, enc, dec, 600, print_every=200,
             learning_rate=0.05)
right = evaluate(load_pairs, load_source_vocab, load_target_vocab, enc, dec, 12)
print(right, "of", len(load_pairs))

data = ['hello world', 'midnight', 'calculation', 'path', 'short circuit']
char_set = ['<pad>'] + sorted(set(char for seq in data for char in seq))
char2idx = {char: idx for idx, char in enumerate(char_set)}
print('char_set:', char_set)
print('char_set length:', len(char_set))
X = [torch.LongTensor([char2idx[char] for char in seq]) for seq in data]
for sequence in X:
    print(sequence)
lengths = [len(seq) for seq in X]
print('lengths:', lengths)
padded_sequence = pad_sequence(X, batch_first=True)
print(padded_sequence)
print(padded_sequence.shape)
sorted_idx = sorted(range(len(lengths)), key=lengths.__getitem__, reverse=True)
sorted_X = [X[idx] for idx in sorted_idx]
for sequence in sorted_X:
    print(sequence)
packed_sequence = pack_sequence(sorted_X)
print(packed_sequence)
eye = torch.eye(len(char_set))
embedded_tensor = eye[padded_sequence]
print(embedded_tensor.shape)
embedded_packed_seq = pack_sequence([eye[X[idx]] for idx in sorted_idx])
print(embedded_packed_seq.data.shape)
rnn = torch.nn.RNN(input_size=len(char_set), hidden_size=30, batch_first=True)
rnn_output, hidden = rnn(embedded_tensor)
print(rnn_output.shape)
print(hidden.shape)
rnn_output, hidden = rnn(embedded_packed_seq)
print(rnn_output.data.shape)
print(hidden.data.shape)
unpacked_sequence, seq_lengths = pad_packed_sequence(embedded_packed_seq, batch_first=True)
print(unpacked_sequence.shape)
print(seq_lengths)
embedded_padded_sequence = eye[pad_sequence(sorted_X, batch_first=True)]
print(embedded_padded_sequence.shape)
sorted_lengths = sorted(lengths, reverse=True)
new_packed_sequence = pack_padded_sequence(embedded_padded_sequence, sorted_lengths, batch_first=True)
print(new_packed_sequence.data.shape)
print(new_packed_sequence.batch_sizes)
assert torch.equal(unpacked_sequence[:, :4], embedded_padded_sequence[:, :4])
assert last < 0.5 and right >= 3
decoder_input = torch.Tensor([[SOS_token]], device=device).long()   # evaluate()'s own line
print(decoder_input, decoder_input.device)
