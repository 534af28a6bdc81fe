"""bentrevett/pytorch-seq2seq, notebook 3 ("Neural Machine Translation by Jointly Learning to
Align and Translate") on a toy translation (the target reverses the source and shifts each
token): a bidirectional GRU Encoder whose hidden[-2]/hidden[-1] feed a tanh Linear, the additive
Attention with hidden.unsqueeze(1).repeat(1, src_length, 1), permute and v_fc(energy).squeeze(2),
a Decoder with torch.bmm of the weights and the encoder outputs and `assert (output ==
hidden).all()`, Seq2Seq with random.random() teacher forcing into a zeros outputs tensor,
init_weights over named_parameters, a dict-returning collate_fn with
nn.utils.rnn.pad_sequence(padding_value=pad_index), CrossEntropyLoss(ignore_index=pad_index),
clip_grad_norm_, "{:7.3f}" with np.exp perplexities, and translate_sentence filling
attentions[i] = attention."""
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

special = ["<unk>", "<pad>", "<sos>", "<eos>"]
words = [f"w{i}" for i in range(12)]
vocab = {tok: i for i, tok in enumerate(special + words)}
itos = {i: tok for tok, i in vocab.items()}
unk_index, pad_index = vocab["<unk>"], vocab["<pad>"]
sos_token, eos_token = "<sos>", "<eos>"


def make_example(rng):
    n = rng.integers(3, 7)
    de = [words[i] for i in rng.integers(0, 12, n)]
    en = [words[(int(w[1:]) + 1) % 12] for w in reversed(de)]
    return {"de": de, "en": en,
            "de_ids": torch.tensor([vocab[t] for t in [sos_token] + de + [eos_token]]),
            "en_ids": torch.tensor([vocab[t] for t in [sos_token] + en + [eos_token]])}


rng = np.random.default_rng(0)
train_data = [make_example(rng) for _ in range(384)]
valid_data = [make_example(rng) for _ in range(64)]
test_data = [make_example(rng) for _ in range(64)]
print(train_data[0]["de"], train_data[0]["en"], train_data[0]["de_ids"])


def get_collate_fn(pad_index):
    def collate_fn(batch):
        batch_en_ids = [example["en_ids"] for example in batch]
        batch_de_ids = [example["de_ids"] for example in batch]
        batch_en_ids = nn.utils.rnn.pad_sequence(batch_en_ids, padding_value=pad_index)
        batch_de_ids = nn.utils.rnn.pad_sequence(batch_de_ids, padding_value=pad_index)
        batch = {"en_ids": batch_en_ids, "de_ids": batch_de_ids}
        return batch
    return collate_fn


def get_data_loader(dataset, batch_size, pad_index, shuffle=False):
    collate_fn = get_collate_fn(pad_index)
    return torch.utils.data.DataLoader(dataset=dataset, batch_size=batch_size,
                                       collate_fn=collate_fn, shuffle=shuffle)


batch_size = 32
train_data_loader = get_data_loader(train_data, batch_size, pad_index, shuffle=True)
valid_data_loader = get_data_loader(valid_data, batch_size, pad_index)
test_data_loader = get_data_loader(test_data, batch_size, pad_index)
first = next(iter(valid_data_loader))
print({k: v.shape for k, v in first.items()}, first["de_ids"][:, 0])


class Encoder(nn.Module):
    def __init__(self, input_dim, embedding_dim, encoder_hidden_dim, decoder_hidden_dim, dropout):
        super().__init__()
        self.embedding = nn.Embedding(input_dim, embedding_dim)
        self.rnn = nn.GRU(embedding_dim, encoder_hidden_dim, bidirectional=True)
        self.fc = nn.Linear(encoder_hidden_dim * 2, decoder_hidden_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, src):
        embedded = self.dropout(self.embedding(src))
        outputs, hidden = self.rnn(embedded)
        hidden = torch.tanh(self.fc(torch.cat((hidden[-2, :, :], hidden[-1, :, :]), dim=1)))
        return outputs, hidden


class Attention(nn.Module):
    def __init__(self, encoder_hidden_dim, decoder_hidden_dim):
        super().__init__()
        self.attn_fc = nn.Linear((encoder_hidden_dim * 2) + decoder_hidden_dim, decoder_hidden_dim)
        self.v_fc = nn.Linear(decoder_hidden_dim, 1, bias=False)

    def forward(self, hidden, encoder_outputs):
        batch_size = encoder_outputs.shape[1]
        src_length = encoder_outputs.shape[0]
        hidden = hidden.unsqueeze(1).repeat(1, src_length, 1)
        encoder_outputs = encoder_outputs.permute(1, 0, 2)
        energy = torch.tanh(self.attn_fc(torch.cat((hidden, encoder_outputs), dim=2)))
        attention = self.v_fc(energy).squeeze(2)
        return torch.softmax(attention, dim=1)


class Decoder(nn.Module):
    def __init__(self, output_dim, embedding_dim, encoder_hidden_dim, decoder_hidden_dim, dropout,
                 attention):
        super().__init__()
        self.output_dim = output_dim
        self.attention = attention
        self.embedding = nn.Embedding(output_dim, embedding_dim)
        self.rnn = nn.GRU((encoder_hidden_dim * 2) + embedding_dim, decoder_hidden_dim)
        self.fc_out = nn.Linear((encoder_hidden_dim * 2) + decoder_hidden_dim + embedding_dim,
                                output_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, input, hidden, encoder_outputs):
        input = input.unsqueeze(0)
        embedded = self.dropout(self.embedding(input))
        a = self.attention(hidden, encoder_outputs)
        a = a.unsqueeze(1)
        encoder_outputs = encoder_outputs.permute(1, 0, 2)
        weighted = torch.bmm(a, encoder_outputs)
        weighted = weighted.permute(1, 0, 2)
        rnn_input = torch.cat((embedded, weighted), dim=2)
        output, hidden = self.rnn(rnn_input, hidden.unsqueeze(0))
        assert (output == hidden).all()
        embedded = embedded.squeeze(0)
        output = output.squeeze(0)
        weighted = weighted.squeeze(0)
        prediction = self.fc_out(torch.cat((output, weighted, embedded), dim=1))
        return prediction, hidden.squeeze(0), a.squeeze(1)


class Seq2Seq(nn.Module):
    def __init__(self, encoder, decoder, device):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder
        self.device = device

    def forward(self, src, trg, teacher_forcing_ratio):
        batch_size = src.shape[1]
        trg_length = trg.shape[0]
        trg_vocab_size = self.decoder.output_dim
        outputs = torch.zeros(trg_length, batch_size, trg_vocab_size).to(self.device)
        encoder_outputs, hidden = self.encoder(src)
        input = trg[0, :]
        for t in range(1, trg_length):
            output, hidden, _ = self.decoder(input, hidden, encoder_outputs)
            outputs[t] = output
            teacher_force = random.random() < teacher_forcing_ratio
            top1 = output.argmax(1)
            input = trg[t] if teacher_force else top1
        return outputs


input_dim = output_dim = len(vocab)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
attention = Attention(32, 32)
encoder = Encoder(input_dim, 16, 32, 32, 0.1)
decoder = Decoder(output_dim, 16, 32, 32, 0.1, attention)
model = Seq2Seq(encoder, decoder, device).to(device)


def init_weights(m):
    for name, param in m.named_parameters():
        if "weight" in name:
            nn.init.normal_(param.data, mean=0, std=0.01)
        else:
            nn.init.constant_(param.data, 0)


print(model.apply(init_weights).encoder)


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


print(f"The model has {count_parameters(model):,} trainable parameters")
optimizer = optim.Adam(model.parameters(), lr=0.01)
criterion = nn.CrossEntropyLoss(ignore_index=pad_index)


def train_fn(model, data_loader, optimizer, criterion, clip, teacher_forcing_ratio, device):
    model.train()
    epoch_loss = 0
    for i, batch in enumerate(data_loader):
        src = batch["de_ids"].to(device)
        trg = batch["en_ids"].to(device)
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
            src = batch["de_ids"].to(device)
            trg = batch["en_ids"].to(device)
            output = model(src, trg, 0)
            output_dim = output.shape[-1]
            output = output[1:].view(-1, output_dim)
            trg = trg[1:].view(-1)
            loss = criterion(output, trg)
            epoch_loss += loss.item()
    return epoch_loss / len(data_loader)


clip, teacher_forcing_ratio = 1.0, 0.5
best_valid_loss = float("inf")
for epoch in range(6):
    train_loss = train_fn(model, train_data_loader, optimizer, criterion, clip,
                          teacher_forcing_ratio, device)
    valid_loss = evaluate_fn(model, valid_data_loader, criterion, device)
    if valid_loss < best_valid_loss:
        best_valid_loss = valid_loss
        torch.save(model.state_dict(), "tut3-model.pt")
    print(f"\tTrain Loss: {train_loss:7.3f} | Train PPL: {np.exp(train_loss):7.3f}")
    print(f"\tValid Loss: {valid_loss:7.3f} | Valid PPL: {np.exp(valid_loss):7.3f}")
model.load_state_dict(torch.load("tut3-model.pt"))
test_loss = evaluate_fn(model, test_data_loader, criterion, device)
print(f"| Test Loss: {test_loss:.3f} | Test PPL: {np.exp(test_loss):7.3f} |")


def translate_sentence(sentence, model, lower, sos_token, eos_token, device, max_output_length=25):
    model.eval()
    with torch.no_grad():
        de_tokens = [token for token in sentence]
        if lower:
            de_tokens = [token.lower() for token in de_tokens]
        de_tokens = [sos_token] + de_tokens + [eos_token]
        ids = [vocab.get(t, unk_index) for t in de_tokens]
        tensor = torch.LongTensor(ids).unsqueeze(-1).to(device)
        encoder_outputs, hidden = model.encoder(tensor)
        inputs = [vocab[sos_token]]
        attentions = torch.zeros(max_output_length, 1, len(ids))
        for i in range(max_output_length):
            inputs_tensor = torch.LongTensor([inputs[-1]]).to(device)
            output, hidden, attention = model.decoder(inputs_tensor, hidden, encoder_outputs)
            attentions[i] = attention
            predicted_token = output.argmax(-1).item()
            inputs.append(predicted_token)
            if predicted_token == vocab[eos_token]:
                break
        en_tokens = [itos[i] for i in inputs]
    return en_tokens, de_tokens, attentions[: len(en_tokens) - 1]


sentence, expected_translation = test_data[0]["de"], test_data[0]["en"]
print(repr((sentence, expected_translation)))
translation, sentence_tokens, attention = translate_sentence(sentence, model, True, sos_token,
                                                             eos_token, device)
print(translation, sentence_tokens, attention.shape)
print(attention.squeeze(1).numpy().sum(axis=1).round(3))
translations = [translate_sentence(example["de"], model, True, sos_token, eos_token, device)[0]
                for example in test_data]
predictions = [" ".join(translation[1:-1]) for translation in translations]
exact = sum(p == " ".join(ex["en"]) for p, ex in zip(predictions, test_data))
print(exact, "of", len(test_data), predictions[:2])
assert test_loss < 2.4 and attention.shape[1:] == (1, len(sentence) + 2)
