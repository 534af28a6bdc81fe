"""L1aoXingyu/pytorch-beginner on synthetic data: 01 linear regression (f-string loss prints),
06 seq-lstm (a CharLSTM per word whose states are torch.cat onto an empty torch.FloatTensor(),
Variable, F.log_softmax without dim, CrossEntropyLoss on log-probabilities), 08 conv_autoencoder
(Conv2d stride 3, MaxPool2d(2, stride=1), ConvTranspose2d stacks, ReLU(True), Tanh, to_img with
clamp/view, Adam weight_decay, `total_loss += loss.data`), 09 conv_gan (discriminator with
LeakyReLU(0.2, True) and AvgPool2d, generator from fc to 1x56x56 with BatchNorm2d(1)), 11 backward
(setitem of graph values into plain tensors, non-scalar backward, a Jacobian by two backward
calls with retain_graph, and the old `out.data[0]` that now raises), 12 data io (a txt-listed
Dataset and a sorting/padding collate_fn)."""
import os

import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.autograd import Variable
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
x_train = torch.tensor([[3.3], [4.4], [5.5], [6.71], [6.93], [4.168], [9.779], [6.182], [7.59],
                        [2.167], [7.042], [10.791], [5.313], [7.997], [3.1]], dtype=torch.float32)
y_train = torch.tensor([[1.7], [2.76], [2.09], [3.19], [1.694], [1.573], [3.366], [2.596], [2.53],
                        [1.221], [2.827], [3.465], [1.65], [2.904], [1.3]], dtype=torch.float32)


class linearRegression(nn.Module):
    def __init__(self):
        super(linearRegression, self).__init__()
        self.linear = nn.Linear(1, 1)

    def forward(self, x):
        return self.linear(x)


model = linearRegression()
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
num_epochs = 200
for epoch in range(num_epochs):
    out = model(x_train)
    loss = criterion(out, y_train)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if (epoch + 1) % 40 == 0:
        print(f'Epoch[{epoch+1}/{num_epochs}], loss: {loss.item():.6f}')
model.eval()
with torch.no_grad():
    predict = model(x_train)
predict = predict.data.numpy()
print(predict[:3].round(3), x_train.numpy().shape)
torch.save(model.state_dict(), './linear.pth')

training_data = [("The dog ate the apple".split(), ["DET", "NN", "V", "DET", "NN"]),
                 ("Everybody read that book".split(), ["NN", "V", "DET", "NN"])]
word_to_idx = {}
tag_to_idx = {}
for context, tag in training_data:
    for word in context:
        if word not in word_to_idx:
            word_to_idx[word] = len(word_to_idx)
    for label in tag:
        if label not in tag_to_idx:
            tag_to_idx[label] = len(tag_to_idx)
alphabet = 'abcdefghijklmnopqrstuvwxyz'
character_to_idx = {}
for i in range(len(alphabet)):
    character_to_idx[alphabet[i]] = i


class CharLSTM(nn.Module):
    def __init__(self, n_char, char_dim, char_hidden):
        super(CharLSTM, self).__init__()
        self.char_embedding = nn.Embedding(n_char, char_dim)
        self.char_lstm = nn.LSTM(char_dim, char_hidden, batch_first=True)

    def forward(self, x):
        x = self.char_embedding(x)
        _, h = self.char_lstm(x)
        return h[0]


class LSTMTagger(nn.Module):
    def __init__(self, n_word, n_char, char_dim, n_dim, char_hidden, n_hidden, n_tag):
        super(LSTMTagger, self).__init__()
        self.word_embedding = nn.Embedding(n_word, n_dim)
        self.char_lstm = CharLSTM(n_char, char_dim, char_hidden)
        self.lstm = nn.LSTM(n_dim + char_hidden, n_hidden, batch_first=True)
        self.linear1 = nn.Linear(n_hidden, n_tag)

    def forward(self, x, word):
        char = torch.FloatTensor()
        for each in word:
            char_list = []
            for letter in each:
                char_list.append(character_to_idx[letter.lower()])
            char_list = torch.LongTensor(char_list)
            char_list = char_list.unsqueeze(0)
            tempchar = self.char_lstm(Variable(char_list))
            tempchar = tempchar.squeeze(0)
            char = torch.cat((char, tempchar.cpu().data), 0)
        char = Variable(char)
        x = self.word_embedding(x)
        x = torch.cat((x, char), 1)
        x = x.unsqueeze(0)
        x, _ = self.lstm(x)
        x = x.squeeze(0)
        x = self.linear1(x)
        y = F.log_softmax(x)
        return y


model = LSTMTagger(len(word_to_idx), len(character_to_idx), 10, 20, 12, 24, len(tag_to_idx))
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(model.parameters(), lr=1e-1)


def make_sequence(x, dic):
    idx = [dic[i] for i in x]
    idx = Variable(torch.LongTensor(idx))
    return idx


import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for epoch in range(60):
        running_loss = 0
        for data in training_data:
            word, tag = data
            word_list = make_sequence(word, word_to_idx)
            tag = make_sequence(tag, tag_to_idx)
            out = model(word_list, word)
            loss = criterion(out, tag)
            running_loss += loss.item()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        if epoch % 20 == 0:
            print('epoch {}'.format(epoch + 1), 'Loss: {:.4f}'.format(running_loss / len(training_data)))
print(sorted({w.category.__name__ for w in caught}), any("dim" in str(w.message) for w in caught))
input = make_sequence("Everybody ate the apple".split(), word_to_idx)
out = model(input, "Everybody ate the apple".split())
print(out.argmax(1), [k for k, v in sorted(tag_to_idx.items(), key=lambda kv: kv[1])])
try:
    print(loss.data[0])
    raise AssertionError("indexing a 0-d tensor should fail")
except IndexError as e:
    print(type(e).__name__)
    assert "invalid index of a 0-dim tensor" in str(e), e


def to_img(x):
    x = 0.5 * (x + 1)
    x = x.clamp(0, 1)
    x = x.view(x.size(0), 1, 28, 28)
    return x


g = torch.Generator().manual_seed(1)
imgs = (torch.rand(64, 1, 28, 28, generator=g) > 0.8).float() * 2 - 1
dataloader = DataLoader(torch.utils.data.TensorDataset(imgs, torch.zeros(64)), batch_size=16,
                        shuffle=True)


class autoencoder(nn.Module):
    def __init__(self):
        super(autoencoder, self).__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 16, 3, stride=3, padding=1),
            nn.ReLU(True),
            nn.MaxPool2d(2, stride=2),
            nn.Conv2d(16, 8, 3, stride=2, padding=1),
            nn.ReLU(True),
            nn.MaxPool2d(2, stride=1)
        )
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(8, 16, 3, stride=2),
            nn.ReLU(True),
            nn.ConvTranspose2d(16, 8, 5, stride=3, padding=1),
            nn.ReLU(True),
            nn.ConvTranspose2d(8, 1, 2, stride=2, padding=1),
            nn.Tanh()
        )

    def forward(self, x):
        x = self.encoder(x)
        x = self.decoder(x)
        return x


model = autoencoder()
print(model.encoder(imgs[:2]).shape, model(imgs[:2]).shape)
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-5)
for epoch in range(3):
    total_loss = 0
    for data in dataloader:
        img, _ = data
        img = Variable(img)
        output = model(img)
        loss = criterion(output, img)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total_loss += loss.data
    print('epoch [{}/{}], loss:{:.4f}'.format(epoch + 1, 3, total_loss))
    pic = to_img(output.cpu().data)
print(type(total_loss).__name__, total_loss.requires_grad, pic.shape, pic.min() >= 0)


class discriminator(nn.Module):
    def __init__(self):
        super(discriminator, self).__init__()
        self.conv1 = nn.Sequential(nn.Conv2d(1, 8, 5, padding=2), nn.LeakyReLU(0.2, True),
                                   nn.AvgPool2d(2, stride=2))
        self.conv2 = nn.Sequential(nn.Conv2d(8, 16, 5, padding=2), nn.LeakyReLU(0.2, True),
                                   nn.AvgPool2d(2, stride=2))
        self.fc = nn.Sequential(nn.Linear(16 * 7 * 7, 64), nn.LeakyReLU(0.2, True),
                                nn.Linear(64, 1), nn.Sigmoid())

    def forward(self, x):
        x = self.conv1(x)
        x = self.conv2(x)
        x = x.view(x.size(0), -1)
        x = self.fc(x)
        return x


class generator(nn.Module):
    def __init__(self, input_size, num_feature):
        super(generator, self).__init__()
        self.fc = nn.Linear(input_size, num_feature)
        self.br = nn.Sequential(nn.BatchNorm2d(1), nn.ReLU(True))
        self.downsample1 = nn.Sequential(nn.Conv2d(1, 8, 3, stride=1, padding=1), nn.BatchNorm2d(8),
                                         nn.ReLU(True))
        self.downsample2 = nn.Sequential(nn.Conv2d(8, 4, 3, stride=1, padding=1), nn.BatchNorm2d(4),
                                         nn.ReLU(True))
        self.downsample3 = nn.Sequential(nn.Conv2d(4, 1, 2, stride=2), nn.Tanh())

    def forward(self, x):
        x = self.fc(x)
        x = x.view(x.size(0), 1, 56, 56)
        x = self.br(x)
        x = self.downsample1(x)
        x = self.downsample2(x)
        x = self.downsample3(x)
        return x


z_dimension = 16
D, G = discriminator(), generator(z_dimension, 3136)
criterion = nn.BCELoss()
d_optimizer = torch.optim.Adam(D.parameters(), lr=0.0003)
g_optimizer = torch.optim.Adam(G.parameters(), lr=0.0003)
for epoch in range(2):
    for i, (img, _) in enumerate(dataloader):
        num_img = img.size(0)
        real_img = Variable(img)
        real_label = Variable(torch.ones(num_img, 1))
        fake_label = Variable(torch.zeros(num_img, 1))
        real_out = D(real_img)
        d_loss_real = criterion(real_out, real_label)
        real_scores = real_out
        z = Variable(torch.randn(num_img, z_dimension))
        fake_img = G(z)
        fake_out = D(fake_img)
        d_loss_fake = criterion(fake_out, fake_label)
        fake_scores = fake_out
        d_loss = d_loss_real + d_loss_fake
        d_optimizer.zero_grad()
        d_loss.backward()
        d_optimizer.step()
        z = Variable(torch.randn(num_img, z_dimension))
        fake_img = G(z)
        output = D(fake_img)
        g_loss = criterion(output, real_label)
        g_optimizer.zero_grad()
        g_loss.backward()
        g_optimizer.step()
    print('Epoch [{}/{}], d_loss: {:.6f}, g_loss: {:.6f} D real: {:.6f}, D fake: {:.6f}'.format(
        epoch, 2, d_loss.data.item(), g_loss.data.item(), real_scores.data.mean(),
        fake_scores.data.mean()))

t, v = torch, Variable
a = v(t.FloatTensor([2, 3]), requires_grad=True)
b = a + 3
c = b * b * 3
out = c.mean()
out.backward()
print('*' * 10)
print('=====simple gradient======')
print('input')
print(a.data)
print('compute result is')
print(out.data)
print('input gradients are')
print(a.grad.data)
m = v(t.FloatTensor([[2, 3]]), requires_grad=True)
n = v(t.zeros(1, 2))
n[0, 0] = m[0, 0] ** 2
n[0, 1] = m[0, 1] ** 3
n.backward(t.FloatTensor([[1, 1]]))
print('*' * 10)
print('=====non scalar output======')
print(m.data)
print(m.grad.data)
print(n.grad_fn is not None, n.is_leaf)
j = t.zeros(2, 2)
k = v(t.zeros(1, 2))
m.grad.data.zero_()
k[0, 0] = m[0, 0] ** 2 + 3 * m[0, 1]
k[0, 1] = m[0, 1] ** 2 + 2 * m[0, 0]
k.backward(t.FloatTensor([[1, 0]]), retain_graph=True)
j[:, 0] = m.grad.data
m.grad.data.zero_()
k.backward(t.FloatTensor([[0, 1]]))
j[:, 1] = m.grad.data
print('jacobian matrix is')
print(j)
x = t.FloatTensor([2, 1]).view(1, 2)
x = v(x, requires_grad=True)
y = v(t.FloatTensor([[1, 2], [3, 4]]))
z = t.mm(x, y)
jacobian = t.zeros((2, 2))
z.backward(t.FloatTensor([[1, 0]]), retain_graph=True)
jacobian[:, 0] = x.grad.data
x.grad.data.zero_()
z.backward(t.FloatTensor([[0, 1]]))
jacobian[:, 1] = x.grad.data
print('=========jacobian========')
print(x.data)
print(y.data)
print(z.data)
print('jacobian matrix is')
print(jacobian)
assert t.equal(jacobian, y)

os.makedirs("imgs", exist_ok=True)
with open("train.txt", "w") as f:
    for i, label in enumerate(["1 2 3", "4 5", "6", "7 8 9 10"]):
        f.write(f"img{i}.png {label.replace(' ', '')}\n")


class custom_dset(Dataset):
    def __init__(self, img_path, txt_path, img_transform=None, loader=None):
        with open(txt_path, 'r') as f:
            lines = f.readlines()
            self.img_list = [os.path.join(img_path, i.split()[0]) for i in lines]
            self.label_list = [i.split()[1] for i in lines]
        self.img_transform = img_transform
        self.loader = loader

    def __getitem__(self, index):
        img_path = self.img_list[index]
        label = self.label_list[index]
        img = img_path
        if self.img_transform is not None:
            img = self.img_transform(img)
        return img, label

    def __len__(self):
        return len(self.label_list)


def collate_fn(batch):
    batch.sort(key=lambda x: len(x[1]), reverse=True)
    img, label = zip(*batch)
    pad_label = []
    lens = []
    max_len = len(label[0])
    for i in range(len(label)):
        temp_label = [0] * max_len
        temp_label[:len(label[i])] = [int(c) for c in label[i]]
        pad_label.append(temp_label)
        lens.append(len(label[i]))
    return img, torch.tensor(pad_label), lens


dset = custom_dset("imgs", "train.txt", img_transform=lambda p: len(p))
loader = DataLoader(dset, batch_size=2, shuffle=False, collate_fn=collate_fn)
for img, label, lens in loader:
    print(img, label, lens)
