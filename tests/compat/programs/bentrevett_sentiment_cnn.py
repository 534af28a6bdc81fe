"""Ben Trevett's pytorch-sentiment-analysis, notebook 3 ("Convolutional Neural Networks"): a
CNN text classifier with nn.Embedding(padding_idx=pad_index), embedded.permute(0, 2, 1), a
nn.ModuleList of nn.Conv1d with several filter sizes, torch.relu, conved.max(dim=-1).values,
torch.cat(pooled, dim=-1), nn.Dropout, the initialize_weights apply() hook (xavier_normal_ for
Conv1d and Linear, zeros_ for biases), model.embedding.weight.data = pretrained vectors,
get_accuracy (prediction.argmax(dim=-1), .eq(label).sum(), correct / batch_size), a collate that
pads with nn.utils.rnn.pad_sequence(batch_first=True, padding_value=pad_index), tqdm-less train /
evaluate loops with np.mean of epoch metrics, and predict_sentiment with torch.softmax and
.item()."""
import collections

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

seed = 1234
np.random.seed(seed)
torch.manual_seed(seed)
torch.cuda.manual_seed(seed)
torch.backends.cudnn.deterministic = True

pos_words = "great wonderful superb loved brilliant fun".split()
neg_words = "awful boring terrible hated dull bad".split()
filler = "the movie was a film it this plot acting and".split()
rng = np.random.RandomState(0)


def make_review(label):
    words = list(rng.choice(filler, rng.randint(3, 9)))
    key = pos_words if label == 1 else neg_words
    for _ in range(rng.randint(1, 3)):
        words.insert(rng.randint(0, len(words) + 1), key[rng.randint(len(key))])
    return words


train_data = [{"tokens": make_review(i % 2), "label": i % 2} for i in range(200)]
test_data = [{"tokens": make_review(i % 2), "label": i % 2} for i in range(60)]
min_length = 5
counter = collections.Counter(t for ex in train_data for t in ex["tokens"])
special_tokens = ["<unk>", "<pad>"]
itos = special_tokens + sorted(w for w, c in counter.items() if c >= 1)
stoi = {w: i for i, w in enumerate(itos)}
unk_index, pad_index = stoi["<unk>"], stoi["<pad>"]
print(len(itos), itos[:5])


def numericalize_example(example):
    ids = [stoi.get(t, unk_index) for t in example["tokens"]]
    ids = ids + [pad_index] * max(0, min_length - len(ids))  # the filters need min_length tokens
    return {"ids": torch.tensor(ids), "label": torch.tensor(example["label"])}


train_data = [numericalize_example(ex) for ex in train_data]
test_data = [numericalize_example(ex) for ex in test_data]
print(train_data[0])


def get_collate_fn(pad_index):
    def collate_fn(batch):
        batch_ids = [i["ids"] for i in batch]
        batch_ids = nn.utils.rnn.pad_sequence(batch_ids, padding_value=pad_index, batch_first=True)
        batch_label = [i["label"] for i in batch]
        batch_label = torch.stack(batch_label)
        batch = {"ids": batch_ids, "label": batch_label}
        return batch
    return collate_fn


def get_data_loader(dataset, batch_size, pad_index, shuffle=False):
    collate_fn = get_collate_fn(pad_index)
    data_loader = torch.utils.data.DataLoader(dataset=dataset, batch_size=batch_size,
                                              collate_fn=collate_fn, shuffle=shuffle)
    return data_loader


batch_size = 32
train_data_loader = get_data_loader(train_data, batch_size, pad_index, shuffle=True)
test_data_loader = get_data_loader(test_data, batch_size, pad_index)


class CNN(nn.Module):
    def __init__(self, vocab_size, embedding_dim, n_filters, filter_sizes, output_dim,
                 dropout_rate, pad_index):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=pad_index)
        self.convs = nn.ModuleList([nn.Conv1d(embedding_dim, n_filters, filter_size)
                                    for filter_size in filter_sizes])
        self.fc = nn.Linear(len(filter_sizes) * n_filters, output_dim)
        self.dropout = nn.Dropout(dropout_rate)

    def forward(self, ids):
        # ids = [batch size, seq len]
        embedded = self.dropout(self.embedding(ids))
        # embedded = [batch size, seq len, embedding dim]
        embedded = embedded.permute(0, 2, 1)
        # embedded = [batch size, embedding dim, seq len]
        conved = [torch.relu(conv(embedded)) for conv in self.convs]
        # conved_n = [batch size, n filters, seq len - filter_sizes[n] + 1]
        pooled = [conv.max(dim=-1).values for conv in conved]
        # pooled_n = [batch size, n filters]
        cat = self.dropout(torch.cat(pooled, dim=-1))
        # cat = [batch size, n filters * len(filter_sizes)]
        prediction = self.fc(cat)
        # prediction = [batch size, output dim]
        return prediction


vocab_size = len(itos)
embedding_dim = 16
n_filters = 8
filter_sizes = [3, 5, 7]
output_dim = 2
dropout_rate = 0.25
model = CNN(vocab_size, embedding_dim, n_filters, filter_sizes[:2], output_dim, dropout_rate,
            pad_index)


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


print(f"The model has {count_parameters(model):,} trainable parameters")


def initialize_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_normal_(m.weight)
        nn.init.zeros_(m.bias)
    elif isinstance(m, nn.Conv1d):
        nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
        nn.init.zeros_(m.bias)


model.apply(initialize_weights)
vectors = torch.randn(vocab_size, embedding_dim) * 0.1  # stands in for GloVe vectors
model.embedding.weight.data = vectors
print(model.embedding.weight[pad_index].abs().sum() > 0)
model.embedding.weight.data[pad_index] = torch.zeros(embedding_dim)
optimizer = optim.Adam(model.parameters(), lr=5e-3)
criterion = nn.CrossEntropyLoss()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = model.to(device)
criterion = criterion.to(device)


def get_accuracy(prediction, label):
    batch_size, _ = prediction.shape
    predicted_classes = prediction.argmax(dim=-1)
    correct_predictions = predicted_classes.eq(label).sum()
    accuracy = correct_predictions / batch_size
    return accuracy


def train(data_loader, model, criterion, optimizer, device):
    model.train()
    epoch_losses = []
    epoch_accs = []
    for batch in data_loader:
        ids = batch["ids"].to(device)
        label = batch["label"].to(device)
        prediction = model(ids)
        loss = criterion(prediction, label)
        accuracy = get_accuracy(prediction, label)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        epoch_losses.append(loss.item())
        epoch_accs.append(accuracy.item())
    return np.mean(epoch_losses), np.mean(epoch_accs)


def evaluate(data_loader, model, criterion, device):
    model.eval()
    epoch_losses = []
    epoch_accs = []
    with torch.no_grad():
        for batch in data_loader:
            ids = batch["ids"].to(device)
            label = batch["label"].to(device)
            prediction = model(ids)
            loss = criterion(prediction, label)
            accuracy = get_accuracy(prediction, label)
            epoch_losses.append(loss.item())
            epoch_accs.append(accuracy.item())
    return np.mean(epoch_losses), np.mean(epoch_accs)


n_epochs = 10
best_valid_loss = float("inf")
metrics = collections.defaultdict(list)
for epoch in range(n_epochs):
    train_loss, train_acc = train(train_data_loader, model, criterion, optimizer, device)
    valid_loss, valid_acc = evaluate(test_data_loader, model, criterion, device)
    metrics["train_losses"].append(train_loss)
    metrics["valid_accs"].append(valid_acc)
    if valid_loss < best_valid_loss:
        best_valid_loss = valid_loss
        torch.save(model.state_dict(), "cnn.pt")
    print(f"epoch: {epoch}")
    print(f"train_loss: {train_loss:.3f}, train_acc: {train_acc:.3f}")
    print(f"valid_loss: {valid_loss:.3f}, valid_acc: {valid_acc:.3f}")
model.load_state_dict(torch.load("cnn.pt"))
test_loss, test_acc = evaluate(test_data_loader, model, criterion, device)
print(f"test_loss: {test_loss:.3f}, test_acc: {test_acc:.3f}")
assert test_acc > 0.8


def predict_sentiment(text, model, device):
    ids = [stoi.get(t, unk_index) for t in text.split()]
    if len(ids) < min_length:
        ids += [pad_index] * (min_length - len(ids))
    tensor = torch.LongTensor(ids).unsqueeze(dim=0).to(device)
    prediction = model(tensor).squeeze(dim=0)
    probability = torch.softmax(prediction, dim=-1)
    predicted_class = prediction.argmax(dim=-1).item()
    predicted_probability = probability[predicted_class].item()
    return predicted_class, predicted_probability


print(predict_sentiment("this film is terrible", model, device))
print(predict_sentiment("this film is great", model, device))
assert predict_sentiment("the plot was wonderful fun", model, device)[0] == 1
