"""PyTorch tutorial "NLP From Scratch: Classifying Names with a Character-Level RNN"
(intermediate_source/char_rnn_classification_tutorial.py), the 2024 rewrite by Matthew Schultz,
on generated 'names' of four made-up languages written to data/names/*.txt (the tutorial
downloads data.zip), fewer epochs, no plots. The idioms: torch.set_default_device(device),
unicodedata-based unicodeToAscii with an '_' out-of-vocabulary letter, lineToTensor one-hots
(tensor[li][0][letterToIndex(letter)] = 1), NamesDataset(Dataset) caching torch.tensor([...],
dtype=torch.long) labels and returning a 4-tuple, torch.utils.data.random_split(alldata,
[.85, .15], generator=torch.Generator(device=device).manual_seed(2024)) with fractional lengths,
CharRNN around nn.RNN whose hidden[0] feeds nn.Linear + nn.LogSoftmax(dim=1), the hand-made
minibatches np.array_split(batches, len(batches) // n_batch_size) summing per-example
nn.NLLLoss() into batch_loss, nn.utils.clip_grad_norm_(rnn.parameters(), 3), f"{x:.0%}",
output.topk(1) with top_i[0].item(), and the confusion matrix normalised row by row."""
import glob
import os
import random
import string
import time
import unicodedata

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset

# Check if CUDA is available
device = torch.device('cpu')
if torch.cuda.is_available():
    device = torch.device('cuda')

torch.set_default_device(device)
print(f"Using device = {torch.get_default_device()}")

# We can use "_" to represent an out-of-vocabulary character, that is, any character we are not handling in our model
allowed_characters = string.ascii_letters + " .,;'" + "_"
n_letters = len(allowed_characters)

# Turn a Unicode string to plain ASCII, thanks to https://stackoverflow.com/a/518232/2809427
def unicodeToAscii(s):
    return ''.join(
        c for c in unicodedata.normalize('NFD', s)
        if unicodedata.category(c) != 'Mn'
        and c in allowed_characters
    )

print (f"converting 'Ślusàrski' to {unicodeToAscii('Ślusàrski')}")

# Find letter index from all_letters, e.g. "a" = 0
def letterToIndex(letter):
    # return our out-of-vocabulary character if we encounter a letter unknown to our model
    if letter not in allowed_characters:
        return allowed_characters.find("_")
    else:
        return allowed_characters.find(letter)

# Turn a line into a <line_length x 1 x n_letters>,
# or an array of one-hot letter vectors
def lineToTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][letterToIndex(letter)] = 1
    return tensor

print (f"The letter 'a' becomes {lineToTensor('a')}") #notice that the first position in the tensor = 1
print (f"The name 'Ahn' becomes {lineToTensor('Ahn')}") #notice 'A' sets the 27th index to 1

# generated stand-in for data/names: four 'languages' with their own syllables
random.seed(0)
syllables = {'Aldish': ['al', 'dor', 'ven', 'ric'], 'Borvic': ['zk', 'ov', 'ski', 'vic'],
             'Cantrese': ['ai', 'ko', 'shi', 'to'], 'Dumoric': ['ou', 'eau', 'ier', 'mont']}
os.makedirs('data/names', exist_ok=True)
for lang, syl in syllables.items():
    names = [''.join(random.choice(syl) for _ in range(random.randint(2, 3))).capitalize()
             for _ in range(40)]
    with open(f'data/names/{lang}.txt', 'w', encoding='utf-8') as f:
        f.write('\n'.join(names) + '\n')

class NamesDataset(Dataset):

    def __init__(self, data_dir):
        self.data_dir = data_dir #for provenance of the dataset
        self.load_time = time.localtime #for provenance of the dataset
        labels_set = set() #set of all classes

        self.data = []
        self.data_tensors = []
        self.labels = []
        self.labels_tensors = []

        #read all the ``.txt`` files in the specified directory
        text_files = sorted(glob.glob(os.path.join(data_dir, '*.txt')))
        for filename in text_files:
            label = os.path.splitext(os.path.basename(filename))[0]
            labels_set.add(label)
            lines = open(filename, encoding='utf-8').read().strip().split('\n')
            for name in lines:
                self.data.append(name)
                self.data_tensors.append(lineToTensor(name))
                self.labels.append(label)

        #Cache the tensor representation of the labels
        self.labels_uniq = sorted(labels_set)
        for idx in range(len(self.labels)):
            temp_tensor = torch.tensor([self.labels_uniq.index(self.labels[idx])], dtype=torch.long)
            self.labels_tensors.append(temp_tensor)

    def __len__(self):
        return len(self.data)

    def __getitem__(self, idx):
        data_item = self.data[idx]
        data_label = self.labels[idx]
        data_tensor = self.data_tensors[idx]
        label_tensor = self.labels_tensors[idx]

        return label_tensor, data_tensor, data_label, data_item

alldata = NamesDataset("data/names")
print(f"loaded {len(alldata)} items of data")
print(f"example = {alldata[0]}")

train_set, test_set = torch.utils.data.random_split(alldata, [.85, .15], generator=torch.Generator(device=device).manual_seed(2024))

print(f"train examples = {len(train_set)}, validation examples = {len(test_set)}")
assert len(train_set) + len(test_set) == len(alldata) == 160

class CharRNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(CharRNN, self).__init__()

        self.rnn = nn.RNN(input_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, line_tensor):
        rnn_out, hidden = self.rnn(line_tensor)
        output = self.h2o(hidden[0])
        output = self.softmax(output)

        return output

torch.manual_seed(0)
n_hidden = 32
rnn = CharRNN(n_letters, n_hidden, len(alldata.labels_uniq))
print(rnn)

def label_from_output(output, output_labels):
    top_n, top_i = output.topk(1)
    label_i = top_i[0].item()
    return output_labels[label_i], label_i

input = lineToTensor('Albert')
output = rnn(input) #this is equivalent to ``output = rnn.forward(input)``
print(output)
print(label_from_output(output, alldata.labels_uniq))

def train(rnn, training_data, n_epoch = 10, n_batch_size = 64, report_every = 50, learning_rate = 0.2, criterion = nn.NLLLoss()):
    """
    Learn on a batch of training_data for a specified number of iterations and reporting thresholds
    """
    # Keep track of losses for plotting
    current_loss = 0
    all_losses = []
    rnn.train()
    optimizer = torch.optim.SGD(rnn.parameters(), lr=learning_rate)

    start = time.time()
    print(f"training on data set with n = {len(training_data)}")

    for iter in range(1, n_epoch + 1):
        rnn.zero_grad() # clear the gradients

        # create some minibatches
        # we cannot use dataloaders because each of our names is a different length
        batches = list(range(len(training_data)))
        random.shuffle(batches)
        batches = np.array_split(batches, len(batches) //n_batch_size )

        for idx, batch in enumerate(batches):
            batch_loss = 0
            for i in batch: #for each example in this batch
                (label_tensor, text_tensor, label, text) = training_data[i]
                output = rnn.forward(text_tensor)
                loss = criterion(output, label_tensor)
                batch_loss += loss

            # optimize parameters
            batch_loss.backward()
            nn.utils.clip_grad_norm_(rnn.parameters(), 3)
            optimizer.step()
            optimizer.zero_grad()

            current_loss += batch_loss.item() / len(batch)

        all_losses.append(current_loss / len(batches) )
        if iter % report_every == 0:
            print(f"{iter} ({iter / n_epoch:.0%}): \t average batch loss = {all_losses[-1]:.6f}")
        current_loss = 0

    return all_losses

start = time.time()
all_losses = train(rnn, train_set, n_epoch=10, n_batch_size=32, learning_rate=0.15, report_every=2)
end = time.time()
print(f"training took {end-start > 0}")
assert all_losses[-1] < all_losses[0]

def evaluate(rnn, testing_data, classes):
    confusion = torch.zeros(len(classes), len(classes))

    rnn.eval() #set to eval mode
    with torch.no_grad(): # do not record the gradients during eval phase
        for i in range(len(testing_data)):
            (label_tensor, text_tensor, label, text) = testing_data[i]
            output = rnn(text_tensor)
            guess, guess_i = label_from_output(output, classes)
            label_i = classes.index(label)
            confusion[label_i][guess_i] += 1

    # Normalize by dividing every row by its sum
    for i in range(len(classes)):
        denom = confusion[i].sum()
        if denom > 0:
            confusion[i] = confusion[i] / denom

    return confusion

confusion = evaluate(rnn, test_set, classes=alldata.labels_uniq)
print(confusion)
assert confusion.shape == (4, 4) and torch.allclose(confusion.sum(1)[confusion.sum(1) > 0], torch.tensor(1.0))
torch.set_default_device('cpu')
