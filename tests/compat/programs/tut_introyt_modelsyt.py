"""PyTorch "Introduction to PyTorch" YouTube series, "Building Models with PyTorch"
(beginner_source/introyt/modelsyt_tutorial.py): TinyModel with a Softmax, iterating
tinymodel.parameters() and linear1.parameters(); a Linear layer's weight as a Parameter;
LeNet with conv1/conv2 and F.max_pool2d(..., (2, 2)) and num_flat_features; the LSTMTagger
(nn.Embedding, nn.LSTM, nn.Linear, F.log_softmax) over a toy sentence; nn.Transformer's shapes;
other layers: nn.MaxPool2d on a random tensor, nn.BatchNorm1d normalising, nn.Dropout(p=0.4)
zeroing and rescaling; and printing a model's parameters."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyModel(torch.nn.Module):
    def __init__(self):
        super(TinyModel, self).__init__()
        self.linear1 = torch.nn.Linear(100, 200)
        self.activation = torch.nn.ReLU()
        self.linear2 = torch.nn.Linear(200, 10)
        self.softmax = torch.nn.Softmax()

    def forward(self, x):
        x = self.linear1(x)
        x = self.activation(x)
        x = self.linear2(x)
        x = self.softmax(x)
        return x


tinymodel = TinyModel()
print('The model:')
print(tinymodel)
print('\n\nJust one layer:')
print(tinymodel.linear2)
print('\n\nModel params:')
for param in tinymodel.parameters():
    print(param.shape)
print('\n\nLayer params:')
for param in tinymodel.linear2.parameters():
    print(param.shape)
assert [tuple(p.shape) for p in tinymodel.parameters()] == [(200, 100), (200,), (10, 200), (10,)]
assert "Softmax(dim=None)" in repr(tinymodel)

lin = torch.nn.Linear(3, 2)
x = torch.rand(1, 3)
print('Input:')
print(x)
print('\n\nWeight and Bias parameters:')
for param in lin.parameters():
    print(param)
y = lin(x)
print('\n\nOutput:')
print(y)
assert isinstance(lin.weight, torch.nn.Parameter) and y.grad_fn is not None


class LeNet(torch.nn.Module):
    def __init__(self):
        super(LeNet, self).__init__()
        # 1 input image channel (black & white), 6 output channels, 5x5 square convolution
        # kernel
        self.conv1 = torch.nn.Conv2d(1, 6, 5)
        self.conv2 = torch.nn.Conv2d(6, 16, 3)
        # an affine operation: y = Wx + b
        self.fc1 = torch.nn.Linear(16 * 6 * 6, 120)  # 6*6 from image dimension
        self.fc2 = torch.nn.Linear(120, 84)
        self.fc3 = torch.nn.Linear(84, 10)

    def forward(self, x):
        # Max pooling over a (2, 2) window
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        # If the size is a square you can only specify a single number
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, self.num_flat_features(x))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x

    def num_flat_features(self, x):
        size = x.size()[1:]  # all dimensions except the batch dimension
        num_features = 1
        for s in size:
            num_features *= s
        return num_features


net = LeNet()
assert net(torch.rand(1, 1, 32, 32)).shape == (1, 10)


class LSTMTagger(torch.nn.Module):
    def __init__(self, embedding_dim, hidden_dim, vocab_size, tagset_size):
        super(LSTMTagger, self).__init__()
        self.hidden_dim = hidden_dim
        self.word_embeddings = torch.nn.Embedding(vocab_size, embedding_dim)
        # The LSTM takes word embeddings as inputs, and outputs hidden states
        # with dimensionality hidden_dim.
        self.lstm = torch.nn.LSTM(embedding_dim, hidden_dim)
        # The linear layer that maps from hidden state space to tag space
        self.hidden2tag = torch.nn.Linear(hidden_dim, tagset_size)

    def forward(self, sentence):
        embeds = self.word_embeddings(sentence)
        lstm_out, _ = self.lstm(embeds.view(len(sentence), 1, -1))
        tag_space = self.hidden2tag(lstm_out.view(len(sentence), -1))
        tag_scores = F.log_softmax(tag_space, dim=1)
        return tag_scores


word_to_ix = {w: i for i, w in enumerate("The dog ate the apple".split())}
tagger = LSTMTagger(6, 6, len(word_to_ix), 3)
sentence = torch.tensor([word_to_ix[w] for w in "The dog ate the apple".split()], dtype=torch.long)
tag_scores = tagger(sentence)
assert tag_scores.shape == (5, 3)
assert torch.allclose(tag_scores.exp().sum(1), torch.ones(5), atol=1e-6)

transformer_model = torch.nn.Transformer(d_model=16, nhead=4, num_encoder_layers=2,
                                         num_decoder_layers=2, dim_feedforward=32)
src = torch.rand((10, 2, 16))
tgt = torch.rand((7, 2, 16))
assert transformer_model(src, tgt).shape == (7, 2, 16)

# other layers
my_tensor = torch.rand(1, 6, 6)
print(my_tensor)
maxpool_layer = torch.nn.MaxPool2d(3)
pooled = maxpool_layer(my_tensor)
print(pooled)
assert pooled.shape == (1, 2, 2) and pooled[0, 0, 0] == my_tensor[0, :3, :3].max()

my_tensor = torch.rand(1, 4, 4) * 20 + 5
print(my_tensor)
print(my_tensor.mean())
norm_layer = torch.nn.BatchNorm1d(4)
normed_tensor = norm_layer(my_tensor)
print(normed_tensor)
print(normed_tensor.mean())
assert abs(normed_tensor.mean().item()) < 1e-5

my_tensor = torch.rand(1, 4, 4)
dropout = torch.nn.Dropout(p=0.4)
dropped = dropout(my_tensor)
print(dropped)
kept = dropped != 0
assert torch.allclose(dropped[kept], my_tensor[kept] / 0.6)
