"""deeplearningzerotoall/PyTorch, lab-03 to lab-07 (minimizing cost, load data, logistic and
softmax classification, tips): a hand gradient with `W = 0; W -= lr * gradient` turning W into
a tensor, optim.SGD([W], lr), csv files read with np.loadtxt into FloatTensor/LongTensor
(written here first, with synthetic numbers), hypothesis by matmul, BCE by hand vs
F.binary_cross_entropy, `hypothesis >= torch.FloatTensor([0.5])`, scatter_ one-hot and
scatter, low- vs high-level softmax cross-entropy, SoftmaxClassifierModel train/test with
`prediction.max(1)[1]`, a diverging lr=1e5 run printing nan, normalisation with mean/std over
dim 0, and l2_reg from torch.norm of every parameter added to the cost."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(1)
x_train = torch.FloatTensor([[1], [2], [3]])
y_train = torch.FloatTensor([[1], [2], [3]])
W_l = np.linspace(-5, 7, 7)
cost_l = []
for W in W_l:
    hypothesis = W * x_train
    cost = torch.mean((hypothesis - y_train) ** 2)
    cost_l.append(cost.item())
print([round(c, 4) for c in cost_l], type(W * x_train).__name__, (W * x_train).dtype)
W = 0
gradient = torch.sum((W * x_train - y_train) * x_train)
print(gradient)
lr = 0.1
W -= lr * gradient
print(W)
W = torch.zeros(1)
nb_epochs = 10
for epoch in range(nb_epochs + 1):
    hypothesis = x_train * W
    cost = torch.mean((hypothesis - y_train) ** 2)
    gradient = torch.sum((W * x_train - y_train) * x_train)
    print('Epoch {:4d}/{} W: {:.3f}, Cost: {:.6f}'.format(epoch, nb_epochs, W.item(), cost.item()))
    W -= lr * gradient
W = torch.zeros(1, requires_grad=True)
optimizer = optim.SGD([W], lr=0.15)
for epoch in range(nb_epochs + 1):
    hypothesis = x_train * W
    cost = torch.mean((hypothesis - y_train) ** 2)
    print('Epoch {:4d}/{} W: {:.3f} Cost: {:.6f}'.format(epoch, nb_epochs, W.item(), cost.item()))
    optimizer.zero_grad()
    cost.backward()
    optimizer.step()

rng = np.random.default_rng(7)
scores = rng.uniform(60, 100, (25, 3)).round()
np.savetxt('data-01-test-score.csv', np.c_[scores, scores @ [0.5, 0.6, 0.9] + rng.normal(0, 3, 25)],
           delimiter=',', fmt='%.2f')
xy = np.loadtxt('data-01-test-score.csv', delimiter=',', dtype=np.float32)
x_data = xy[:, 0:-1]
y_data = xy[:, [-1]]
print(x_data.shape, len(x_data), y_data.shape, y_data[:2])
x_train = torch.FloatTensor(x_data)
y_train = torch.FloatTensor(y_data)
W = torch.zeros((3, 1), requires_grad=True)
b = torch.zeros(1, requires_grad=True)
optimizer = optim.SGD([W, b], lr=1e-5)
for epoch in range(21):
    hypothesis = x_train.matmul(W) + b
    cost = torch.mean((hypothesis - y_train) ** 2)
    optimizer.zero_grad()
    cost.backward()
    optimizer.step()
    if epoch % 5 == 0:
        print('Epoch {:4d}/{} Cost: {:.6f}'.format(epoch, 20, cost.item()))


class MultivariateLinearRegressionModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(3, 1)

    def forward(self, x):
        return self.linear(x)


model = MultivariateLinearRegressionModel()
optimizer = optim.SGD(model.parameters(), lr=1e-5)
for epoch in range(21):
    prediction = model(x_train)
    cost = F.mse_loss(prediction, y_train)
    optimizer.zero_grad()
    cost.backward()
    optimizer.step()
    if epoch % 5 == 0:
        print('Epoch {:4d}/{} Cost: {:.6f}'.format(epoch, 20, cost.item()))

x_data = [[1, 2], [2, 3], [3, 1], [4, 3], [5, 3], [6, 2]]
y_data = [[0], [0], [0], [1], [1], [1]]
x_train = torch.FloatTensor(x_data)
y_train = torch.FloatTensor(y_data)
print('e^1 equals: ', torch.exp(torch.FloatTensor([1])))
W = torch.zeros((2, 1), requires_grad=True)
b = torch.zeros(1, requires_grad=True)
hypothesis = 1 / (1 + torch.exp(-(x_train.matmul(W) + b)))
print(hypothesis.detach())
print('1/(1+e^{-1}) equals: ', torch.sigmoid(torch.FloatTensor([1])))
hypothesis = torch.sigmoid(x_train.matmul(W) + b)
print(hypothesis.shape)
print(-(y_train[0] * torch.log(hypothesis[0]) + (1 - y_train[0]) * torch.log(1 - hypothesis[0])))
losses = -(y_train * torch.log(hypothesis) + (1 - y_train) * torch.log(1 - hypothesis))
print(losses)
cost = losses.mean()
print(cost)
print(F.binary_cross_entropy(hypothesis, y_train).item())
optimizer = optim.SGD([W, b], lr=1)
for epoch in range(1001):
    hypothesis = torch.sigmoid(x_train.matmul(W) + b)
    cost = -(y_train * torch.log(hypothesis) + (1 - y_train) * torch.log(1 - hypothesis)).mean()
    optimizer.zero_grad()
    cost.backward()
    optimizer.step()
    if epoch % 200 == 0:
        print('Epoch {:4d}/{} Cost: {:.6f}'.format(epoch, 1000, cost.item()))
feats = rng.uniform(-1, 1, (60, 8))
np.savetxt('data-03-diabetes.csv', np.c_[feats, (feats[:, :3].sum(1) > 0)], delimiter=',',
           fmt='%.4f')
xy = np.loadtxt('data-03-diabetes.csv', delimiter=',', dtype=np.float32)
x_train = torch.FloatTensor(xy[:, 0:-1])
y_train = torch.FloatTensor(xy[:, [-1]])
print(x_train[0:2])
print(y_train[0:5])


class BinaryClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(8, 1)
        self.sigmoid = nn.Sigmoid()

    def forward(self, x):
        return self.sigmoid(self.linear(x))


model = BinaryClassifier()
optimizer = optim.SGD(model.parameters(), lr=1)
for epoch in range(101):
    hypothesis = model(x_train)
    cost = F.binary_cross_entropy(hypothesis, y_train)
    optimizer.zero_grad()
    cost.backward()
    optimizer.step()
    if epoch % 20 == 0:
        prediction = hypothesis >= torch.FloatTensor([0.5])
        correct_prediction = prediction.float() == y_train
        accuracy = correct_prediction.sum().item() / len(correct_prediction)
        print('Epoch {:4d}/{} Cost: {:.6f} Accuracy {:2.2f}%'.format(
            epoch, 100, cost.item(), accuracy * 100,))
print(prediction[:5], correct_prediction[:5])

z = torch.rand(3, 5, requires_grad=True)
hypothesis = F.softmax(z, dim=1)
print(hypothesis)
y = torch.randint(5, (3,)).long()
print(y)
y_one_hot = torch.zeros_like(hypothesis)
print(y_one_hot.scatter_(1, y.unsqueeze(1), 1))
print(torch.log(F.softmax(z, dim=1)))
print(F.log_softmax(z, dim=1))
print((y_one_hot * -torch.log(F.softmax(z, dim=1))).sum(dim=1).mean())
print(F.nll_loss(F.log_softmax(z, dim=1), y.long()))
print(F.cross_entropy(z, y))
animals = rng.uniform(0, 1, (50, 16)).round()
np.savetxt('data-04-zoo.csv', np.c_[animals, animals[:, :7].argmax(1)], delimiter=',', fmt='%d')
xy = np.loadtxt('data-04-zoo.csv', delimiter=',', dtype=np.float32)
x_train = torch.FloatTensor(xy[:, 0:-1])
y_train = torch.LongTensor(xy[:, [-1]]).squeeze()
print(x_train.shape, len(x_train), y_train.shape, y_train[:5])
nb_classes = 7
y_one_hot = torch.zeros((len(y_train), nb_classes))
y_one_hot = y_one_hot.scatter(1, y_train.unsqueeze(1), 1)
print(y_one_hot.shape, y_one_hot.sum(0))
W = torch.zeros((16, 7), requires_grad=True)
b = torch.zeros(1, requires_grad=True)
optimizer = optim.SGD([W, b], lr=0.1)
for epoch in range(1001):
    z = x_train.matmul(W) + b
    cost = F.cross_entropy(z, y_train)
    optimizer.zero_grad()
    cost.backward()
    optimizer.step()
    if epoch % 250 == 0:
        print('Epoch {:4d}/{} Cost: {:.6f}'.format(epoch, 1000, cost.item()))

x_train = torch.FloatTensor([[1, 2, 1], [1, 3, 2], [1, 3, 4], [1, 5, 5], [1, 7, 5], [1, 2, 5],
                             [1, 6, 6], [1, 7, 7]])
y_train = torch.LongTensor([2, 2, 2, 1, 1, 1, 0, 0])
x_test = torch.FloatTensor([[2, 1, 1], [3, 1, 2], [3, 3, 4]])
y_test = torch.LongTensor([2, 2, 2])


class SoftmaxClassifierModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(3, 3)

    def forward(self, x):
        return self.linear(x)


def train(model, optimizer, x_train, y_train, loss=F.cross_entropy, nb_epochs=20):
    for epoch in range(nb_epochs):
        prediction = model(x_train)
        cost = loss(prediction, y_train)
        optimizer.zero_grad()
        cost.backward()
        optimizer.step()
        if epoch % 5 == 0:
            print('Epoch {:4d}/{} Cost: {:.6f}'.format(epoch, nb_epochs, cost.item()))


def test(model, optimizer, x_test, y_test):
    prediction = model(x_test)
    predicted_classes = prediction.max(1)[1]
    correct_count = (predicted_classes == y_test).sum().item()
    cost = F.cross_entropy(prediction, y_test)
    print('Accuracy: {}% Cost: {:.6f}'.format(correct_count / len(y_test) * 100, cost.item()))


for lr in (0.1, 1e5, 1e-10):
    model = SoftmaxClassifierModel()
    optimizer = optim.SGD(model.parameters(), lr=lr)
    train(model, optimizer, x_train, y_train)
    test(model, optimizer, x_test, y_test)
print(model.linear.weight.isnan().any())

x_train = torch.FloatTensor([[73, 80, 75], [93, 88, 93], [89, 91, 90], [96, 98, 100], [73, 66, 70]])
y_train = torch.FloatTensor([[152], [185], [180], [196], [142]])
mu = x_train.mean(dim=0)
sigma = x_train.std(dim=0)
norm_x_train = (x_train - mu) / sigma
print(norm_x_train)
model = MultivariateLinearRegressionModel()
optimizer = optim.SGD(model.parameters(), lr=1e-1)
train(model, optimizer, norm_x_train, y_train, F.mse_loss)


def train_with_regularization(model, optimizer, x_train, y_train):
    nb_epochs = 20
    for epoch in range(nb_epochs):
        prediction = model(x_train)
        cost = F.mse_loss(prediction, y_train)
        l2_reg = 0
        for param in model.parameters():
            l2_reg += torch.norm(param)
        cost += l2_reg
        optimizer.zero_grad()
        cost.backward()
        optimizer.step()
        if epoch % 5 == 0:
            print('Epoch {:4d}/{} Cost: {:.6f}'.format(epoch + 1, nb_epochs, cost.item()))
    return cost


model = MultivariateLinearRegressionModel()
optimizer = optim.SGD(model.parameters(), lr=1e-1)
final = train_with_regularization(model, optimizer, norm_x_train, y_train)
print(final.grad_fn is not None)
assert final.item() < 2000
