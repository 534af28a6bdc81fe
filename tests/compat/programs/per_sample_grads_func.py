"""PyTorch tutorial "Per-sample-gradients" (torch.func): a small CNN, params/buffers dicts from
named_parameters()/named_buffers() with .detach(), functional_call(model, (params, buffers),
(batch,)), grad(compute_loss), vmap(ft_compute_grad, in_dims=(None, None, 0, 0)), compared with
the loop of per-sample .backward() calls via torch.allclose(atol=3e-3, rtol=1e-5); plus
torch.vmap on a plain function and torch.func.jacrev / hessian on a small function."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)


class SimpleCNN(nn.Module):
    def __init__(self):
        super(SimpleCNN, self).__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, 1)
        self.conv2 = nn.Conv2d(4, 8, 3, 1)
        self.fc1 = nn.Linear(8 * 2 * 2, 16)
        self.fc2 = nn.Linear(16, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def loss_fn(predictions, targets):
    return F.nll_loss(predictions, targets)


device = 'cpu'
num_models = 10
batch_size = 8
data = torch.randn(batch_size, 1, 8, 8, device=device)
targets = torch.randint(10, (batch_size,), device=device)
model = SimpleCNN().to(device=device)


def compute_grad(sample, target):
    sample = sample.unsqueeze(0)
    target = target.unsqueeze(0)
    prediction = model(sample)
    loss = loss_fn(prediction, target)
    return torch.autograd.grad(loss, list(model.parameters()))


def compute_sample_grads(data, targets):
    sample_grads = [compute_grad(data[i], targets[i]) for i in range(batch_size)]
    sample_grads = zip(*sample_grads)
    sample_grads = [torch.stack(shards) for shards in sample_grads]
    return sample_grads


per_sample_grads = compute_sample_grads(data, targets)
assert per_sample_grads[0].shape == (batch_size, 4, 1, 3, 3)

params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}


def compute_loss(params, buffers, sample, target):
    batch = sample.unsqueeze(0)
    targets = target.unsqueeze(0)
    predictions = functional_call(model, (params, buffers), (batch,))
    loss = loss_fn(predictions, targets)
    return loss


ft_compute_grad = grad(compute_loss)
ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)
for per_sample_grad, ft_per_sample_grad in zip(per_sample_grads, ft_per_sample_grads.values()):
    assert torch.allclose(per_sample_grad, ft_per_sample_grad, atol=3e-3, rtol=1e-5)
mean_grad = torch.stack([g.flatten(1) for g in ft_per_sample_grads.values()][:1]).mean(1)
loss = loss_fn(model(data), targets)
loss.backward()
assert torch.allclose(model.conv1.weight.grad.flatten(), mean_grad.flatten(), atol=1e-5)

x = torch.randn(5, 3)
batched_dot = torch.vmap(torch.dot)
assert torch.allclose(batched_dot(x, x), (x * x).sum(1))
f = lambda v: (v.sin() * v).sum()  # noqa: E731
jac = torch.func.jacrev(lambda v: v.sin() * v)(x[0])
assert torch.allclose(jac, torch.diag(x[0].cos() * x[0] + x[0].sin()), atol=1e-6)
hess = torch.func.hessian(f)(x[0])
assert hess.shape == (3, 3) and torch.allclose(hess, hess.T)
