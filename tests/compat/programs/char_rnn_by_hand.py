"""The names-classification tutorial's RNN written with Linear layers: torch.cat((input, hidden), 1),
i2h/h2o, nn.LogSoftmax(dim=1), initHidden() -> torch.zeros(1, hidden_size), lineToTensor one-hots,
a manual SGD step p.data.add_(p.grad.data, alpha=-learning_rate)."""
import string
import torch
import torch.nn as nn

all_letters = string.ascii_letters + " .,;'"
n_letters = len(all_letters)


def letterToIndex(letter):
    return all_letters.find(letter)


def lineToTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][letterToIndex(letter)] = 1
    return tensor


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(RNN, self).__init__()
        self.hidden_size = hidden_size
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        combined = torch.cat((input, hidden), 1)
        hidden = torch.tanh(self.i2h(combined))
        output = self.softmax(self.h2o(hidden))
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


torch.manual_seed(0)
categories = ['short', 'long']
names = [('Ann', 0), ('Bob', 0), ('Eve', 0), ('Alexandria', 1), ('Maximilian', 1), ('Christopher', 1)]
rnn = RNN(n_letters, 32, len(categories))
criterion = nn.NLLLoss()
learning_rate = 0.01


def train(category_tensor, line_tensor):
    hidden = rnn.initHidden()
    rnn.zero_grad()
    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)
    loss = criterion(output, category_tensor)
    loss.backward()
    for p in rnn.parameters():
        p.data.add_(p.grad.data, alpha=-learning_rate)
    return output, loss.item()


assert lineToTensor('Jones').size() == (5, 1, n_letters)
totals = []
for epoch in range(15):
    total = 0
    for name, cat in names:
        output, loss = train(torch.tensor([cat], dtype=torch.long), lineToTensor(name))
        total += loss
    totals.append(total)
top_n, top_i = output.topk(1)
assert top_i[0].item() in (0, 1)
assert totals[-1] < totals[0]
