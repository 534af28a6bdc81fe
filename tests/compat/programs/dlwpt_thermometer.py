""""Deep Learning with PyTorch" (Stevens, Antiga, Viehmann), chapters 5-6: the thermometer
example. t_c / t_u as torch.tensor lists, model(t_u, w, b) and loss_fn by hand, analytic
gradients (dloss_fn, grad_fn) and the training_loop with params printed per epoch, then autograd:
params = torch.tensor([1.0, 0.0], requires_grad=True), params.grad.zero_() / `if params.grad is
not None`, `with torch.no_grad(): params -= learning_rate * params.grad`, optim.SGD and
optim.Adam, a train/validation split with torch.randperm, `with torch.set_grad_enabled(is_train)`,
then nn.Linear(1, 1) on unsqueeze(1) inputs, nn.MSELoss, nn.Sequential(OrderedDict([...]))
with named access (seq_model.output_linear.bias), named_parameters, and t_range =
torch.arange(20., 90.).unsqueeze(1) predictions as a plot would take them."""
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.optim as optim

torch.set_printoptions(edgeitems=2, linewidth=75)
t_c = [0.5, 14.0, 15.0, 28.0, 11.0, 8.0, 3.0, -4.0, 6.0, 13.0, 21.0]
t_u = [35.7, 55.9, 58.2, 81.9, 56.3, 48.9, 33.9, 21.8, 48.4, 60.4, 68.4]
t_c = torch.tensor(t_c)
t_u = torch.tensor(t_u)


def model(t_u, w, b):
    return w * t_u + b


def loss_fn(t_p, t_c):
    squared_diffs = (t_p - t_c) ** 2
    return squared_diffs.mean()


w = torch.ones(())
b = torch.zeros(())
t_p = model(t_u, w, b)
print(t_p)
loss = loss_fn(t_p, t_c)
print(loss)

delta = 0.1
loss_rate_of_change_w = (loss_fn(model(t_u, w + delta, b), t_c) -
                         loss_fn(model(t_u, w - delta, b), t_c)) / (2.0 * delta)
learning_rate = 1e-2
w = w - learning_rate * loss_rate_of_change_w
print(w)


def dloss_fn(t_p, t_c):
    dsq_diffs = 2 * (t_p - t_c) / t_p.size(0)  # <1>
    return dsq_diffs


def dmodel_dw(t_u, w, b):
    return t_u


def dmodel_db(t_u, w, b):
    return 1.0


def grad_fn(t_u, t_c, t_p, w, b):
    dloss_dtp = dloss_fn(t_p, t_c)
    dloss_dw = dloss_dtp * dmodel_dw(t_u, w, b)
    dloss_db = dloss_dtp * dmodel_db(t_u, w, b)
    return torch.stack([dloss_dw.sum(), dloss_db.sum()])  # <1>


def training_loop(n_epochs, learning_rate, params, t_u, t_c, print_params=True):
    for epoch in range(1, n_epochs + 1):
        w, b = params
        t_p = model(t_u, w, b)  # <1>
        loss = loss_fn(t_p, t_c)
        grad = grad_fn(t_u, t_c, t_p, w, b)  # <2>
        params = params - learning_rate * grad
        if epoch in {1, 2, 3, 10, 11, 99, 100, 4000, 5000}:  # <3>
            print('Epoch %d, Loss %f' % (epoch, float(loss)))
            if print_params:
                print('    Params:', params)
                print('    Grad:  ', grad)
        if epoch in {4, 12, 101}:
            print('...')
        if not torch.isfinite(loss).all():
            break  # <3>
    return params


params = training_loop(n_epochs=100, learning_rate=1e-4, params=torch.tensor([1.0, 0.0]),
                       t_u=t_u, t_c=t_c)
t_un = 0.1 * t_u
params = training_loop(n_epochs=5000, learning_rate=1e-2, params=torch.tensor([1.0, 0.0]),
                       t_u=t_un, t_c=t_c, print_params=False)
print(params)
assert abs(params[0].item() - 5.367) < 0.01 and abs(params[1].item() + 17.30) < 0.05

# autograd
params = torch.tensor([1.0, 0.0], requires_grad=True)
print(params.grad is None)
loss = loss_fn(model(t_u, *params), t_c)
loss.backward()
print(params.grad)
if params.grad is not None:
    params.grad.zero_()


def training_loop(n_epochs, learning_rate, params, t_u, t_c):
    for epoch in range(1, n_epochs + 1):
        if params.grad is not None:  # <1>
            params.grad.zero_()
        t_p = model(t_u, *params)
        loss = loss_fn(t_p, t_c)
        loss.backward()
        with torch.no_grad():  # <2>
            params -= learning_rate * params.grad
        if epoch % 500 == 0:
            print('Epoch %d, Loss %f' % (epoch, float(loss)))
    return params


out = training_loop(n_epochs=5000, learning_rate=1e-2,
                    params=torch.tensor([1.0, 0.0], requires_grad=True), t_u=t_un, t_c=t_c)
print(out)
assert out.requires_grad and out.is_leaf

print(dir(optim)[:3] if False else [n for n in ("SGD", "Adam", "RMSprop") if hasattr(optim, n)])
params = torch.tensor([1.0, 0.0], requires_grad=True)
optimizer = optim.Adam([params], lr=1e-1)
for epoch in range(1, 2001):
    t_p = model(t_u, *params)
    loss = loss_fn(t_p, t_c)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(params)

n_samples = t_u.shape[0]
n_val = int(0.2 * n_samples)
torch.manual_seed(1)
shuffled_indices = torch.randperm(n_samples)
train_indices = shuffled_indices[:-n_val]
val_indices = shuffled_indices[-n_val:]
print(train_indices, val_indices)
train_t_u, train_t_c = t_u[train_indices], t_c[train_indices]
val_t_u, val_t_c = t_u[val_indices], t_c[val_indices]
train_t_un = 0.1 * train_t_u
val_t_un = 0.1 * val_t_u


def calc_forward(t_u, t_c, is_train):
    with torch.set_grad_enabled(is_train):
        t_p = model(t_u, *params)
        loss = loss_fn(t_p, t_c)
    return loss


params = torch.tensor([1.0, 0.0], requires_grad=True)
optimizer = optim.SGD([params], lr=1e-2)
for epoch in range(1, 3001):
    train_loss = calc_forward(train_t_un, train_t_c, True)
    val_loss = calc_forward(val_t_un, val_t_c, False)
    optimizer.zero_grad()
    train_loss.backward()
    optimizer.step()
    if epoch <= 3 or epoch % 1000 == 0:
        print(f"Epoch {epoch}, Training loss {train_loss.item():.4f}, Validation loss {val_loss.item():.4f}")
assert not val_loss.requires_grad and train_loss.requires_grad

# chapter 6
t_c = t_c.unsqueeze(1)  # <1>
t_u = t_u.unsqueeze(1)  # <1>
print(t_u.shape)
train_t_un = 0.1 * t_u[train_indices]
train_t_c = t_c[train_indices]
val_t_un = 0.1 * t_u[val_indices]
val_t_c = t_c[val_indices]
linear_model = nn.Linear(1, 1)  # <1>
print(linear_model(val_t_un))
print(linear_model.weight)
print(linear_model.bias)
x = torch.ones(10, 1)
print(linear_model(x))
print(list(linear_model.parameters()))


def training_loop(n_epochs, optimizer, model, loss_fn, t_u_train, t_u_val, t_c_train, t_c_val):
    for epoch in range(1, n_epochs + 1):
        t_p_train = model(t_u_train)  # <1>
        loss_train = loss_fn(t_p_train, t_c_train)
        t_p_val = model(t_u_val)  # <1>
        loss_val = loss_fn(t_p_val, t_c_val)
        optimizer.zero_grad()
        loss_train.backward()  # <2>
        optimizer.step()
        if epoch == 1 or epoch % 1000 == 0:
            print(f"Epoch {epoch}, Training loss {loss_train.item():.4f},"
                  f" Validation loss {loss_val.item():.4f}")


linear_model = nn.Linear(1, 1)
optimizer = optim.SGD(linear_model.parameters(), lr=1e-2)
training_loop(n_epochs=3000, optimizer=optimizer, model=linear_model, loss_fn=nn.MSELoss(),
              t_u_train=train_t_un, t_u_val=val_t_un, t_c_train=train_t_c, t_c_val=val_t_c)
print()
print(linear_model.weight)
print(linear_model.bias)

seq_model = nn.Sequential(nn.Linear(1, 13), nn.Tanh(), nn.Linear(13, 1))
print(seq_model)
print([param.shape for param in seq_model.parameters()])
for name, param in seq_model.named_parameters():
    print(name, param.shape)
seq_model = nn.Sequential(OrderedDict([
    ('hidden_linear', nn.Linear(1, 8)),
    ('hidden_activation', nn.Tanh()),
    ('output_linear', nn.Linear(8, 1))
]))
print(seq_model)
for name, param in seq_model.named_parameters():
    print(name, param.shape)
print(seq_model.output_linear.bias)
optimizer = optim.SGD(seq_model.parameters(), lr=1e-3)
training_loop(n_epochs=5000, optimizer=optimizer, model=seq_model, loss_fn=nn.MSELoss(),
              t_u_train=train_t_un, t_u_val=val_t_un, t_c_train=train_t_c, t_c_val=val_t_c)
print('output', seq_model(val_t_un))
print('answer', val_t_c)
print('hidden', seq_model.hidden_linear.weight.grad)
t_range = torch.arange(20., 90.).unsqueeze(1)
curve = seq_model(0.1 * t_range).detach().numpy()
print(t_range.shape, curve.shape, curve.dtype)
assert curve.shape == (70, 1)
torch.set_printoptions(profile="default")
