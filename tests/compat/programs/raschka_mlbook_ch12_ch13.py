"""Sebastian Raschka et al., "Machine Learning with PyTorch and Scikit-Learn", chapters 12-13:
creating tensors (torch.from_numpy, torch.tensor, torch.ones, torch.rand), manipulating them
(t.to(torch.int64), torch.transpose, torch.reshape, torch.squeeze), math (torch.multiply,
torch.mean(t1, axis=0), torch.matmul(t1, torch.transpose(t2, 0, 1)), torch.linalg.norm(t1,
ord=2, dim=1)), torch.chunk / torch.split(split_size_or_sections=[3, 2]) / torch.cat / torch.stack
(axis=1), DataLoader(drop_last=True) over a list, a JointDataset(Dataset), TensorDataset, shuffled
epochs printed batch by batch, then the linear-regression and iris-classifier models of ch. 13:
weight = torch.randn(1) with requires_grad_(), loss_fn = nn.MSELoss(reduction='mean'),
torch.optim.SGD, the Model(nn.Module) with nn.Sigmoid / nn.Softmax(dim=1), accuracy_hist with
(torch.argmax(pred, dim=1) == y_batch).float(), torch.save(model, path) of a whole model
replaced by a state_dict save/load, and the XOR model built with nn.Sequential.add_module."""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, TensorDataset

np.set_printoptions(precision=3)
a = [1, 2, 3]
b = np.array([4, 5, 6], dtype=np.int32)
t_a = torch.tensor(a)
t_b = torch.from_numpy(b)
print(t_a)
print(t_b)
print(torch.is_tensor(a), torch.is_tensor(t_a))
t_ones = torch.ones(2, 3)
print(t_ones.shape)
print(t_ones)
rand_tensor = torch.rand(2, 3)
print(rand_tensor.shape)

t_a_new = t_a.to(torch.int64)
print(t_a_new.dtype)
t = torch.rand(3, 5)
t_tr = torch.transpose(t, 0, 1)
print(t.shape, ' --> ', t_tr.shape)
t = torch.zeros(30)
t_reshape = t.reshape(5, 6)
print(t_reshape.shape)
t = torch.zeros(1, 2, 1, 4, 1)
t_sqz = torch.squeeze(t, 2)
print(t.shape, ' --> ', t_sqz.shape)

torch.manual_seed(1)
t1 = 2 * torch.rand(5, 2) - 1
t2 = torch.normal(mean=0, std=1, size=(5, 2))
t3 = torch.multiply(t1, t2)
print(t3)
t4 = torch.mean(t1, axis=0)
print(t4)
t5 = torch.matmul(t1, torch.transpose(t2, 0, 1))
print(t5)
t6 = torch.matmul(torch.transpose(t1, 0, 1), t2)
print(t6)
norm_t1 = torch.linalg.norm(t1, ord=2, dim=1)
print(norm_t1)
print(np.sqrt(np.sum(np.square(t1.numpy()), axis=1)))
assert np.allclose(norm_t1.numpy(), np.sqrt(np.sum(np.square(t1.numpy()), axis=1)))

torch.manual_seed(1)
t = torch.rand(6)
print(t)
t_splits = torch.chunk(t, 3)
print([item.numpy() for item in t_splits])
torch.manual_seed(1)
t = torch.rand(5)
print(t)
t_splits = torch.split(t, split_size_or_sections=[3, 2])
print([item.numpy() for item in t_splits])
A = torch.ones(3)
B = torch.zeros(2)
C = torch.cat([A, B], axis=0)
print(C)
A = torch.ones(3)
B = torch.zeros(3)
S = torch.stack([A, B], axis=1)
print(S)
assert S.shape == (3, 2)

t = torch.arange(6, dtype=torch.float32)
data_loader = DataLoader(t)
for item in data_loader:
    print(item)
data_loader = DataLoader(t, batch_size=3, drop_last=False)
for i, batch in enumerate(data_loader, 1):
    print(f'batch {i}:', batch)

torch.manual_seed(1)
t_x = torch.rand([4, 3], dtype=torch.float32)
t_y = torch.arange(4)


class JointDataset(Dataset):
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __len__(self):
        return len(self.x)

    def __getitem__(self, idx):
        return self.x[idx], self.y[idx]


joint_dataset = JointDataset(t_x, t_y)
joint_dataset = TensorDataset(t_x, t_y)
for example in joint_dataset:
    print('  x: ', example[0], '  y: ', example[1])
torch.manual_seed(1)
data_loader = DataLoader(dataset=joint_dataset, batch_size=2, shuffle=True)
for i, batch in enumerate(data_loader, 1):
    print(f'batch {i}:', 'x:', batch[0], '\n         y:', batch[1])
for epoch in range(2):
    print(f'epoch {epoch+1}')
    for i, batch in enumerate(data_loader, 1):
        print(f'batch {i}:', 'x:', batch[0], '\n         y:', batch[1])

# chapter 13: linear regression from scratch and with nn
X_train = np.arange(10, dtype='float32').reshape((10, 1))
y_train = np.array([1.0, 1.3, 3.1, 2.0, 5.0, 6.3, 6.6, 7.4, 8.0, 9.0], dtype='float32')
X_train_norm = (X_train - np.mean(X_train)) / np.std(X_train)
X_train_norm = torch.from_numpy(X_train_norm)
y_train = torch.from_numpy(y_train).float()
train_ds = TensorDataset(X_train_norm, y_train)
batch_size = 1
train_dl = DataLoader(train_ds, batch_size, shuffle=True)
torch.manual_seed(1)
weight = torch.randn(1)
weight.requires_grad_()
bias = torch.zeros(1, requires_grad=True)


def loss_fn(input, target):
    return (input - target).pow(2).mean()


def model(xb):
    return xb @ weight + bias


learning_rate = 0.001
num_epochs = 200
log_epochs = 50
for epoch in range(num_epochs):
    for x_batch, y_batch in train_dl:
        pred = model(x_batch)
        loss = loss_fn(pred, y_batch)
        loss.backward()
        with torch.no_grad():
            weight -= weight.grad * learning_rate
            bias -= bias.grad * learning_rate
            weight.grad.zero_()
            bias.grad.zero_()
    if epoch % log_epochs == 0:
        print(f'Epoch {epoch}  Loss {loss.item():.4f}')
print('Final Parameters:', weight.item(), bias.item())
X_test = np.linspace(0, 9, num=100, dtype='float32').reshape(-1, 1)
X_test_norm = (X_test - np.mean(X_train)) / np.std(X_train)
X_test_norm = torch.from_numpy(X_test_norm)
y_pred = model(X_test_norm).detach().numpy()
print(y_pred.shape, y_pred.dtype)

loss_fn = nn.MSELoss(reduction='mean')
input_size = 1
output_size = 1
model = nn.Linear(input_size, output_size)
optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)
for epoch in range(num_epochs):
    for x_batch, y_batch in train_dl:
        # 1. Generate predictions
        pred = model(x_batch)[:, 0]
        # 2. Calculate loss
        loss = loss_fn(pred, y_batch)
        # 3. Compute gradients
        loss.backward()
        # 4. Update parameters using gradients
        optimizer.step()
        # 5. Reset the gradients to zero
        optimizer.zero_grad()
    if epoch % log_epochs == 0:
        print(f'Epoch {epoch}  Loss {loss.item():.4f}')
print('Final Parameters:', model.weight.item(), model.bias.item())
assert abs(model.weight.item() - 2.6) < 0.5

# an iris-like classifier
rs = np.random.RandomState(1)
centers = np.array([[5.0, 3.4, 1.5, 0.2], [5.9, 2.8, 4.3, 1.3], [6.6, 3.0, 5.5, 2.0]])
y = np.repeat(np.arange(3), 50)
X = centers[y] + 0.3 * rs.randn(150, 4)
perm = rs.permutation(150)
X_train, y_train = X[perm[:100]], y[perm[:100]]
X_test, y_test = X[perm[100:]], y[perm[100:]]
X_train_norm = (X_train - np.mean(X_train)) / np.std(X_train)
X_train_norm = torch.from_numpy(X_train_norm).float()
y_train = torch.from_numpy(y_train)
train_ds = TensorDataset(X_train_norm, y_train)
torch.manual_seed(1)
batch_size = 2
train_dl = DataLoader(train_ds, batch_size, shuffle=True)


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.layer1 = nn.Linear(input_size, hidden_size)
        self.layer2 = nn.Linear(hidden_size, output_size)

    def forward(self, x):
        x = self.layer1(x)
        x = nn.Sigmoid()(x)
        x = self.layer2(x)
        x = nn.Softmax(dim=1)(x)
        return x


input_size = X_train_norm.shape[1]
hidden_size = 16
output_size = 3
model = Model(input_size, hidden_size, output_size)
learning_rate = 0.001
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
num_epochs = 40
loss_hist = [0] * num_epochs
accuracy_hist = [0] * num_epochs
for epoch in range(num_epochs):
    for x_batch, y_batch in train_dl:
        pred = model(x_batch)
        loss = loss_fn(pred, y_batch.long())
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        loss_hist[epoch] += loss.item() * y_batch.size(0)
        is_correct = (torch.argmax(pred, dim=1) == y_batch).float()
        accuracy_hist[epoch] += is_correct.sum()
    loss_hist[epoch] /= len(train_dl.dataset)
    accuracy_hist[epoch] /= len(train_dl.dataset)
print(type(accuracy_hist[-1]), accuracy_hist[-1])
print(np.asarray(accuracy_hist[-1]), float(accuracy_hist[-1]))
X_test_norm = (X_test - np.mean(X_train)) / np.std(X_train)
X_test_norm = torch.from_numpy(X_test_norm).float()
y_test = torch.from_numpy(y_test)
pred_test = model(X_test_norm)
correct = (torch.argmax(pred_test, dim=1) == y_test).float()
accuracy = correct.mean()
print(f'Test Acc.: {accuracy:.4f}')
assert accuracy > 0.8
path = 'iris_classifier_state.pt'
torch.save(model.state_dict(), path)
model_new = Model(input_size, hidden_size, output_size)
model_new.load_state_dict(torch.load(path))
assert torch.equal(model_new(X_test_norm), pred_test)

# XOR with add_module
torch.manual_seed(1)
np.random.seed(1)
x = np.random.uniform(low=-1, high=1, size=(200, 2))
y = np.ones(len(x))
y[x[:, 0] * x[:, 1] < 0] = 0
x_train = torch.tensor(x[:100, :], dtype=torch.float32)
y_train = torch.tensor(y[:100], dtype=torch.float32)
model = nn.Sequential()
model.add_module('fc1', nn.Linear(2, 4))
model.add_module('relu1', nn.ReLU())
model.add_module('fc2', nn.Linear(4, 4))
model.add_module('relu2', nn.ReLU())
model.add_module('fc3', nn.Linear(4, 1))
model.add_module('sigmoid', nn.Sigmoid())
print(model)
nn.init.xavier_uniform_(model.fc1.weight)
l1_weight = 0.01
l1_penalty = l1_weight * model.fc1.weight.abs().sum()
print(l1_penalty)
loss_fn = nn.BCELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.015)
train_dl = DataLoader(TensorDataset(x_train, y_train), batch_size=2, shuffle=True)
for epoch in range(20):
    for x_batch, y_batch in train_dl:
        pred = model(x_batch)[:, 0]
        loss = loss_fn(pred, y_batch)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
print(f"{loss.item():.4f}", model.fc3.weight.shape)
