"""A custom autograd Function for a straight-through estimator (binarize forward, pass gradients
through where |x| <= 1), with ctx.save_for_backward and a module using it."""
import torch
import torch.nn as nn


class BinarizeSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return torch.where(input >= 0, torch.ones_like(input), -torch.ones_like(input))

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input.abs() > 1] = 0
        return grad_input


class BinaryLinear(nn.Linear):
    def forward(self, x):
        return nn.functional.linear(x, BinarizeSTE.apply(self.weight), self.bias)


x = torch.tensor([-2.0, -0.5, 0.0, 0.7, 3.0], requires_grad=True)
y = BinarizeSTE.apply(x)
assert y.tolist() == [-1, -1, 1, 1, 1]
(y * torch.arange(5.)).sum().backward()
assert x.grad.tolist() == [0, 1, 2, 3, 0]

torch.manual_seed(0)
layer = BinaryLinear(4, 1)
inputs = torch.randn(32, 4)
targets = inputs @ torch.tensor([[1.], [-1.], [1.], [1.]])
opt = torch.optim.SGD(layer.parameters(), lr=0.01)
losses = []
for _ in range(50):
    opt.zero_grad()
    loss = ((layer(inputs) - targets) ** 2).mean()
    loss.backward()
    opt.step()
    losses.append(loss.item())
assert layer.weight.grad is not None and losses[-1] <= losses[0]
