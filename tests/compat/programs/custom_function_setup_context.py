"""A custom autograd Function in the PyTorch 2 style: forward without ctx, setup_context saves
what backward needs; a second Function whose backward is once_differentiable; an in-place
Function marking its input dirty. gradcheck and gradgradcheck verify them."""
import torch
from torch.autograd.function import once_differentiable


class SoftClamp(torch.autograd.Function):
    @staticmethod
    def forward(x, limit):
        return limit * torch.tanh(x / limit)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, limit = inputs
        ctx.save_for_backward(output)
        ctx.limit = limit

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * (1 - (out / ctx.limit) ** 2), None


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 2 * x * grad


class Double_(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x)
        return x.mul_(2)

    @staticmethod
    def backward(ctx, grad):
        return 2 * grad


x = torch.tensor([0.3, -2.0, 4.0], dtype=torch.float64, requires_grad=True)
assert torch.autograd.gradcheck(lambda v: SoftClamp.apply(v, 2.0), (x,))
assert torch.autograd.gradgradcheck(lambda v: SoftClamp.apply(v, 2.0), (x,))
assert torch.autograd.gradcheck(Square.apply, (x,))
(g,) = torch.autograd.grad((Square.apply(x) * x).sum(), x, create_graph=True)
try:
    g.sum().backward()
    raise AssertionError("double backward through once_differentiable should fail")
except RuntimeError as e:
    assert "once_differentiable" in str(e)
h = x * 1.0
out = Double_.apply(h)
assert out is h
out.sum().backward()
assert x.grad.tolist() == [2.0, 2.0, 2.0]
print("ok")
