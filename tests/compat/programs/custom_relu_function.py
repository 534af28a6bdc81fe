"""'Defining new autograd functions': MyReLU with ctx.save_for_backward and grad_input[input < 0] = 0,
used in a two-layer net trained by hand; its gradients match the built-in clamp(min=0)."""
import torch


class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input < 0] = 0
        return grad_input


dtype = torch.float
torch.manual_seed(0)
N, D_in, H, D_out = 16, 30, 20, 4
x = torch.randn(N, D_in, dtype=dtype)
y = torch.randn(N, D_out, dtype=dtype)
w1 = torch.randn(D_in, H, dtype=dtype, requires_grad=True)
w2 = torch.randn(H, D_out, dtype=dtype, requires_grad=True)

relu = MyReLU.apply
loss = (relu(x.mm(w1)).mm(w2) - y).pow(2).sum()
loss.backward()
g1, g2 = w1.grad.clone(), w2.grad.clone()
w1.grad.zero_()
w2.grad.zero_()
(x.mm(w1).clamp(min=0).mm(w2) - y).pow(2).sum().backward()
assert torch.allclose(g1, w1.grad) and torch.allclose(g2, w2.grad)

learning_rate = 1e-5
first = loss.item()
for t in range(100):
    loss = (relu(x.mm(w1)).mm(w2) - y).pow(2).sum()
    w1.grad = w2.grad = None
    loss.backward()
    with torch.no_grad():
        w1 -= learning_rate * w1.grad
        w2 -= learning_rate * w2.grad
assert loss.item() < first
