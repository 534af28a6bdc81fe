"""Atcold/NYU-DLSP20, 08-seq_classification and 15-transformer notebooks, scaled down: a
temporal-order task (which of X/Y come first and second: classes Q/R/S/U) as one-hot numpy
batches, SimpleRNN(nonlinearity='relu') and SimpleLSTM with get_states_across_time feeding
x[:, [t], :] and the (h, c) state back, RMSprop, the train/test/train_and_test helpers and their
f-strings; then the transformer notebook: f.softargmax = f.softmax, MultiHeadAttention with
split_heads/group_heads, the print_out attention examples with [None, None], sinusoidal position
embeddings written into an Embedding weight, the Encoder with ModuleList, TransformerClassifier
with torch.max(x, dim=1), AdamW and model.zero_grad()."""
import collections

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as f

torch.manual_seed(1)
rng = np.random.default_rng(1)
SYMBOLS = "abcdXY"
CLASSES = "QRSU"


class TemporalOrder:
    """Stands in for res.sequential_tasks.TemporalOrderExp6aSequence (EASY)."""
    def __init__(self, batch_size, n_batches=8, length=8):
        self.batch_size, self.n_batches, self.length = batch_size, n_batches, length
        self.n_symbols, self.n_classes = len(SYMBOLS), len(CLASSES)
        self.batches = [self._make() for _ in range(n_batches)]

    def _make(self):
        x = np.zeros((self.batch_size, self.length, self.n_symbols), dtype=np.float64)
        y = np.zeros((self.batch_size, self.n_classes), dtype=np.int64)
        for i in range(self.batch_size):
            seq = rng.integers(0, 4, self.length)
            first, second = rng.integers(4, 6, 2)
            p1, p2 = sorted(rng.choice(np.arange(1, self.length), 2, replace=False))
            seq[p1], seq[p2] = first, second
            x[i, np.arange(self.length), seq] = 1
            y[i, (first - 4) * 2 + (second - 4)] = 1
        return x, y

    def __len__(self):
        return self.n_batches

    def __getitem__(self, i):
        return self.batches[i]

    def decode_x(self, x):
        return "".join(SYMBOLS[i] for i in x.argmax(axis=1))

    def decode_y(self, y):
        return CLASSES[int(y.argmax())]


example_generator = TemporalOrder(batch_size=32)
example_batch = example_generator[1]
print(f'The return type is a {type(example_batch)} with length {len(example_batch)}.')
print(f'The first item in the tuple is the batch of sequences with shape {example_batch[0].shape}.')
print(f'The sequence is: {example_generator.decode_x(example_batch[0][0, :, :])}')
print(f'The class label is: {example_generator.decode_y(example_batch[1][0])}')


class SimpleRNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.rnn = torch.nn.RNN(input_size, hidden_size, nonlinearity='relu', batch_first=True)
        self.linear = torch.nn.Linear(hidden_size, output_size)

    def forward(self, x):
        h = self.rnn(x)[0]
        x = self.linear(h)
        return x


class SimpleLSTM(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.lstm = torch.nn.LSTM(input_size, hidden_size, batch_first=True)
        self.linear = torch.nn.Linear(hidden_size, output_size)

    def forward(self, x):
        h = self.lstm(x)[0]
        x = self.linear(h)
        return x

    def get_states_across_time(self, x):
        h_c = None
        h_list, c_list = list(), list()
        with torch.no_grad():
            for t in range(x.size(1)):
                h_c = self.lstm(x[:, [t], :], h_c)[1]
                h_list.append(h_c[0])
                c_list.append(h_c[1])
            h = torch.cat(h_list)
            c = torch.cat(c_list)
        return h, c


def train(model, train_data_gen, criterion, optimizer, device):
    model.train()
    num_correct = 0
    for batch_idx in range(len(train_data_gen)):
        data, target = train_data_gen[batch_idx]
        data, target = torch.from_numpy(data).float().to(device), torch.from_numpy(target).long().to(device)
        output = model(data)
        output = output[:, -1, :]
        target = target.argmax(dim=1)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        y_pred = output.argmax(dim=1)
        num_correct += (y_pred == target).sum().item()
    return num_correct, loss.item()


def test(model, test_data_gen, criterion, device):
    model.eval()
    num_correct = 0
    with torch.no_grad():
        for batch_idx in range(len(test_data_gen)):
            data, target = test_data_gen[batch_idx]
            data, target = torch.from_numpy(data).float().to(device), torch.from_numpy(target).long().to(device)
            output = model(data)
            output = output[:, -1, :]
            target = target.argmax(dim=1)
            loss = criterion(output, target)
            y_pred = output.argmax(dim=1)
            num_correct += (y_pred == target).sum().item()
    return num_correct, loss.item()


def train_and_test(model, train_data_gen, test_data_gen, criterion, optimizer, max_epochs,
                   verbose=True):
    device = torch.device('cuda:0' if torch.cuda.is_available() else 'cpu')
    model.to(device)
    history_train = {'loss': [], 'acc': []}
    history_test = {'loss': [], 'acc': []}
    for epoch in range(max_epochs):
        num_correct, loss = train(model, train_data_gen, criterion, optimizer, device)
        accuracy = float(num_correct) / (len(train_data_gen) * train_data_gen.batch_size) * 100
        history_train['loss'].append(loss)
        history_train['acc'].append(accuracy)
        num_correct, loss = test(model, test_data_gen, criterion, device)
        accuracy = float(num_correct) / (len(test_data_gen) * test_data_gen.batch_size) * 100
        history_test['loss'].append(loss)
        history_test['acc'].append(accuracy)
        if verbose or epoch + 1 == max_epochs:
            print(f'[Epoch {epoch + 1}/{max_epochs}]'
                  f" loss: {history_train['loss'][-1]:.4f}, acc: {history_train['acc'][-1]:2.2f}%"
                  f" - test_loss: {history_test['loss'][-1]:.4f}, test_acc: {history_test['acc'][-1]:2.2f}%")
    return model


train_data_gen, test_data_gen = TemporalOrder(32), TemporalOrder(32)
input_size, hidden_size, output_size = train_data_gen.n_symbols, 4, train_data_gen.n_classes
for cls, epochs in ((SimpleRNN, 3), (SimpleLSTM, 3)):
    model = cls(input_size, hidden_size, output_size)
    criterion = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.RMSprop(model.parameters(), lr=0.001)
    model = train_and_test(model, train_data_gen, test_data_gen, criterion, optimizer, epochs)
    for parameter_group in list(model.parameters()):
        print(parameter_group.size())
torch.manual_seed(1)
model = SimpleLSTM(input_size, 12, output_size)
optimizer = torch.optim.RMSprop(model.parameters(), lr=0.01)
model = train_and_test(model, train_data_gen, test_data_gen, torch.nn.CrossEntropyLoss(), optimizer,
                       25, verbose=False)
model.eval()
count_classes = collections.Counter()
with torch.no_grad():
    data, target = test_data_gen[0]
    X = torch.from_numpy(data).float()
    y_pred = model(X)[:, -1, :].argmax(dim=1)
    y_pred_decoded = [CLASSES[y.item()] for y in y_pred]
    count_classes.update(test_data_gen.decode_y(t) for t in target)
    H_t, C_t = model.get_states_across_time(X)
print(sorted(count_classes.items()), y_pred_decoded[:8])
print("H_t:", H_t.shape, "C_t:", C_t.shape, H_t.requires_grad)

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
f.softargmax = f.softmax


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, p, d_input=None):
        super().__init__()
        self.num_heads = num_heads
        self.d_model = d_model
        if d_input is None:
            d_xq = d_xk = d_xv = d_model
        else:
            d_xq, d_xk, d_xv = d_input
        assert d_model % self.num_heads == 0
        self.d_k = d_model // self.num_heads
        self.W_q = nn.Linear(d_xq, d_model, bias=False)
        self.W_k = nn.Linear(d_xk, d_model, bias=False)
        self.W_v = nn.Linear(d_xv, d_model, bias=False)
        self.W_h = nn.Linear(d_model, d_model)

    def scaled_dot_product_attention(self, Q, K, V):
        batch_size = Q.size(0)
        k_length = K.size(-2)
        Q = Q / np.sqrt(self.d_k)
        scores = torch.matmul(Q, K.transpose(2, 3))
        A = f.softargmax(scores, dim=-1)
        H = torch.matmul(A, V)
        return H, A

    def split_heads(self, x, batch_size):
        return x.view(batch_size, -1, self.num_heads, self.d_k).transpose(1, 2)

    def group_heads(self, x, batch_size):
        return x.transpose(1, 2).contiguous().view(batch_size, -1, self.num_heads * self.d_k)

    def forward(self, X_q, X_k, X_v):
        batch_size, seq_length, dim = X_q.size()
        Q = self.split_heads(self.W_q(X_q), batch_size)
        K = self.split_heads(self.W_k(X_k), batch_size)
        V = self.split_heads(self.W_v(X_v), batch_size)
        H_cat, A = self.scaled_dot_product_attention(Q, K, V)
        H_cat = self.group_heads(H_cat, batch_size)
        H = self.W_h(H_cat)
        return H, A


temp_mha = MultiHeadAttention(d_model=512, num_heads=8, p=0)


def print_out(Q, K, V):
    temp_out, temp_attn = temp_mha.scaled_dot_product_attention(Q, K, V)
    print('Attention weights are:', temp_attn.squeeze())
    print('Output is:', temp_out.squeeze())


test_K = torch.tensor([[10, 0, 0], [0, 10, 0], [0, 0, 10], [0, 0, 10]]).float()[None, None]
test_V = torch.tensor([[1, 0, 0], [10, 0, 0], [100, 5, 0], [1000, 6, 0]]).float()[None, None]
test_Q = torch.tensor([[0, 10, 0]]).float()[None, None]
print_out(test_Q, test_K, test_V)
test_Q = torch.tensor([[0, 0, 10]]).float()[None, None]
print_out(test_Q, test_K, test_V)
test_Q = torch.tensor([[0, 0, 10], [0, 10, 0], [10, 10, 0]]).float()[None, None]
print_out(test_Q, test_K, test_V)


class CNN(nn.Module):
    def __init__(self, d_model, hidden_dim, p):
        super().__init__()
        self.k1convL1 = nn.Linear(d_model, hidden_dim)
        self.k1convL2 = nn.Linear(hidden_dim, d_model)
        self.activation = nn.ReLU()

    def forward(self, x):
        x = self.k1convL1(x)
        x = self.activation(x)
        x = self.k1convL2(x)
        return x


class EncoderLayer(nn.Module):
    def __init__(self, d_model, num_heads, conv_hidden_dim, p=0.1):
        super().__init__()
        self.mha = MultiHeadAttention(d_model, num_heads, p)
        self.cnn = CNN(d_model, conv_hidden_dim, p)
        self.layernorm1 = nn.LayerNorm(normalized_shape=d_model, eps=1e-6)
        self.layernorm2 = nn.LayerNorm(normalized_shape=d_model, eps=1e-6)

    def forward(self, x):
        attn_output, _ = self.mha(x, x, x)
        out1 = self.layernorm1(x + attn_output)
        cnn_output = self.cnn(out1)
        out2 = self.layernorm2(out1 + cnn_output)
        return out2


def create_sinusoidal_embeddings(nb_p, dim, E):
    theta = np.array([
        [p / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)]
        for p in range(nb_p)
    ])
    try:
        E[:, 0::2] = torch.FloatTensor(np.sin(theta[:, 0::2]))
    except RuntimeError as e:         # a view of a leaf that requires grad: fill it under no_grad
        print(type(e).__name__)
    with torch.no_grad():
        E[:, 0::2] = torch.FloatTensor(np.sin(theta[:, 0::2]))
        E[:, 1::2] = torch.FloatTensor(np.cos(theta[:, 1::2]))
    E.requires_grad = False
    E = E.to(device)


class Embeddings(nn.Module):
    def __init__(self, d_model, vocab_size, max_position_embeddings, p):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, d_model, padding_idx=1)
        self.position_embeddings = nn.Embedding(max_position_embeddings, d_model)
        create_sinusoidal_embeddings(nb_p=max_position_embeddings, dim=d_model,
                                     E=self.position_embeddings.weight)
        self.LayerNorm = nn.LayerNorm(d_model, eps=1e-12)

    def forward(self, input_ids):
        seq_length = input_ids.size(1)
        position_ids = torch.arange(seq_length, dtype=torch.long, device=input_ids.device)
        position_ids = position_ids.unsqueeze(0).expand_as(input_ids)
        word_embeddings = self.word_embeddings(input_ids)
        position_embeddings = self.position_embeddings(position_ids)
        embeddings = word_embeddings + position_embeddings
        embeddings = self.LayerNorm(embeddings)
        return embeddings


class Encoder(nn.Module):
    def __init__(self, num_layers, d_model, num_heads, ff_hidden_dim, input_vocab_size,
                 maximum_position_encoding, p=0.1):
        super().__init__()
        self.d_model = d_model
        self.num_layers = num_layers
        self.embedding = Embeddings(d_model, input_vocab_size, maximum_position_encoding, p)
        self.enc_layers = nn.ModuleList()
        for _ in range(num_layers):
            self.enc_layers.append(EncoderLayer(d_model, num_heads, ff_hidden_dim, p))

    def forward(self, x):
        x = self.embedding(x)
        for i in range(self.num_layers):
            x = self.enc_layers[i](x)
        return x


class TransformerClassifier(nn.Module):
    def __init__(self, num_layers, d_model, num_heads, conv_hidden_dim, input_vocab_size,
                 num_answers):
        super().__init__()
        self.encoder = Encoder(num_layers, d_model, num_heads, conv_hidden_dim, input_vocab_size,
                               maximum_position_encoding=64)
        self.dense = nn.Linear(d_model, num_answers)

    def forward(self, x):
        x = self.encoder(x)
        x, _ = torch.max(x, dim=1)
        x = self.dense(x)
        return x


torch.manual_seed(0)
model = TransformerClassifier(num_layers=1, d_model=32, num_heads=2, conv_hidden_dim=64,
                              input_vocab_size=50, num_answers=2)
model.to(device)
print(model.encoder.embedding.position_embeddings.weight[:3, :4])
print(model.encoder.embedding.position_embeddings.weight.requires_grad)
optimizer = torch.optim.AdamW(model.parameters(), lr=0.003)
texts = torch.randint(2, 50, (96, 20))
labels = (texts == 7).any(1).long() | (texts == 9).any(1).long()
batches = [(texts[i:i + 32], labels[i:i + 32]) for i in range(0, 96, 32)]


def evaluate(data_loader):
    nb_batches = len(data_loader)
    model.eval()
    acc = 0
    for x, y in data_loader:
        out = model(x.to(device))
        acc += (out.argmax(1) == y.to(device)).cpu().numpy().mean()
    print(f"Eval accuracy: {acc / nb_batches:.4f}")
    return acc / nb_batches


for epoch in range(6):
    train_acc, losses = 0, 0.0
    model.train()
    for x, y in batches:
        out = model(x.to(device))
        loss = f.cross_entropy(out, y.to(device))
        model.zero_grad()
        loss.backward()
        losses += loss.item()
        optimizer.step()
        train_acc += (out.argmax(1) == y).cpu().numpy().mean()
    print(f"Training loss at epoch {epoch} is {losses / len(batches):.4f}")
    print(f"Training accuracy: {train_acc / len(batches):.4f}")
assert evaluate(batches) > 0.7
