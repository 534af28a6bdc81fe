"""The fast.ai book, chapter 4 ("Under the Hood: Training a Digit Classifier") in raw torch, on
synthetic 28x28 "threes" and "sevens": torch.stack(list).float()/255, the mean image, L1 and
RMS distances ((a - b).abs().mean((-1, -2)), F.mse_loss(...).sqrt()), broadcasting a distance over
a whole stack, torch.cat(...).view(-1, 28*28) and tensor([1]*n + [0]*m).unsqueeze(1),
init_params(size, std=1.0) = (torch.randn(size)*std).requires_grad_(), mnist_loss with
torch.where(targets==1, 1-predictions, predictions).mean(), calc_grad / train_epoch with
p.data -= p.grad*lr; p.grad.zero_(), batch_accuracy, class BasicOptim, nn.Linear and a simple_net
nn.Sequential, and the f(x) = x**2 gradient example with xt.requires_grad_()."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(42)


def make_digit(kind, g):
    img = torch.zeros(28, 28, dtype=torch.uint8)
    if kind == 3:
        img[4:7, 8:20] = 255
        img[12:15, 10:20] = 255
        img[21:24, 8:20] = 255
        img[4:24, 18:21] = 255
    else:
        img[4:7, 6:22] = 255
        for r in range(7, 24):
            c = 21 - (r - 7) // 2
            img[r, c - 1:c + 2] = 255
    noise = torch.randint(0, 60, (28, 28), generator=g).to(torch.uint8)
    shift = int(torch.randint(-2, 3, (1,), generator=g))
    return torch.roll(img, shifts=shift, dims=1) // 2 + noise


g = torch.Generator().manual_seed(0)
three_tensors = [make_digit(3, g) for _ in range(60)]
seven_tensors = [make_digit(7, g) for _ in range(60)]
print(len(three_tensors), len(seven_tensors))
print(three_tensors[1].shape, three_tensors[1].dtype)
print(three_tensors[1][4:10, 4:10])

stacked_sevens = torch.stack(seven_tensors).float() / 255
stacked_threes = torch.stack(three_tensors).float() / 255
print(stacked_threes.shape)
print(len(stacked_threes.shape), stacked_threes.ndim)

mean3 = stacked_threes.mean(0)
mean7 = stacked_sevens.mean(0)
a_3 = stacked_threes[1]
dist_3_abs = (a_3 - mean3).abs().mean()
dist_3_sqr = ((a_3 - mean3) ** 2).mean().sqrt()
print(dist_3_abs, dist_3_sqr)
dist_7_abs = (a_3 - mean7).abs().mean()
dist_7_sqr = ((a_3 - mean7) ** 2).mean().sqrt()
print(dist_7_abs, dist_7_sqr)
print(F.l1_loss(a_3.float(), mean7), F.mse_loss(a_3, mean7).sqrt())
assert torch.allclose(F.l1_loss(a_3, mean7), dist_7_abs)

data = [[1, 2, 3], [4, 5, 6]]
arr = torch.tensor(data)
tns = torch.tensor(data)
print(tns[1])
print(tns[:, 1])
print(tns[1, 1:3])
print(tns + 1)
print(tns.type())
print(tns * 1.5)

valid_3_tens = torch.stack([make_digit(3, g) for _ in range(20)]).float() / 255
valid_7_tens = torch.stack([make_digit(7, g) for _ in range(20)]).float() / 255


def mnist_distance(a, b):
    return (a - b).abs().mean((-1, -2))


print(mnist_distance(a_3, mean3))
valid_3_dist = mnist_distance(valid_3_tens, mean3)
print(valid_3_dist, valid_3_dist.shape)
print(torch.tensor([1, 2, 3]) + torch.tensor(1))
print((valid_3_tens - mean3).shape)


def is_3(x):
    return mnist_distance(x, mean3) < mnist_distance(x, mean7)


print(is_3(a_3), is_3(a_3).float())
print(is_3(valid_3_tens))
accuracy_3s = is_3(valid_3_tens).float().mean()
accuracy_7s = (1 - is_3(valid_7_tens).float()).mean()
print(accuracy_3s, accuracy_7s, (accuracy_3s + accuracy_7s) / 2)
assert accuracy_3s > 0.9 and accuracy_7s > 0.9


def f(x):
    return x ** 2


xt = torch.tensor(3.).requires_grad_()
yt = f(xt)
print(yt)
yt.backward()
print(xt.grad)
xt = torch.tensor([3., 4., 10.]).requires_grad_()
print(xt)


def f(x):
    return (x ** 2).sum()


yt = f(xt)
print(yt)
yt.backward()
print(xt.grad)

train_x = torch.cat([stacked_threes, stacked_sevens]).view(-1, 28 * 28)
train_y = torch.tensor([1] * len(three_tensors) + [0] * len(seven_tensors)).unsqueeze(1)
print(train_x.shape, train_y.shape)
dset = list(zip(train_x, train_y))
x, y = dset[0]
print(x.shape, y)
valid_x = torch.cat([valid_3_tens, valid_7_tens]).view(-1, 28 * 28)
valid_y = torch.tensor([1] * len(valid_3_tens) + [0] * len(valid_7_tens)).unsqueeze(1)
valid_dset = list(zip(valid_x, valid_y))


def init_params(size, std=1.0):
    return (torch.randn(size) * std).requires_grad_()


weights = init_params((28 * 28, 1))
bias = init_params(1)
print((train_x[0] * weights.T).sum() + bias)


def linear1(xb):
    return xb @ weights + bias


preds = linear1(train_x)
print(preds)
corrects = (preds > 0.0).float() == train_y
print(corrects)
print(corrects.float().mean().item())

trgts = torch.tensor([1, 0, 1])
prds = torch.tensor([0.9, 0.4, 0.2])


def mnist_loss(predictions, targets):
    predictions = predictions.sigmoid()
    return torch.where(targets == 1, 1 - predictions, predictions).mean()


print(torch.where(trgts == 1, 1 - prds, prds))
print(mnist_loss(prds, trgts))
print(mnist_loss(torch.tensor([0.9, 0.4, 0.8]), trgts))


def make_batches(xs, ys, bs, shuffle):
    idx = torch.randperm(len(xs)) if shuffle else torch.arange(len(xs))
    return [(xs[idx[i:i + bs]], ys[idx[i:i + bs]]) for i in range(0, len(xs), bs)]


def calc_grad(xb, yb, model):
    preds = model(xb)
    loss = mnist_loss(preds, yb)
    loss.backward()


def train_epoch(model, lr, params):
    for xb, yb in make_batches(train_x, train_y, 32, True):
        calc_grad(xb, yb, model)
        for p in params:
            p.data -= p.grad * lr
            p.grad.zero_()


def batch_accuracy(xb, yb):
    preds = xb.sigmoid()
    correct = (preds > 0.5) == yb
    return correct.float().mean()


print(batch_accuracy(linear1(train_x[:4]), train_y[:4]))


def validate_epoch(model):
    accs = [batch_accuracy(model(xb), yb) for xb, yb in make_batches(valid_x, valid_y, 16, False)]
    return round(torch.stack(accs).mean().item(), 4)


lr = 1.
params = weights, bias
for i in range(10):
    train_epoch(linear1, lr, params)
    print(validate_epoch(linear1), end=' ')
print()
assert validate_epoch(linear1) > 0.9

linear_model = nn.Linear(28 * 28, 1)
w, b = linear_model.parameters()
print(w.shape, b.shape)


class BasicOptim:
    def __init__(self, params, lr):
        self.params, self.lr = list(params), lr

    def step(self, *args, **kwargs):
        for p in self.params:
            p.data -= p.grad.data * self.lr

    def zero_grad(self, *args, **kwargs):
        for p in self.params:
            p.grad = None


opt = BasicOptim(linear_model.parameters(), lr)


def train_epoch(model):
    for xb, yb in make_batches(train_x, train_y, 32, True):
        calc_grad(xb, yb, model)
        opt.step()
        opt.zero_grad()


def train_model(model, epochs):
    for i in range(epochs):
        train_epoch(model)
        print(validate_epoch(model), end=' ')
    print()


train_model(linear_model, 10)
simple_net = nn.Sequential(nn.Linear(28 * 28, 30), nn.ReLU(), nn.Linear(30, 1))
opt = torch.optim.SGD(simple_net.parameters(), lr=0.1)
train_model(simple_net, 10)
print(simple_net)
assert validate_epoch(simple_net) > 0.9
