"""Simon Prince's "Understanding Deep Learning" notebooks 8.1 (MNIST-1D performance) and 10.2
(1D convolution), on a synthetic MNIST-1D stand-in: nn.Sequential of Linear/ReLU, weights_init
applied with model.apply (nn.init.kaiming_uniform_, layer_in.bias.data.fill_(0.0)),
SGD(lr, momentum=0.9) with StepLR(step_size, gamma=0.5), TensorDataset + DataLoader(shuffle=True,
worker_init_fn=np.random.seed(1)), torch.tensor(data['x'].astype('float32')) and
.transpose().astype('long') targets, `_, predicted_train_class = torch.max(pred_train.data, 1)`,
errors stored into preallocated numpy arrays (errors_train[epoch] = 100 - 100 * (...).float()
.sum() / len(y_train), a 0-d tensor into np.zeros), and a Conv1d network on x.view(-1, 1, 40)
with nn.Flatten, as the notebooks build them."""
import numpy as np
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset

rs = np.random.RandomState(7)
templates = rs.randn(10, 40)
labels_all = rs.randint(0, 10, 1200)
shifts = rs.randint(-3, 4, 1200)
x_all = np.stack([np.roll(templates[c], s) for c, s in zip(labels_all, shifts)]) + 0.3 * rs.randn(1200, 40)
data = {'x': x_all[:1000], 'y': labels_all[:1000], 'x_test': x_all[1000:], 'y_test': labels_all[1000:]}
print("Examples in training set: {}".format(len(data['y'])))
print("Examples in test set: {}".format(len(data['y_test'])))
print("Length of each example: {}".format(data['x'].shape[-1]))

D_i = 40  # Input dimensions
D_k = 100  # Hidden dimensions
D_o = 10  # Output dimensions

torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(D_i, D_k),
    nn.ReLU(),
    nn.Linear(D_k, D_k),
    nn.ReLU(),
    nn.Linear(D_k, D_o))


# He initialization of weights
def weights_init(layer_in):
    if isinstance(layer_in, nn.Linear):
        nn.init.kaiming_uniform_(layer_in.weight)
        layer_in.bias.data.fill_(0.0)


model.apply(weights_init)
# choose cross entropy loss function (equation 5.24)
loss_function = torch.nn.CrossEntropyLoss()
# construct SGD optimizer and initialize learning rate and momentum
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
# object that decreases learning rate by half every 10 epochs
scheduler = StepLR(optimizer, step_size=10, gamma=0.5)
# create 100 dummy data points and store in data loader class
x_train = torch.tensor(data['x'].astype('float32'))
y_train = torch.tensor(data['y'].transpose().astype('long'))
x_test = torch.tensor(data['x_test'].astype('float32'))
y_test = torch.tensor(data['y_test'].astype('long'))

# load the data into a class that creates the batches
data_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=100, shuffle=True,
                         worker_init_fn=np.random.seed(1))

# Initialize model weights
model.apply(weights_init)

# loop over the dataset n_epoch times
n_epoch = 30
# store the loss and the % correct at each epoch
losses_train = np.zeros((n_epoch))
errors_train = np.zeros((n_epoch))
losses_test = np.zeros((n_epoch))
errors_test = np.zeros((n_epoch))

for epoch in range(n_epoch):
    # loop over batches
    for i, data_batch in enumerate(data_loader):
        # retrieve inputs and labels for this batch
        x_batch, y_batch = data_batch
        # zero the parameter gradients
        optimizer.zero_grad()
        # forward pass -- calculate model output
        pred = model(x_batch)
        # compute the loss
        loss = loss_function(pred, y_batch)
        # backward pass
        loss.backward()
        # SGD update
        optimizer.step()

    # Run whole dataset to get statistics -- normally wouldn't do this
    pred_train = model(x_train)
    pred_test = model(x_test)
    _, predicted_train_class = torch.max(pred_train.data, 1)
    _, predicted_test_class = torch.max(pred_test.data, 1)
    errors_train[epoch] = 100 - 100 * (predicted_train_class == y_train).float().sum() / len(y_train)
    errors_test[epoch] = 100 - 100 * (predicted_test_class == y_test).float().sum() / len(y_test)
    losses_train[epoch] = loss_function(pred_train, y_train).item()
    losses_test[epoch] = loss_function(pred_test, y_test).item()
    if epoch % 10 == 9:
        print(f'Epoch {epoch:5d}, train loss {losses_train[epoch]:.6f}, train error {errors_train[epoch]:3.2f},  test loss {losses_test[epoch]:.6f}, test error {errors_test[epoch]:3.2f}')

    # tell scheduler to consider updating learning rate
    scheduler.step()

print(errors_train.dtype, errors_test[-5:])
print(optimizer.param_groups[0]['lr'])
assert optimizer.param_groups[0]['lr'] == 0.05 * 0.5 ** 3
assert errors_test[-1] < 20 and losses_train[-1] < losses_train[0]


# notebook 10.2: a convolutional network on the same data
class Reshape(nn.Module):
    def forward(self, x):
        return x.view(-1, 1, 40)


torch.manual_seed(0)
conv_model = nn.Sequential(
    Reshape(),
    nn.Conv1d(1, 15, kernel_size=3, stride=2, padding=0),
    nn.ReLU(),
    nn.Conv1d(15, 15, kernel_size=3, stride=2, padding=0),
    nn.ReLU(),
    nn.Conv1d(15, 15, kernel_size=3, stride=2, padding=0),
    nn.ReLU(),
    nn.Flatten(),
    nn.Linear(60, 10))


def weights_init_conv(layer_in):
    if isinstance(layer_in, (nn.Linear, nn.Conv1d)):
        nn.init.kaiming_uniform_(layer_in.weight)
        layer_in.bias.data.fill_(0.0)


conv_model.apply(weights_init_conv)
print(conv_model)
out = conv_model(x_train[:3])
print(out.shape)
h = x_train[:2]
for layer in conv_model:
    h = layer(h)
    print(type(layer).__name__, tuple(h.shape))
optimizer = torch.optim.SGD(conv_model.parameters(), lr=0.05, momentum=0.9)
for epoch in range(8):
    for x_batch, y_batch in data_loader:
        optimizer.zero_grad()
        loss = loss_function(conv_model(x_batch), y_batch)
        loss.backward()
        optimizer.step()
with torch.no_grad():
    err = 100 - 100 * (conv_model(x_test).argmax(1) == y_test).float().mean()
print(f"conv test error {err:3.2f}")
assert float(err) < 30
