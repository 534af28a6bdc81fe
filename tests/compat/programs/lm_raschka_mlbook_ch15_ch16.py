"""Sebastian Raschka et al., "Machine Learning with PyTorch and Scikit-Learn", chapters 15 (RNNs) and
16 (attention) at toy size. Ch. 15: the manual RNN forward checked against nn.RNN(5, 2, num_layers=
1, batch_first=True) using rnn_layer.weight_ih_l0 / weight_hh_l0 / bias_ih_l0 / bias_hh_l0
(torch.matmul(x_t, torch.transpose(w_xh, 0, 1)) + b_xh, torch.tanh), the sentiment RNN with
nn.utils.rnn.pack_padded_sequence(out, lengths.cpu().numpy(), enforce_sorted=False, batch_first=
True) into an nn.LSTM and hidden[-1, :, :], the collate_batch padding with nn.utils.rnn.
pad_sequence, BCELoss on sigmoid outputs with (pred >= 0.5).float() accuracy; the character-level
language model (Embedding -> LSTM with init_hidden returning (hidden, cell) zeros, the text split
into chunks, nn.CrossEntropyLoss over seq positions) and its sampler, torch.distributions.
categorical.Categorical(logits=...) with scale_factor, .sample(). Ch. 16: self-attention from
scratch on an embedded sentence (torch.manual_seed(123), nn.Embedding(10, 16),
omega = torch.empty(6, 6) filled by a double loop, F.softmax(omega, dim=1), context vectors via
torch.sum(attention_weights[i] * embedded_sentence.T, dim=1) vs matmul), the scaled query/key/value
projections (torch.rand(d_q, d), keys = U_key.matmul(embedded_sentence.T).T, omega_2 /
d ** 0.5), and multi-head attention with .repeat(h, 1, 1) and torch.bmm."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

# ch15: the recurrence by hand vs nn.RNN
torch.manual_seed(1)
rnn_layer = nn.RNN(input_size=5, hidden_size=2, num_layers=1, batch_first=True)
w_xh = rnn_layer.weight_ih_l0
w_hh = rnn_layer.weight_hh_l0
b_xh = rnn_layer.bias_ih_l0
b_hh = rnn_layer.bias_hh_l0
print('W_xh shape:', w_xh.shape)
print('W_hh shape:', w_hh.shape)
print('b_xh shape:', b_xh.shape)
print('b_hh shape:', b_hh.shape)
x_seq = torch.tensor([[1.0] * 5, [2.0] * 5, [3.0] * 5]).float()
output, hn = rnn_layer(torch.reshape(x_seq, (1, 3, 5)))
out_man = []
for t in range(3):
    xt = torch.reshape(x_seq[t], (1, 5))
    print(f'Time step {t} =>')
    print('   Input           :', xt.numpy())
    ht = torch.matmul(xt, torch.transpose(w_xh, 0, 1)) + b_xh
    print('   Hidden          :', ht.detach().numpy())
    if t > 0:
        prev_h = out_man[t - 1]
    else:
        prev_h = torch.zeros((ht.shape))
    ot = ht + torch.matmul(prev_h, torch.transpose(w_hh, 0, 1)) + b_hh
    ot = torch.tanh(ot)
    out_man.append(ot)
    print('   Output (manual) :', ot.detach().numpy())
    print('   RNN output      :', output[:, t].detach().numpy())
    print()
    assert torch.allclose(ot, output[:, t], atol=1e-6)


# sentiment RNN over padded, packed sequences
class RNN(nn.Module):
    def __init__(self, vocab_size, embed_dim, rnn_hidden_size, fc_hidden_size):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.rnn = nn.LSTM(embed_dim, rnn_hidden_size, batch_first=True)
        self.fc1 = nn.Linear(rnn_hidden_size, fc_hidden_size)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(fc_hidden_size, 1)
        self.sigmoid = nn.Sigmoid()

    def forward(self, text, lengths):
        out = self.embedding(text)
        out = nn.utils.rnn.pack_padded_sequence(out, lengths.cpu().numpy(), enforce_sorted=False, batch_first=True)
        out, (hidden, cell) = self.rnn(out)
        out = hidden[-1, :, :]
        out = self.fc1(out)
        out = self.relu(out)
        out = self.fc2(out)
        out = self.sigmoid(out)
        return out


rng = np.random.default_rng(0)
pos_words, neg_words, filler = [1, 2, 3], [4, 5, 6], list(range(7, 20))
reviews = []
for i in range(200):
    label = i % 2
    n = int(rng.integers(3, 12))
    toks = list(rng.choice(filler, size=n))
    toks[int(rng.integers(0, n))] = int(rng.choice(pos_words if label else neg_words))
    reviews.append((label, toks))


def collate_batch(batch):
    label_list, text_list, lengths = [], [], []
    for _label, _text in batch:
        label_list.append(_label)
        processed_text = torch.tensor(_text, dtype=torch.int64)
        text_list.append(processed_text)
        lengths.append(processed_text.size(0))
    label_list = torch.tensor(label_list)
    lengths = torch.tensor(lengths)
    padded_text_list = nn.utils.rnn.pad_sequence(text_list, batch_first=True)
    return padded_text_list, label_list, lengths


train_dl = DataLoader(reviews[:160], batch_size=32, shuffle=True, collate_fn=collate_batch)
valid_dl = DataLoader(reviews[160:], batch_size=32, shuffle=False, collate_fn=collate_batch)
text_batch, label_batch, length_batch = next(iter(train_dl))
print(text_batch.shape, label_batch[:4], length_batch[:4])


def train(dataloader):
    model.train()
    total_acc, total_loss = 0, 0
    for text_batch, label_batch, lengths in dataloader:
        optimizer.zero_grad()
        pred = model(text_batch, lengths)[:, 0]
        loss = loss_fn(pred, label_batch.float())
        loss.backward()
        optimizer.step()
        total_acc += ((pred >= 0.5).float() == label_batch).float().sum().item()
        total_loss += loss.item() * label_batch.size(0)
    return total_acc / len(dataloader.dataset), total_loss / len(dataloader.dataset)


def evaluate(dataloader):
    model.eval()
    total_acc, total_loss = 0, 0
    with torch.no_grad():
        for text_batch, label_batch, lengths in dataloader:
            pred = model(text_batch, lengths)[:, 0]
            loss = loss_fn(pred, label_batch.float())
            total_acc += ((pred >= 0.5).float() == label_batch).float().sum().item()
            total_loss += loss.item() * label_batch.size(0)
    return total_acc / len(dataloader.dataset), total_loss / len(dataloader.dataset)


torch.manual_seed(1)
model = RNN(20, 8, 16, 16)
loss_fn = nn.BCELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(15):
    acc_train, loss_train = train(train_dl)
acc_valid, loss_valid = evaluate(valid_dl)
print(f'accuracy: {acc_train:.4f} val_accuracy: {acc_valid:.4f}')
assert acc_valid > 0.8


# character-level language model
text = "the island was mysterious and the engineer studied the island carefully. " * 6
char_set = sorted(set(text))
char2int = {ch: i for i, ch in enumerate(char_set)}
char_array = np.array(char_set)
text_encoded = np.array([char2int[ch] for ch in text], dtype=np.int32)
seq_length = 20
chunk_size = seq_length + 1
text_chunks = [text_encoded[i:i + chunk_size] for i in range(len(text_encoded) - chunk_size)]


class TextDataset(torch.utils.data.Dataset):
    def __init__(self, text_chunks):
        self.text_chunks = text_chunks

    def __len__(self):
        return len(self.text_chunks)

    def __getitem__(self, idx):
        text_chunk = self.text_chunks[idx]
        return text_chunk[:-1].long(), text_chunk[1:].long()


seq_dataset = TextDataset(torch.tensor(np.array(text_chunks)))
seq_dl = DataLoader(seq_dataset, 32, shuffle=True, drop_last=True)


class CharRNN(nn.Module):
    def __init__(self, vocab_size, embed_dim, rnn_hidden_size):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim)
        self.rnn_hidden_size = rnn_hidden_size
        self.rnn = nn.LSTM(embed_dim, rnn_hidden_size, batch_first=True)
        self.fc = nn.Linear(rnn_hidden_size, vocab_size)

    def forward(self, x, hidden, cell):
        out = self.embedding(x).unsqueeze(1)
        out, (hidden, cell) = self.rnn(out, (hidden, cell))
        out = self.fc(out).reshape(out.size(0), -1)
        return out, hidden, cell

    def init_hidden(self, batch_size):
        hidden = torch.zeros(1, batch_size, self.rnn_hidden_size)
        cell = torch.zeros(1, batch_size, self.rnn_hidden_size)
        return hidden, cell


torch.manual_seed(1)
model = CharRNN(len(char_array), 16, 64)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
num_epochs = 60
for epoch in range(num_epochs):
    hidden, cell = model.init_hidden(32)
    seq_batch, target_batch = next(iter(seq_dl))
    optimizer.zero_grad()
    loss = 0
    for c in range(seq_length):
        pred, hidden, cell = model(seq_batch[:, c], hidden, cell)
        loss += loss_fn(pred, target_batch[:, c])
    loss.backward()
    optimizer.step()
    loss = loss.item() / seq_length
    if epoch % 20 == 0:
        print(f'Epoch {epoch} loss: {loss:.4f}')
assert loss < 1.5

from torch.distributions.categorical import Categorical


def sample(model, starting_str, len_generated_text=40, scale_factor=1.0):
    encoded_input = torch.tensor([char2int[s] for s in starting_str])
    encoded_input = torch.reshape(encoded_input, (1, -1))
    generated_str = starting_str
    model.eval()
    hidden, cell = model.init_hidden(1)
    for c in range(len(starting_str) - 1):
        _, hidden, cell = model(encoded_input[:, c].view(1), hidden, cell)
    last_char = encoded_input[:, -1]
    for i in range(len_generated_text):
        logits, hidden, cell = model(last_char.view(1), hidden, cell)
        logits = torch.squeeze(logits, 0)
        scaled_logits = logits * scale_factor
        m = Categorical(logits=scaled_logits)
        last_char = m.sample()
        generated_str += str(char_array[last_char])
    return generated_str


torch.manual_seed(1)
logits = torch.tensor([[1.0, 1.0, 3.0]])
print('Probabilities:', nn.functional.softmax(logits, dim=1).numpy()[0])
m = Categorical(logits=logits)
samples = m.sample((10,))
print(samples.numpy())
torch.manual_seed(1)
generated = sample(model, starting_str='the island', scale_factor=3.0)
print(generated)
assert generated.startswith('the island') and len(generated) == 50

# ch16: self-attention from scratch
sentence = torch.tensor([0, 7, 1, 2, 5, 6, 4, 3])
torch.manual_seed(123)
embed = torch.nn.Embedding(10, 16)
embedded_sentence = embed(sentence).detach()
print(embedded_sentence.shape)
omega = torch.empty(8, 8)
for i, x_i in enumerate(embedded_sentence):
    for j, x_j in enumerate(embedded_sentence):
        omega[i, j] = torch.dot(x_i, x_j)
omega_mat = embedded_sentence.matmul(embedded_sentence.T)
print(torch.allclose(omega_mat, omega))
attention_weights = F.softmax(omega, dim=1)
print(attention_weights.shape, attention_weights.sum(dim=1))
x_2 = embedded_sentence[1, :]
context_vec_2 = torch.zeros(x_2.shape)
for j in range(8):
    x_j = embedded_sentence[j, :]
    context_vec_2 += attention_weights[1, j] * x_j
context_vectors = torch.matmul(attention_weights, embedded_sentence)
assert torch.allclose(context_vec_2, context_vectors[1])

torch.manual_seed(123)
d = embedded_sentence.shape[1]
U_query = torch.rand(d, d)
U_key = torch.rand(d, d)
U_value = torch.rand(d, d)
x_2 = embedded_sentence[1]
query_2 = U_query.matmul(x_2)
key_2 = U_key.matmul(x_2)
value_2 = U_value.matmul(x_2)
keys = U_key.matmul(embedded_sentence.T).T
values = U_value.matmul(embedded_sentence.T).T
assert torch.allclose(key_2, keys[1]) and torch.allclose(value_2, values[1])
omega_2 = query_2.matmul(keys.T)
attention_weights_2 = F.softmax(omega_2 / d ** 0.5, dim=0)
context_vector_2 = attention_weights_2.matmul(values)
print(context_vector_2)

torch.manual_seed(123)
h = 8
multihead_U_query = torch.rand(h, d, d)
multihead_U_key = torch.rand(h, d, d)
multihead_U_value = torch.rand(h, d, d)
multihead_query_2 = multihead_U_query.matmul(x_2)
print(multihead_query_2.shape)
stacked_inputs = embedded_sentence.T.repeat(8, 1, 1)
print(stacked_inputs.shape)
multihead_keys = torch.bmm(multihead_U_key, stacked_inputs)
multihead_keys = multihead_keys.permute(0, 2, 1)
multihead_values = torch.matmul(multihead_U_value, stacked_inputs)
multihead_values = multihead_values.permute(0, 2, 1)
print(multihead_keys.shape, multihead_keys[2, 1])
multihead_z_2 = torch.rand(8, 16)
linear = torch.nn.Linear(8 * 16, 4096)
context_vector_2 = linear(multihead_z_2.flatten())
print(context_vector_2.shape)
assert torch.allclose(multihead_keys[3], (multihead_U_key[3] @ embedded_sentence.T).T, atol=1e-5)
