"""PyTorch tutorial "Deep Learning for NLP with PyTorch", parts "Introduction to PyTorch" and
"Deep Learning with PyTorch" (beginner_source/nlp/pytorch_tutorial.py and
deep_learning_tutorial.py): tensors from nested lists, torch.cat along dims 0 and 1, x.view(2, -1),
requires_grad and grad_fn, s.backward() on a sum, requires_grad_(), detach(), torch.no_grad();
then nn.Linear(5, 3), F.relu, F.softmax / F.log_softmax along dim=0, and the bag-of-words
Spanish/English BoWClassifier (make_bow_vector with vec[word_to_ix[word]] += 1 and view(1, -1),
make_target with torch.LongTensor, NLLLoss, SGD lr=0.1, 100 epochs) whose weight for 'creo'
moves towards SPANISH."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(1)

# Introduction to PyTorch
V_data = [1., 2., 3.]
V = torch.tensor(V_data)
M_data = [[1., 2., 3.], [4., 5., 6]]
M = torch.tensor(M_data)
T_data = [[[1., 2.], [3., 4.]],
          [[5., 6.], [7., 8.]]]
T = torch.tensor(T_data)
print(V[0], V[0].item(), M[0], T[0])
assert V[0].item() == 1.0 and M[0].tolist() == [1., 2., 3.] and T[0].shape == (2, 2)
x = torch.randn((3, 4, 5))
assert x.shape == (3, 4, 5)

x_1 = torch.randn(2, 5)
y_1 = torch.randn(3, 5)
z_1 = torch.cat([x_1, y_1])
x_2 = torch.randn(2, 3)
y_2 = torch.randn(2, 5)
z_2 = torch.cat([x_2, y_2], 1)
assert z_1.shape == (5, 5) and z_2.shape == (2, 8)
assert torch.equal(z_1[2:], y_1) and torch.equal(z_2[:, :3], x_2)
try:
    torch.cat([x_1, x_2])
except RuntimeError as e:
    print("cat of (2, 5) and (2, 3) along dim 0:", str(e)[:50])
else:
    raise AssertionError("torch.cat must refuse mismatched sizes")

x = torch.randn(2, 3, 4)
print(x.view(2, 12))  # Reshape to 2 rows, 12 columns
print(x.view(2, -1))
assert torch.equal(x.view(2, 12), x.view(2, -1))

x = torch.tensor([1., 2., 3], requires_grad=True)
y = torch.tensor([4., 5., 6], requires_grad=True)
z = x + y
print(z)
print(z.grad_fn)
assert type(z.grad_fn).__name__ == "AddBackward0"
s = z.sum()
print(s)
print(s.grad_fn)
assert type(s.grad_fn).__name__ == "SumBackward0"
s.backward()
print(x.grad)
assert torch.equal(x.grad, torch.ones(3))

x = torch.randn(2, 2)
y = torch.randn(2, 2)
print(x.requires_grad, y.requires_grad)
z = x + y
print(z.grad_fn)
assert z.grad_fn is None
x = x.requires_grad_()
y = y.requires_grad_()
z = x + y
print(z.grad_fn)
print(z.requires_grad)
assert z.requires_grad and z.grad_fn is not None
new_z = z.detach()
print(new_z.grad_fn)
assert new_z.grad_fn is None

print(x.requires_grad)
print((x ** 2).requires_grad)
with torch.no_grad():
    print((x ** 2).requires_grad)
    assert not (x ** 2).requires_grad

# Deep Learning with PyTorch
lin = nn.Linear(5, 3)  # maps from R^5 to R^3, parameters A, b
data = torch.randn(2, 5)
print(lin(data))  # yes
assert torch.allclose(lin(data), data @ lin.weight.t() + lin.bias)
data = torch.randn(2, 2)
print(data)
print(F.relu(data))
assert torch.equal(F.relu(data), data.clamp(min=0))
data = torch.randn(5)
print(data)
print(F.softmax(data, dim=0))
print(F.softmax(data, dim=0).sum())  # Sums to 1 because it is a distribution!
print(F.log_softmax(data, dim=0))  # theres also log_softmax
assert torch.allclose(F.softmax(data, dim=0).sum(), torch.tensor(1.0))
assert torch.allclose(F.log_softmax(data, dim=0), F.softmax(data, dim=0).log())

data = [("me gusta comer en la cafeteria".split(), "SPANISH"),
        ("Give it to me".split(), "ENGLISH"),
        ("No creo que sea una buena idea".split(), "SPANISH"),
        ("No it is not a good idea to get lost at sea".split(), "ENGLISH")]

test_data = [("Yo creo que si".split(), "SPANISH"),
             ("it is lost on me".split(), "ENGLISH")]

# word_to_ix maps each word in the vocab to a unique integer, which will be its
# index into the Bag of words vector
word_to_ix = {}
for sent, _ in data + test_data:
    for word in sent:
        if word not in word_to_ix:
            word_to_ix[word] = len(word_to_ix)
print(word_to_ix)

VOCAB_SIZE = len(word_to_ix)
NUM_LABELS = 2
assert VOCAB_SIZE == 26


class BoWClassifier(nn.Module):  # inheriting from nn.Module!

    def __init__(self, num_labels, vocab_size):
        # calls the init function of nn.Module.  Dont get confused by syntax,
        # just always do it in an nn.Module
        super(BoWClassifier, self).__init__()

        # Define the parameters that you will need.  In this case, we need A and b,
        # the parameters of the affine mapping.
        # Torch defines nn.Linear(), which provides the affine map.
        # Make sure you understand why the input dimension is vocab_size
        # and the output is num_labels!
        self.linear = nn.Linear(vocab_size, num_labels)

        # NOTE! The non-linearity log softmax does not have parameters! So we don't need
        # to worry about that here

    def forward(self, bow_vec):
        # Pass the input through the linear layer,
        # then pass that through log_softmax.
        # Many non-linearities and other functions are in torch.nn.functional
        return F.log_softmax(self.linear(bow_vec), dim=1)


def make_bow_vector(sentence, word_to_ix):
    vec = torch.zeros(len(word_to_ix))
    for word in sentence:
        vec[word_to_ix[word]] += 1
    return vec.view(1, -1)


def make_target(label, label_to_ix):
    return torch.LongTensor([label_to_ix[label]])


model = BoWClassifier(NUM_LABELS, VOCAB_SIZE)

# the model knows its parameters.  The first output below is A, the second is b.
# Whenever you assign a component to a class variable in the __init__ function
# of a module, which was done with the line
# self.linear = nn.Linear(...)
# Then through some Python magic from the PyTorch devs, your module
# (in this case, BoWClassifier) will store knowledge of the nn.Linear's parameters
for param in model.parameters():
    print(param)

# To run the model, pass in a BoW vector
# Here we don't need to train, so the code is wrapped in torch.no_grad()
with torch.no_grad():
    sample = data[0]
    bow_vector = make_bow_vector(sample[0], word_to_ix)
    log_probs = model(bow_vector)
    print(log_probs)
    assert bow_vector.shape == (1, 26) and bow_vector.sum() == 6
    assert log_probs.shape == (1, 2)

label_to_ix = {"SPANISH": 0, "ENGLISH": 1}

# Run on test data before we train, just to see a before-and-after
with torch.no_grad():
    for instance, label in test_data:
        bow_vec = make_bow_vector(instance, word_to_ix)
        log_probs = model(bow_vec)
        print(log_probs)

# Print the matrix column corresponding to "creo"
print(next(model.parameters())[:, word_to_ix["creo"]])
creo_before = next(model.parameters())[:, word_to_ix["creo"]].detach().clone()

loss_function = nn.NLLLoss()
optimizer = optim.SGD(model.parameters(), lr=0.1)

# Usually you want to pass over the training data several times.
# 100 is much bigger than on a real data set, but real datasets have more than
# two instances.  Usually, somewhere between 5 and 30 epochs is reasonable.
for epoch in range(100):
    for instance, label in data:
        # Step 1. Remember that PyTorch accumulates gradients.
        # We need to clear them out before each instance
        model.zero_grad()

        # Step 2. Make our BOW vector and also we must wrap the target in a
        # Tensor as an integer. For example, if the target is SPANISH, then
        # we wrap the integer 0. The loss function then knows that the 0th
        # element of the log probabilities is the log probability
        # corresponding to SPANISH
        bow_vec = make_bow_vector(instance, word_to_ix)
        target = make_target(label, label_to_ix)

        # Step 3. Run our forward pass.
        log_probs = model(bow_vec)

        # Step 4. Compute the loss, gradients, and update the parameters by
        # calling optimizer.step()
        loss = loss_function(log_probs, target)
        loss.backward()
        optimizer.step()

with torch.no_grad():
    for instance, label in test_data:
        bow_vec = make_bow_vector(instance, word_to_ix)
        log_probs = model(bow_vec)
        print(log_probs)
        assert int(log_probs.argmax(1)) == label_to_ix[label]

# Index corresponding to Spanish goes up, English goes down!
creo_after = next(model.parameters())[:, word_to_ix["creo"]]
print(creo_after)
assert creo_after[0] > creo_before[0] and creo_after[1] < creo_before[1]
assert loss.item() < 0.1
