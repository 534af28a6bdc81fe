"""PyTorch tutorial "NLP From Scratch: Generating Names with a Character-Level RNN"
(intermediate_source/char_rnn_generation_tutorial.py): unicodeToAscii with unicodedata,
category_lines built from a dict, an RNN module taking (category, input, hidden) with
torch.cat((category, input, hidden), 1), i2h / i2o / o2o, nn.Dropout(0.1), nn.LogSoftmax(dim=1),
initHidden, one-hot categoryTensor / inputTensor (torch.zeros(len(line), 1, n_letters)) and
targetTensor (torch.LongTensor(letter_indexes)), target_line_tensor.unsqueeze_(-1), a loss summed
over the letters (loss = 0; loss += l), manual SGD with p.data.add_(p.grad.data, alpha=-lr),
timeSince, and sample() under torch.no_grad() with output.topk(1) and topi[0][0]."""
import math
import random
import string
import time
import unicodedata

import torch
import torch.nn as nn

all_letters = string.ascii_letters + " .,;'-"
n_letters = len(all_letters) + 1  # Plus EOS marker


def unicodeToAscii(s):
    return ''.join(c for c in unicodedata.normalize('NFD', s)
                   if unicodedata.category(c) != 'Mn' and c in all_letters)


print(unicodeToAscii("O'Néàl"))
category_lines = {
    "English": ["Abbott", "Adams", "Baker", "Carter", "Dawson", "Ellis", "Fisher", "Graham"],
    "French": ["Abel", "Beaulieu", "Chastain", "Dupont", "Fontaine", "Gérard", "Laurent"],
    "Italian": ["Abate", "Bianchi", "Conti", "Esposito", "Ferrari", "Greco", "Romano"],
}
category_lines = {k: [unicodeToAscii(n) for n in v] for k, v in category_lines.items()}
all_categories = list(category_lines)
n_categories = len(all_categories)
print('# categories:', n_categories, all_categories)
print(category_lines['French'][5])


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(RNN, self).__init__()
        self.hidden_size = hidden_size

        self.i2h = nn.Linear(n_categories + input_size + hidden_size, hidden_size)
        self.i2o = nn.Linear(n_categories + input_size + hidden_size, output_size)
        self.o2o = nn.Linear(hidden_size + output_size, output_size)
        self.dropout = nn.Dropout(0.1)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, category, input, hidden):
        input_combined = torch.cat((category, input, hidden), 1)
        hidden = self.i2h(input_combined)
        output = self.i2o(input_combined)
        output_combined = torch.cat((hidden, output), 1)
        output = self.o2o(output_combined)
        output = self.dropout(output)
        output = self.softmax(output)
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


# Random item from a list
def randomChoice(l):
    return l[random.randint(0, len(l) - 1)]


# Get a random category and random line from that category
def randomTrainingPair():
    category = randomChoice(all_categories)
    line = randomChoice(category_lines[category])
    return category, line


# One-hot vector for category
def categoryTensor(category):
    li = all_categories.index(category)
    tensor = torch.zeros(1, n_categories)
    tensor[0][li] = 1
    return tensor


# One-hot matrix of first to last letters (not including EOS) for input
def inputTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li in range(len(line)):
        letter = line[li]
        tensor[li][0][all_letters.find(letter)] = 1
    return tensor


# ``LongTensor`` of second letter to end (EOS) for target
def targetTensor(line):
    letter_indexes = [all_letters.find(line[li]) for li in range(1, len(line))]
    letter_indexes.append(n_letters - 1)  # EOS
    return torch.LongTensor(letter_indexes)


# Make category, input, and target tensors from a random category, line pair
def randomTrainingExample():
    category, line = randomTrainingPair()
    category_tensor = categoryTensor(category)
    input_line_tensor = inputTensor(line)
    target_line_tensor = targetTensor(line)
    return category_tensor, input_line_tensor, target_line_tensor


random.seed(0)
torch.manual_seed(0)
c, i, t = randomTrainingExample()
print(c, i.shape, t)
criterion = nn.NLLLoss()
learning_rate = 0.0005
rnn = RNN(n_letters, 64, n_letters)


def train(category_tensor, input_line_tensor, target_line_tensor):
    target_line_tensor.unsqueeze_(-1)
    hidden = rnn.initHidden()

    rnn.zero_grad()

    loss = torch.Tensor([0])  # you can also just simply use ``loss = 0``

    for i in range(input_line_tensor.size(0)):
        output, hidden = rnn(category_tensor, input_line_tensor[i], hidden)
        l = criterion(output, target_line_tensor[i])  # noqa: E741
        loss += l

    loss.backward()

    for p in rnn.parameters():
        p.data.add_(p.grad.data, alpha=-learning_rate)

    return output, loss.item() / input_line_tensor.size(0)


def timeSince(since):
    now = time.time()
    s = now - since
    m = math.floor(s / 60)
    s -= m * 60
    return '%dm %ds' % (m, s)


n_iters = 600
print_every = 200
plot_every = 50
all_losses = []
total_loss = 0  # Reset every ``plot_every`` ``iters``
start = time.time()
learning_rate = 0.005
for iter in range(1, n_iters + 1):
    output, loss = train(*randomTrainingExample())
    total_loss += loss
    if iter % print_every == 0:
        print('(%d %d%%) %.4f' % (iter, iter / n_iters * 100, loss), timeSince(start) != '')
    if iter % plot_every == 0:
        all_losses.append(total_loss / plot_every)
        total_loss = 0
print([round(x, 3) for x in all_losses])
assert all_losses[-1] < all_losses[0]

max_length = 20


# Sample from a category and starting letter
def sample(category, start_letter='A'):
    with torch.no_grad():  # no need to track history in sampling
        category_tensor = categoryTensor(category)
        input = inputTensor(start_letter)
        hidden = rnn.initHidden()

        output_name = start_letter

        for i in range(max_length):
            output, hidden = rnn(category_tensor, input[0], hidden)
            topv, topi = output.topk(1)
            topi = topi[0][0]
            if topi == n_letters - 1:
                break
            else:
                letter = all_letters[topi]
                output_name += letter
            input = inputTensor(letter)

        return output_name


# Get multiple samples from one category and multiple starting letters
def samples(category, start_letters='ABC'):
    for start_letter in start_letters:
        print(sample(category, start_letter))


rnn.eval()
samples('English', 'ABC')
samples('French', 'BDG')
name = sample('Italian', 'R')
assert name.startswith('R') and len(name) <= max_length + 1
