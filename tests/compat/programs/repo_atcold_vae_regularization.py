"""Atcold/NYU-DLSP20, 11-VAE and 12-regularization notebooks on synthetic data: the VAE with
encoder output .view(-1, 2, d) split into mu/logvar, reparameterise with logvar.mul(0.5).exp_(),
std.new_empty(std.size()).normal_() and eps.mul_(std).add_(mu) (mu in eval mode), BCE with
reduction='sum' plus the KL term with a unicode β keyword, codes dict keyed 'μ'/'logσ2',
decoding torch.stack((mu[A].data, mu[B].data), 0) and an interpolation written into a legacy
torch.Tensor(N, 20); then the regularisation notebook: an Embedding+Linear bag model with
sigmoid/BCELoss, the L1 (torch.norm(params, 1)), L2 (Adam weight_decay) and torch.dropout
toggles, outputs.ge(0.5), .type(torch.FloatTensor) comparisons, best-model saving, and the
weights gathered by torch.cat onto an empty torch.Tensor()."""
import torch
from torch import nn

torch.manual_seed(1)
torch.cuda.manual_seed(1)
device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
d = 8


def digits(n, seed):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, 10, (n,), generator=g)
    x = torch.rand(n, 1, 28, 28, generator=g) * 0.2
    x[torch.arange(n), 0, y * 2 + 4, 4:24] = 0.95
    return torch.utils.data.TensorDataset(x, y)


train_loader = torch.utils.data.DataLoader(digits(256, 0), batch_size=64, shuffle=True)
test_loader = torch.utils.data.DataLoader(digits(128, 1), batch_size=64, shuffle=True)


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(784, d ** 2), nn.ReLU(), nn.Linear(d ** 2, d * 2))
        self.decoder = nn.Sequential(nn.Linear(d, d ** 2), nn.ReLU(), nn.Linear(d ** 2, 784),
                                     nn.Sigmoid())

    def reparameterise(self, mu, logvar):
        if self.training:
            std = logvar.mul(0.5).exp_()
            eps = std.new_empty(std.size()).normal_()
            return eps.mul_(std).add_(mu)
        else:
            return mu

    def forward(self, x):
        mu_logvar = self.encoder(x.view(-1, 784)).view(-1, 2, d)
        mu = mu_logvar[:, 0, :]
        logvar = mu_logvar[:, 1, :]
        z = self.reparameterise(mu, logvar)
        return self.decoder(z), mu, logvar


model = VAE().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)


def loss_function(x_hat, x, mu, logvar, β=1):
    BCE = nn.functional.binary_cross_entropy(x_hat, x.view(-1, 784), reduction='sum')
    KLD = 0.5 * torch.sum(logvar.exp() - logvar - 1 + mu.pow(2))
    return BCE + β * KLD


epochs = 3
codes = dict(μ=list(), logσ2=list(), y=list())
for epoch in range(0, epochs + 1):
    if epoch > 0:
        model.train()
        train_loss = 0
        for x, _ in train_loader:
            x = x.to(device)
            x_hat, mu, logvar = model(x)
            loss = loss_function(x_hat, x, mu, logvar)
            train_loss += loss.item()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f'====> Epoch: {epoch} Average loss: {train_loss / len(train_loader.dataset):.4f}')
    means, logvars, labels = list(), list(), list()
    with torch.no_grad():
        model.eval()
        test_loss = 0
        for x, y in test_loader:
            x = x.to(device)
            x_hat, mu, logvar = model(x)
            test_loss += loss_function(x_hat, x, mu, logvar, β=0.5).item()
            means.append(mu.detach())
            logvars.append(logvar.detach())
            labels.append(y.detach())
    codes['μ'].append(torch.cat(means))
    codes['logσ2'].append(torch.cat(logvars))
    codes['y'].append(torch.cat(labels))
    test_loss /= len(test_loader.dataset)
    print(f'====> Test set loss: {test_loss:.4f}')
    print(x.data.cpu().view(-1, 28, 28).shape, x_hat.data.cpu().view(-1, 28, 28)[0, 8, 4:8])
print({k: (len(v), v[-1].shape) for k, v in codes.items()})
N = 16
z = torch.randn((N, d)).to(device)
sample = model.decoder(z)
print(sample.shape, sample.requires_grad)
A, B = 1, 14
sample = model.decoder(torch.stack((mu[A].data, mu[B].data), 0))
both = torch.stack(((x[A].data.view(-1), x[B].data.view(-1), sample.data[0], sample.data[1])), 0)
print(both.shape)
code = torch.Tensor(N, d).to(device)
sample = torch.Tensor(N, 28, 28).to(device)
for i in range(N):
    code[i] = i / (N - 1) * mu[B].data + (1 - i / (N - 1)) * mu[A].data
sample = model.decoder(code)
print(torch.allclose(code[0], mu[A]), torch.allclose(code[-1], mu[B], atol=1e-6), sample.shape)

torch.manual_seed(1337)
max_len, num_words = 12, 50
g = torch.Generator().manual_seed(3)
texts = torch.randint(2, num_words + 2, (384, max_len), generator=g)
labels = ((texts < 12).sum(1) > 2).float()
batches = [(texts[i:i + 32], labels[i:i + 32]) for i in range(0, 384, 32)]
train_loader, valid_loader = batches[:9], batches[9:]


class FeedforwardNeuralNetModel(nn.Module):
    def __init__(self, input_dim, embedding_dim, hidden_dim, output_dim, dropout=False):
        super(FeedforwardNeuralNetModel, self).__init__()
        self.embedding = nn.Embedding(input_dim, embedding_dim)
        self.fc1 = nn.Linear(embedding_dim * embedding_dim, hidden_dim)
        self.fc2 = nn.Linear(hidden_dim, output_dim)
        self.dropout = dropout

    def forward(self, x):
        embedded = self.embedding(x)
        embedded = embedded.view(-1, embedding_dim * embedding_dim)
        out = self.fc1(embedded)
        out = torch.relu(out)
        if self.dropout:
            out = torch.dropout(out, 0.8, self.training)
        out = self.fc2(out)
        out = torch.sigmoid(out)
        return out


input_dim, embedding_dim, hidden_dim, output_dim = num_words + 2, max_len, 32, 1


def run(toggle):
    torch.manual_seed(1337)
    model = FeedforwardNeuralNetModel(input_dim, embedding_dim, hidden_dim, output_dim,
                                      dropout=toggle == "dropout")
    model.to(device)
    criterion = nn.BCELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2,
                                 weight_decay=0.005 if toggle == "L2" else 0)
    print('Number of groups of parameters {}'.format(len(list(model.parameters()))))
    print('-' * 50)
    for i in range(len(list(model.parameters()))):
        print(list(model.parameters())[i].size())
    print('-' * 50)
    iter = 0
    best_accuracy = 0
    for epoch in range(4):
        for i, (samples, labels) in enumerate(train_loader):
            model.train()
            samples = samples.view(-1, max_len).to(device)
            labels = labels.view(-1, 1).to(device)
            optimizer.zero_grad()
            outputs = model(samples)
            loss = criterion(outputs, labels)
            if toggle == "L1":
                fc1_params = torch.cat([x.view(-1) for x in model.fc1.parameters()])
                loss += 0.001 * torch.norm(fc1_params, 1)
            loss.backward()
            optimizer.step()
            iter += 1
            if iter % 9 == 0:
                train_loss = loss.data.item()
                model.eval()
                correct = 0
                total = 0
                for samples, labels in valid_loader:
                    samples = samples.view(-1, max_len).to(device)
                    labels = labels.view(-1).to(device)
                    outputs = model(samples)
                    val_loss = criterion(outputs.view(-1, 1), labels.view(-1, 1))
                    predicted = outputs.ge(0.5).view(-1)
                    total += labels.size(0)
                    correct += (predicted.type(torch.FloatTensor).cpu() ==
                                labels.type(torch.FloatTensor)).sum().item()
                accuracy = 100. * correct / total
                print('Iter: {} | Train Loss: {:.4f} | Val Loss: {:.4f} | Val Accuracy: {}'.format(
                    iter, train_loss, val_loss.item(), round(accuracy, 2)))
                if accuracy > best_accuracy:
                    best_accuracy = accuracy
                    torch.save(model.state_dict(), 'best_model.pth')
    weights = torch.Tensor().to(device)
    for param_group in list(model.parameters()):
        weights = torch.cat((param_group.view(-1), weights))
    print(weights.shape, weights.dtype)
    return weights.cpu().detach().numpy(), best_accuracy


results = {toggle: run(toggle) for toggle in ("nothing", "L1", "L2", "dropout")}
for toggle, (w, acc) in results.items():
    print(toggle, w.shape, round(float(abs(w).mean()), 3), acc)
assert max(acc for _, acc in results.values()) > 50 and len(results["L1"][0]) == len(results["L2"][0])
