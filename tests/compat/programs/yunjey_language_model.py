"""yunjey/pytorch-tutorial, 02-intermediate/language_model/main.py (an LSTM language model on a
word corpus): Dictionary / Corpus building ids with torch.LongTensor(tokens) and
ids.view(batch_size, -1) after num_batches trimming, RNNLM (nn.Embedding, nn.LSTM(batch_first=
True), out.reshape(out.size(0)*out.size(1), out.size(2))), detach(states) for truncated
backprop, nn.utils.clip_grad_norm_(model.parameters(), 0.5), the perplexity print with np.exp,
and sampling under torch.no_grad() with torch.ones(...).exp(), torch.multinomial(prob,
num_samples=1).item() and input.fill_(word_id); then torch.save(model.state_dict(), 'model.ckpt')."""
import numpy as np
import torch
import torch.nn as nn

# Device configuration
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')


class Dictionary(object):
    def __init__(self):
        self.word2idx = {}
        self.idx2word = {}
        self.idx = 0

    def add_word(self, word):
        if word not in self.word2idx:
            self.word2idx[word] = self.idx
            self.idx2word[self.idx] = word
            self.idx += 1

    def __len__(self):
        return len(self.word2idx)


class Corpus(object):
    def __init__(self):
        self.dictionary = Dictionary()

    def get_data(self, lines, batch_size=20):
        # Add words to the dictionary
        tokens = 0
        for line in lines:
            words = line.split() + ['<eos>']
            tokens += len(words)
            for word in words:
                self.dictionary.add_word(word)
        # Tokenize the file content
        ids = torch.LongTensor(tokens)
        token = 0
        for line in lines:
            words = line.split() + ['<eos>']
            for word in words:
                ids[token] = self.dictionary.word2idx[word]
                token += 1
        num_batches = ids.size(0) // batch_size
        ids = ids[:num_batches * batch_size]
        return ids.view(batch_size, -1)


# Hyper-parameters
embed_size = 32
hidden_size = 64
num_layers = 1
num_epochs = 6
num_samples = 20  # number of words to be sampled
batch_size = 4
seq_length = 10
learning_rate = 0.005

lines = ["the cat sat on the mat", "the dog sat on the log", "a cat and a dog met",
         "the mat was red and the log was brown", "she saw the cat on the log"] * 8
corpus = Corpus()
ids = corpus.get_data(lines, batch_size)
vocab_size = len(corpus.dictionary)
num_batches = ids.size(1) // seq_length
print(ids.shape, ids.dtype, vocab_size, num_batches)


# RNN based language model
class RNNLM(nn.Module):
    def __init__(self, vocab_size, embed_size, hidden_size, num_layers):
        super(RNNLM, self).__init__()
        self.embed = nn.Embedding(vocab_size, embed_size)
        self.lstm = nn.LSTM(embed_size, hidden_size, num_layers, batch_first=True)
        self.linear = nn.Linear(hidden_size, vocab_size)

    def forward(self, x, h):
        # Embed word ids to vectors
        x = self.embed(x)
        # Forward propagate LSTM
        out, (h, c) = self.lstm(x, h)
        # Reshape output to (batch_size*sequence_length, hidden_size)
        out = out.reshape(out.size(0) * out.size(1), out.size(2))
        # Decode hidden states of all time steps
        out = self.linear(out)
        return out, (h, c)


torch.manual_seed(0)
model = RNNLM(vocab_size, embed_size, hidden_size, num_layers).to(device)

# Loss and optimizer
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)


# Truncated backpropagation
def detach(states):
    return [state.detach() for state in states]


# Train the model
for epoch in range(num_epochs):
    # Set initial hidden and cell states
    states = (torch.zeros(num_layers, batch_size, hidden_size).to(device),
              torch.zeros(num_layers, batch_size, hidden_size).to(device))

    for i in range(0, ids.size(1) - seq_length, seq_length):
        # Get mini-batch inputs and targets
        inputs = ids[:, i:i + seq_length].to(device)
        targets = ids[:, (i + 1):(i + 1) + seq_length].to(device)

        # Forward pass
        states = detach(states)
        outputs, states = model(inputs, states)
        loss = criterion(outputs, targets.reshape(-1))

        # Backward and optimize
        model.zero_grad()
        loss.backward()
        clip = nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()

        step = (i + 1) // seq_length
        if step % 2 == 0:
            print('Epoch [{}/{}], Step[{}/{}], Loss: {:.4f}, Perplexity: {:5.2f}'
                  .format(epoch + 1, num_epochs, step, num_batches, loss.item(), np.exp(loss.item())))
assert loss.item() < 2.5 and isinstance(clip, torch.Tensor) and clip.dim() == 0
assert all(not s.requires_grad for s in detach(states))

# Test the model
words = []
with torch.no_grad():
    # Set intial hidden ane cell states
    state = (torch.zeros(num_layers, 1, hidden_size).to(device),
             torch.zeros(num_layers, 1, hidden_size).to(device))

    # Select one word id randomly
    prob = torch.ones(vocab_size)
    input = torch.multinomial(prob, num_samples=1).unsqueeze(1).to(device)
    print(input.shape, input.dtype)

    for i in range(num_samples):
        # Forward propagate RNN
        output, state = model(input, state)

        # Sample a word id
        prob = output.exp()
        word_id = torch.multinomial(prob, num_samples=1).item()

        # Fill input with sampled word id for the next time step
        input.fill_(word_id)

        # File write
        word = corpus.dictionary.idx2word[word_id]
        word = '\n' if word == '<eos>' else word + ' '
        words.append(word)
print(''.join(words))
assert len(words) == num_samples

# Save the model checkpoints
torch.save(model.state_dict(), 'model.ckpt')
state = torch.load('model.ckpt')
print(sorted(state.keys()))
assert 'lstm.weight_ih_l0' in state and state['lstm.weight_ih_l0'].shape == (4 * hidden_size, embed_size)
