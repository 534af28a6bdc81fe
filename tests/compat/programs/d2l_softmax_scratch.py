"""d2l's softmax regression from scratch: softmax via exp and sum(1, keepdim=True), cross-entropy
via y_hat[range(len(y_hat)), y], accuracy via argmax(axis=1) and y_hat.type(y.dtype) == y."""
import torch

torch.manual_seed(0)
num_inputs, num_outputs = 20, 4
W = torch.normal(0, 0.01, size=(num_inputs, num_outputs), requires_grad=True)
b = torch.zeros(num_outputs, requires_grad=True)
centers = torch.randn(num_outputs, num_inputs) * 2
y_all = torch.randint(0, num_outputs, (300,))
X_all = centers[y_all] + torch.randn(300, num_inputs)


def softmax(X):
    X_exp = torch.exp(X)
    partition = X_exp.sum(1, keepdim=True)
    return X_exp / partition


def net(X):
    return softmax(torch.matmul(X.reshape((-1, W.shape[0])), W) + b)


def cross_entropy(y_hat, y):
    return - torch.log(y_hat[range(len(y_hat)), y])


def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


X = torch.normal(0, 1, (2, 5))
X_prob = softmax(X)
assert torch.allclose(X_prob.sum(1), torch.ones(2))
y = torch.tensor([0, 2])
y_hat = torch.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
assert torch.allclose(y_hat[[0, 1], y], torch.tensor([0.1, 0.5]))
assert accuracy(y_hat, y) / len(y) == 0.5

lr = 0.1
for epoch in range(30):
    for i in range(0, 300, 50):
        l = cross_entropy(net(X_all[i:i + 50]), y_all[i:i + 50])
        l.mean().backward()
        with torch.no_grad():
            for param in (W, b):
                param -= lr * param.grad
                param.grad.zero_()
acc = accuracy(net(X_all), y_all) / len(y_all)
print("train accuracy", acc)
assert acc > 0.9
