"""Ben Trevett's pytorch-seq2seq, tutorial 1 ("Sequence to Sequence Learning with Neural
Networks"): Encoder (nn.Embedding, multi-layer nn.LSTM with dropout, returning hidden and cell),
Decoder stepping one token at a time (input.unsqueeze(0), prediction = fc_out(output.squeeze(0))),
Seq2Seq with torch.zeros(trg_length, batch_size, trg_vocab_size).to(self.device), teacher forcing
by random.random() < teacher_forcing_ratio and output.argmax(1), init_weights with
nn.init.uniform_(param.data, -0.08, 0.08) over model.named_parameters(), count_parameters,
nn.CrossEntropyLoss(ignore_index=pad_index), output[1:].view(-1, output_dim),
clip_grad_norm_(model.parameters(), clip), evaluate_fn under model.eval() + torch.no_grad(),
and translate_sentence with torch.LongTensor(ids).unsqueeze(-1) and the greedy loop."""
import random

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

seed = 1234
random.seed(seed)
np.random.seed(seed)
torch.manual_seed(seed)
torch.cuda.manual_seed(seed)
torch.backends.cudnn.deterministic = True

# a toy "translation": reverse the source words and map each to its upper-case twin
src_words = "a b c d e f g h".split()
specials = ["<unk>", "<pad>", "<sos>", "<eos>"]
src_itos = specials + src_words
trg_itos = specials + [w.upper() for w in src_words]
src_stoi = {w: i for i, w in enumerate(src_itos)}
trg_stoi = {w: i for i, w in enumerate(trg_itos)}
pad_index, sos_index, eos_index = 1, 2, 3

rng = random.Random(0)
pairs = []
for _ in range(160):
    n = rng.randint(2, 5)
    s = [rng.choice(src_words) for _ in range(n)]
    pairs.append((s, [w.upper() for w in reversed(s)]))


def numericalize(tokens, stoi):
    return [sos_index] + [stoi[t] for t in tokens] + [eos_index]


def get_collate_fn(pad_index):
    def collate_fn(batch):
        batch_en_ids = [torch.tensor(numericalize(s, src_stoi)) for s, _ in batch]
        batch_de_ids = [torch.tensor(numericalize(t, trg_stoi)) for _, t in batch]
        batch_en_ids = nn.utils.rnn.pad_sequence(batch_en_ids, padding_value=pad_index)
        batch_de_ids = nn.utils.rnn.pad_sequence(batch_de_ids, padding_value=pad_index)
        return {"en_ids": batch_en_ids, "de_ids": batch_de_ids}
    return collate_fn


train_data_loader = torch.utils.data.DataLoader(pairs[:128], batch_size=16,
                                                collate_fn=get_collate_fn(pad_index), shuffle=True)
valid_data_loader = torch.utils.data.DataLoader(pairs[128:], batch_size=16,
                                                collate_fn=get_collate_fn(pad_index))
batch = next(iter(train_data_loader))
print(batch["en_ids"].shape, batch["de_ids"].shape, batch["en_ids"][:, 0])


class Encoder(nn.Module):
    def __init__(self, input_dim, embedding_dim, hidden_dim, n_layers, dropout):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.n_layers = n_layers
        self.embedding = nn.Embedding(input_dim, embedding_dim)
        self.rnn = nn.LSTM(embedding_dim, hidden_dim, n_layers, dropout=dropout)
        self.dropout = nn.Dropout(dropout)

    def forward(self, src):
        # src = [src length, batch size]
        embedded = self.dropout(self.embedding(src))
        # embedded = [src length, batch size, embedding dim]
        outputs, (hidden, cell) = self.rnn(embedded)
        # hidden = [n layers * n directions, batch size, hidden dim]
        return hidden, cell


class Decoder(nn.Module):
    def __init__(self, output_dim, embedding_dim, hidden_dim, n_layers, dropout):
        super().__init__()
        self.output_dim = output_dim
        self.hidden_dim = hidden_dim
        self.n_layers = n_layers
        self.embedding = nn.Embedding(output_dim, embedding_dim)
        self.rnn = nn.LSTM(embedding_dim, hidden_dim, n_layers, dropout=dropout)
        self.fc_out = nn.Linear(hidden_dim, output_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, input, hidden, cell):
        # input = [batch size]
        input = input.unsqueeze(0)
        # input = [1, batch size]
        embedded = self.dropout(self.embedding(input))
        output, (hidden, cell) = self.rnn(embedded, (hidden, cell))
        # output = [seq length, batch size, hidden dim * n directions]
        prediction = self.fc_out(output.squeeze(0))
        # prediction = [batch size, output dim]
        return prediction, hidden, cell


class Seq2Seq(nn.Module):
    def __init__(self, encoder, decoder, device):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder
        self.device = device
        assert encoder.hidden_dim == decoder.hidden_dim, \
            "Hidden dimensions of encoder and decoder must be equal!"
        assert encoder.n_layers == decoder.n_layers, \
            "Encoder and decoder must have equal number of layers!"

    def forward(self, src, trg, teacher_forcing_ratio):
        batch_size = trg.shape[1]
        trg_length = trg.shape[0]
        trg_vocab_size = self.decoder.output_dim
        # tensor to store decoder outputs
        outputs = torch.zeros(trg_length, batch_size, trg_vocab_size).to(self.device)
        # last hidden state of the encoder is used as the initial hidden state of the decoder
        hidden, cell = self.encoder(src)
        # first input to the decoder is the <sos> tokens
        input = trg[0, :]
        for t in range(1, trg_length):
            output, hidden, cell = self.decoder(input, hidden, cell)
            outputs[t] = output
            teacher_force = random.random() < teacher_forcing_ratio
            top1 = output.argmax(1)
            input = trg[t] if teacher_force else top1
        return outputs


input_dim = len(src_itos)
output_dim = len(trg_itos)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
encoder = Encoder(input_dim, 16, 32, 2, 0.1)
decoder = Decoder(output_dim, 16, 32, 2, 0.1)
model = Seq2Seq(encoder, decoder, device).to(device)


def init_weights(m):
    for name, param in m.named_parameters():
        nn.init.uniform_(param.data, -0.08, 0.08)


model.apply(init_weights)
print(model)


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


print(f"The model has {count_parameters(model):,} trainable parameters")
optimizer = optim.Adam(model.parameters(), lr=0.01)
criterion = nn.CrossEntropyLoss(ignore_index=pad_index)


def train_fn(model, data_loader, optimizer, criterion, clip, teacher_forcing_ratio, device):
    model.train()
    epoch_loss = 0
    for i, batch in enumerate(data_loader):
        src = batch["en_ids"].to(device)
        trg = batch["de_ids"].to(device)
        optimizer.zero_grad()
        output = model(src, trg, teacher_forcing_ratio)
        output_dim = output.shape[-1]
        output = output[1:].view(-1, output_dim)
        trg = trg[1:].view(-1)
        loss = criterion(output, trg)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        epoch_loss += loss.item()
    return epoch_loss / len(data_loader)


def evaluate_fn(model, data_loader, criterion, device):
    model.eval()
    epoch_loss = 0
    with torch.no_grad():
        for i, batch in enumerate(data_loader):
            src = batch["en_ids"].to(device)
            trg = batch["de_ids"].to(device)
            output = model(src, trg, 0)  # turn off teacher forcing
            output_dim = output.shape[-1]
            output = output[1:].view(-1, output_dim)
            trg = trg[1:].view(-1)
            loss = criterion(output, trg)
            epoch_loss += loss.item()
    return epoch_loss / len(data_loader)


n_epochs = 12
clip = 1.0
teacher_forcing_ratio = 0.5
best_valid_loss = float("inf")
for epoch in range(n_epochs):
    train_loss = train_fn(model, train_data_loader, optimizer, criterion, clip,
                          teacher_forcing_ratio, device)
    valid_loss = evaluate_fn(model, valid_data_loader, criterion, device)
    if valid_loss < best_valid_loss:
        best_valid_loss = valid_loss
        torch.save(model.state_dict(), "tut1-model.pt")
    if epoch % 4 == 0:
        print(f"\tTrain Loss: {train_loss:7.3f} | Train PPL: {np.exp(train_loss):7.3f}")
        print(f"\tValid Loss: {valid_loss:7.3f} | Valid PPL: {np.exp(valid_loss):7.3f}")
model.load_state_dict(torch.load("tut1-model.pt"))
test_loss = evaluate_fn(model, valid_data_loader, criterion, device)
print(f"| Test Loss: {test_loss:.3f} | Test PPL: {np.exp(test_loss):7.3f} |")
assert test_loss < 2.0


def translate_sentence(sentence, model, device, max_output_length=10):
    model.eval()
    with torch.no_grad():
        ids = numericalize(sentence, src_stoi)
        tensor = torch.LongTensor(ids).unsqueeze(-1).to(device)
        hidden, cell = model.encoder(tensor)
        inputs = [sos_index]
        for _ in range(max_output_length):
            inputs_tensor = torch.LongTensor([inputs[-1]]).to(device)
            output, hidden, cell = model.decoder(inputs_tensor, hidden, cell)
            predicted_token = output.argmax(-1).item()
            inputs.append(predicted_token)
            if predicted_token == eos_index:
                break
        tokens = [trg_itos[i] for i in inputs]
    return tokens


translation = translate_sentence(["a", "b", "c"], model, device)
print(translation)
assert translation[0] == "<sos>" and len(translation) <= 12
