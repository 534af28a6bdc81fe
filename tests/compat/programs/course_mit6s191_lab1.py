"""MIT 6.S191 (Introduction to Deep Learning), lab 1 in PyTorch (MITDeepLearning/
introtodeeplearning, lab1/solutions/PT_Part1_Intro_Solution and PT_Part2_Music_Generation_
Solution), the solutions' code at toy size: the mitdeeplearning package, Comet logging, plots
and audio left out, and a few made-up ABC tunes in place of the Irish folk song dataset.
Part 1: 0-d/1-d tensors (torch.tensor(range(100))), torch.add / torch.subtract /
torch.multiply on Python floats, OurDenseLayer with nn.Parameter(torch.randn(...)),
nn.Sequential(nn.Linear, nn.Sigmoid), a module with an extra forward argument, y.backward() of
x ** 2, and the gradient-descent loop that rebuilds `x = torch.tensor([x], requires_grad=True)`
from the previous step's one-element tensor each iteration (its shape stays (1,)). Part 2: the
character vocabulary, vectorize_string to a numpy array, get_batch with np.random.choice and
torch.tensor of a list of numpy slices, LSTMModel (nn.Embedding, nn.LSTM(batch_first=True) with
an explicit (h, c) state, nn.Linear), torch.multinomial on softmax, a numpy array of characters
indexed by a tensor (idx2char[x[0].cpu()], idx2char[input_idx].item()), compute_loss with
logits.view(-1, logits.size(-1)), train_step with Adam, torch.save of the state_dict every 100
steps, and generate_text feeding the LSTM state back in one character at a time."""
import os
import warnings

import numpy as np
import torch
import torch.nn as nn

warnings.simplefilter("ignore", UserWarning)   # torch.tensor(tensor) copy-construct advice
torch.manual_seed(0)
np.random.seed(0)

# ---- Part 1
integer = torch.tensor(1234)
decimal = torch.tensor(3.14159265359)
print(f"`integer` is a {integer.ndim}-d Tensor: {integer}")
print(f"`decimal` is a {decimal.ndim}-d Tensor: {decimal}")
assert integer.dtype == torch.int64 and decimal.dtype == torch.float32

fibonacci = torch.tensor([1, 1, 2, 3, 5, 8])
count_to_100 = torch.tensor(range(100))
print(f"`fibonacci` is a {fibonacci.ndim}-d Tensor with shape: {fibonacci.shape}")
print(f"`count_to_100` is a {count_to_100.ndim}-d Tensor with shape: {count_to_100.shape}")
assert count_to_100.shape == (100,) and count_to_100.dtype == torch.int64 and count_to_100[-1] == 99

matrix = torch.tensor([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])
assert isinstance(matrix, torch.Tensor), "matrix must be a torch Tensor object"
assert matrix.ndim == 2
images = torch.zeros(10, 3, 256, 256)
assert isinstance(images, torch.Tensor), "images must be a torch Tensor object"
assert images.ndim == 4, "images must have 4 dimensions"
assert images.shape == (10, 3, 256, 256), "images is incorrect shape"
print(f"images is a {images.ndim}-d Tensor with shape: {images.shape}")

row_vector = matrix[1]
column_vector = matrix[:, 1]
scalar = matrix[0, 1]
print(f"`row_vector`: {row_vector}")
print(f"`column_vector`: {column_vector}")
print(f"`scalar`: {scalar}")
assert column_vector.tolist() == [2.0, 6.0] and scalar.ndim == 0

a = torch.tensor(15)
b = torch.tensor(61)
c1 = torch.add(a, b)
c2 = a + b  # PyTorch overrides the "+" operation so that it is able to act on Tensors
print(f"c1: {c1}")
print(f"c2: {c2}")
assert c1 == c2 == 76


def func(a, b):
    c = torch.add(a, b)
    d = torch.subtract(b, 1)
    e = torch.multiply(c, d)
    return e


a, b = 1.5, 2.5
e_out = func(a, b)
print(f"e_out: {e_out}")
assert isinstance(e_out, torch.Tensor) and e_out.item() == 6.0 and e_out.dtype == torch.float32


class OurDenseLayer(torch.nn.Module):
    def __init__(self, num_inputs, num_outputs):
        super(OurDenseLayer, self).__init__()
        # Define and initialize parameters: a weight matrix W and bias b
        # Note that the parameter initialize is random!
        self.W = torch.nn.Parameter(torch.randn(num_inputs, num_outputs))
        self.bias = torch.nn.Parameter(torch.randn(num_outputs))

    def forward(self, x):
        z = torch.matmul(x, self.W) + self.bias
        y = torch.sigmoid(z)
        return y


num_inputs = 2
num_outputs = 3
layer = OurDenseLayer(num_inputs, num_outputs)
x_input = torch.tensor([[1, 2.]])
y = layer(x_input)
print(f"input shape: {x_input.shape}")
print(f"output shape: {y.shape}")
print(f"output result: {y}")
assert y.shape == (1, 3) and [n for n, _ in layer.named_parameters()] == ['W', 'bias']

n_input_nodes = 2
n_output_nodes = 3
model = nn.Sequential(
    nn.Linear(n_input_nodes, n_output_nodes),
    nn.Sigmoid()
)
model_output = model(x_input)
assert model_output.shape == (1, 3) and bool(((model_output > 0) & (model_output < 1)).all())


class LinearWithSigmoidActivation(nn.Module):
    def __init__(self, num_inputs, num_outputs):
        super(LinearWithSigmoidActivation, self).__init__()
        self.linear = nn.Linear(num_inputs, num_outputs)
        self.activation = nn.Sigmoid()

    def forward(self, inputs):
        linear_output = self.linear(inputs)
        output = self.activation(linear_output)
        return output


model = LinearWithSigmoidActivation(n_input_nodes, n_output_nodes)
y = model(x_input)
assert torch.allclose(y, torch.sigmoid(x_input @ model.linear.weight.T + model.linear.bias))


class LinearButSometimesIdentity(nn.Module):
    def __init__(self, num_inputs, num_outputs):
        super(LinearButSometimesIdentity, self).__init__()
        self.linear = nn.Linear(num_inputs, num_outputs)

    def forward(self, inputs, isidentity=False):
        if isidentity:
            return inputs
        else:
            return self.linear(inputs)


model = LinearButSometimesIdentity(num_inputs=2, num_outputs=3)
out_with_linear = model(x_input)
out_with_identity = model(x_input, isidentity=True)
print(f"input: {x_input}")
print("Network linear output: {}; network identity output: {}".format(out_with_linear, out_with_identity))
assert out_with_identity is x_input and out_with_linear.shape == (1, 3)

x = torch.tensor(3.0, requires_grad=True)
y = x ** 2
y.backward()  # Compute the gradient
dy_dx = x.grad
print("dy_dx of y=x^2 at x=3.0 is: ", dy_dx)
assert dy_dx == 6.0

x = torch.randn(1)
print(f"Initializing x={x.item()}")
learning_rate = 1e-2  # Learning rate
history = []
x_f = 4  # Target value
for i in range(500):
    x = torch.tensor([x], requires_grad=True)
    loss = (x - x_f) ** 2
    loss.backward()
    x = x.item() - learning_rate * x.grad
    history.append(x.item())
print(x, history[-1])
assert x.shape == (1,) and abs(history[-1] - x_f) < 1e-3

# ---- Part 2: music generation
songs = [
    "X:1\nT:Toy Reel\nM:4/4\nK:D\n|:d2fd AdFA|d2fd e2ce|d2fd AdFA|GBAG FDD2:|",
    "X:2\nT:Toy Jig\nM:6/8\nK:G\n|:GAB dBG|ABA AGE|GAB dBG|AGF G3:|",
    "X:3\nT:Toy Polka\nM:2/4\nK:A\n|:AB cA|BA FE|AB cA|BA A2:|",
    "X:4\nT:Toy Hornpipe\nM:4/4\nK:C\n|:c2ec GcEG|c2ec d2Bd|c2ec GcEG|FAGF ECC2:|",
]
example_song = songs[0]
print("\nExample song: ")
print(example_song)
songs_joined = "\n\n".join(songs)

# Find all unique characters in the joined string
vocab = sorted(set(songs_joined))
print("There are", len(vocab), "unique characters in the dataset")
char2idx = {u: i for i, u in enumerate(vocab)}
idx2char = np.array(vocab)
print('{')
for char, _ in zip(char2idx, range(20)):
    print('  {:4s}: {:3d},'.format(repr(char), char2idx[char]))
print('  ...\n}')


def vectorize_string(string):
    vectorized_output = np.array([char2idx[char] for char in string])
    return vectorized_output


vectorized_songs = vectorize_string(songs_joined)
print('{} ---- characters mapped to int ----> {}'.format(repr(songs_joined[:10]), vectorized_songs[:10]))
assert isinstance(vectorized_songs, np.ndarray), "returned result should be a numpy array"


def get_batch(vectorized_songs, seq_length, batch_size):
    # the length of the vectorized songs string
    n = vectorized_songs.shape[0] - 1
    # randomly choose the starting indices for the examples in the training batch
    idx = np.random.choice(n - seq_length, batch_size)
    input_batch = [vectorized_songs[i: i + seq_length] for i in idx]
    output_batch = [vectorized_songs[i + 1: i + seq_length + 1] for i in idx]
    # Convert the input and output batches to tensors
    x_batch = torch.tensor(input_batch, dtype=torch.long)
    y_batch = torch.tensor(output_batch, dtype=torch.long)
    return x_batch, y_batch


test_args = (vectorized_songs, 10, 2)
x_batch, y_batch = get_batch(*test_args)
assert x_batch.shape == (2, 10), "x_batch shape is incorrect"
assert y_batch.shape == (2, 10), "y_batch shape is incorrect"
assert torch.equal(x_batch[:, 1:], y_batch[:, :-1])
print("Batch function works correctly!")

x_batch, y_batch = get_batch(vectorized_songs, seq_length=5, batch_size=1)
for i, (input_idx, target_idx) in enumerate(zip(x_batch[0], y_batch[0])):
    print("Step {:3d}".format(i))
    print("  input: {} ({:s})".format(input_idx, repr(idx2char[input_idx.item()])))
    print("  expected output: {} ({:s})".format(target_idx, repr(idx2char[target_idx.item()])))


class LSTMModel(nn.Module):
    def __init__(self, vocab_size, embedding_dim, hidden_size):
        super(LSTMModel, self).__init__()
        self.hidden_size = hidden_size
        self.embedding = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, hidden_size, batch_first=True)
        self.fc = nn.Linear(hidden_size, vocab_size)

    def init_hidden(self, batch_size, device):
        # Initialize hidden state and cell state with zeros
        return (torch.zeros(1, batch_size, self.hidden_size).to(device),
                torch.zeros(1, batch_size, self.hidden_size).to(device))

    def forward(self, x, state=None, return_state=False):
        x = self.embedding(x)
        if state is None:
            state = self.init_hidden(x.size(0), x.device)
        out, state = self.lstm(x, state)
        out = self.fc(out)
        return out if not return_state else (out, state)


vocab_size = len(vocab)
embedding_dim = 16
hidden_size = 64
batch_size = 8
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = LSTMModel(vocab_size, embedding_dim, hidden_size).to(device)
print(model)

x, y = get_batch(vectorized_songs, seq_length=30, batch_size=16)
x = x.to(device)
y = y.to(device)
pred = model(x)
print("Input shape:      ", x.shape, " # (batch_size, sequence_length)")
print("Prediction shape: ", pred.shape, "# (batch_size, sequence_length, vocab_size)")
assert pred.shape == (16, 30, vocab_size)
sampled_indices = torch.multinomial(torch.softmax(pred[0], dim=-1), num_samples=1)
sampled_indices = sampled_indices.squeeze(-1).cpu().numpy()
print("Input: \n", repr("".join(idx2char[x[0].cpu()])))
print()
print("Next Char Predictions: \n", repr("".join(idx2char[sampled_indices])))
assert "".join(idx2char[x[0].cpu()]) in songs_joined and sampled_indices.shape == (30,)

cross_entropy = nn.CrossEntropyLoss()  # instantiates the function


def compute_loss(labels, logits):
    batched_labels = labels.view(-1)
    batched_logits = logits.view(-1, logits.size(-1))
    loss = cross_entropy(batched_logits, batched_labels)
    return loss


example_batch_loss = compute_loss(y, pred)
print(f"Prediction shape: {pred.shape} # (batch_size, sequence_length, vocab_size)")
print(f"scalar_loss:      {example_batch_loss.mean().item()}")
assert abs(example_batch_loss.item() - np.log(vocab_size)) < 0.5       # untrained: about uniform

params = dict(
    num_training_iterations=150,  # Increase this to train longer
    batch_size=8,  # Experiment between 1 and 64
    seq_length=30,  # Experiment between 50 and 500
    learning_rate=5e-3,  # Experiment between 1e-5 and 1e-1
    embedding_dim=16,
    hidden_size=64,  # Experiment between 1 and 2048
)
checkpoint_dir = './training_checkpoints'
checkpoint_prefix = os.path.join(checkpoint_dir, "my_ckpt")
os.makedirs(checkpoint_dir, exist_ok=True)

model = LSTMModel(vocab_size, params["embedding_dim"], params["hidden_size"])
model.to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=params["learning_rate"])


def train_step(x, y):
    # Set the model's mode to train
    model.train()
    # Zero gradients for every step
    optimizer.zero_grad()
    y_hat = model(x)
    loss = compute_loss(y, y_hat)
    loss.backward()
    optimizer.step()
    return loss


history = []
for iter in range(params["num_training_iterations"]):
    # Grab a batch and propagate it through the network
    x_batch, y_batch = get_batch(vectorized_songs, params["seq_length"], params["batch_size"])
    # Convert numpy arrays to PyTorch tensors
    x_batch = torch.tensor(x_batch, dtype=torch.long).to(device)
    y_batch = torch.tensor(y_batch, dtype=torch.long).to(device)
    # Take a train step
    loss = train_step(x_batch, y_batch)
    # Log the loss to the Comet interface
    history.append(loss.item())
    # Save model checkpoint
    if iter % 100 == 0:
        torch.save(model.state_dict(), checkpoint_prefix)
torch.save(model.state_dict(), checkpoint_prefix)
print(history[0], history[-1])
assert history[-1] < history[0] - 1.0, history[::10]

restored = LSTMModel(vocab_size, params["embedding_dim"], params["hidden_size"])
restored.load_state_dict(torch.load(checkpoint_prefix))
assert all(torch.equal(p, q) for p, q in zip(restored.parameters(), model.parameters()))


def generate_text(model, start_string, generation_length=1000):
    # Evaluation step (generating ABC text using the learned RNN model)
    input_idx = [char2idx[s] for s in start_string]
    input_idx = torch.tensor([input_idx], dtype=torch.long).to(device)
    # Initialize the hidden state
    state = model.init_hidden(input_idx.size(0), device)
    # Empty string to store our results
    text_generated = []
    for i in range(generation_length):
        predictions, state = model(input_idx, state, return_state=True)
        # Remove the batch dimension
        predictions = predictions.squeeze(0)
        input_idx = torch.multinomial(torch.softmax(predictions, dim=-1), num_samples=1)
        # Pass the prediction along with the previous hidden state as the next inputs to the model
        text_generated.append(idx2char[input_idx].item())
    return (start_string + ''.join(text_generated))


torch.manual_seed(1)
with torch.no_grad():
    generated_text = generate_text(model, start_string="X", generation_length=80)
print(generated_text)
assert len(generated_text) == 81 and set(generated_text) <= set(vocab)
assert generated_text.count("|") >= 2            # it has learnt the bar lines
