"""torch.autograd.gradcheck on a custom Function with double inputs (the extending-autograd recipe):
a linear Function with ctx.needs_input_grad, passing gradcheck, and a wrong backward failing it."""
import torch
from torch.autograd import Function, gradcheck


class LinearFunction(Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class WrongSquare(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * x            # should be 2 * g * x


input = (torch.randn(5, 4, dtype=torch.double, requires_grad=True),
         torch.randn(3, 4, dtype=torch.double, requires_grad=True),
         torch.randn(3, dtype=torch.double, requires_grad=True))
assert gradcheck(LinearFunction.apply, input, eps=1e-6, atol=1e-4)
assert not gradcheck(WrongSquare.apply, (torch.randn(3, dtype=torch.double, requires_grad=True),),
                     raise_exception=False)
