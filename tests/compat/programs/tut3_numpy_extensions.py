"""PyTorch tutorial "Creating Extensions Using NumPy and SciPy" (advanced_source/
numpy_extensions_tutorial.py), with scipy.signal's correlate2d / convolve2d written in numpy
(sliding_window_view) since scipy is not installed here: BadFFTFunction (numpy rfft2 / irfft2
inside a Function, results wrapped with input.new(result) / grad_output.new(result)), and
ScipyConv2dFunction saving detached input, filter and bias, returning torch.as_tensor(...,
dtype=...) gradients, in a ScipyConv2d module with Parameter(torch.randn(...)), checked by
torch.autograd.gradcheck in double precision and against F.conv2d."""
import numpy as np
import torch
import torch.nn.functional as F
from numpy import flip
from numpy.fft import irfft2, rfft2
from numpy.lib.stride_tricks import sliding_window_view
from torch.autograd import Function
from torch.nn.modules.module import Module
from torch.nn.parameter import Parameter


def correlate2d(a, k, mode='valid'):
    """scipy.signal.correlate2d for mode 'valid' and 'full'."""
    if mode == 'full':
        a = np.pad(a, ((k.shape[0] - 1,) * 2, (k.shape[1] - 1,) * 2))
    return np.einsum('ijkl,kl->ij', sliding_window_view(a, k.shape), k)


def convolve2d(a, k, mode='valid'):
    """scipy.signal.convolve2d: correlation with the flipped kernel."""
    return correlate2d(a, flip(flip(k, axis=0), axis=1), mode)


class BadFFTFunction(Function):
    @staticmethod
    def forward(ctx, input):
        numpy_input = input.detach().numpy()
        result = abs(rfft2(numpy_input))
        return input.new(result)

    @staticmethod
    def backward(ctx, grad_output):
        numpy_go = grad_output.numpy()
        result = irfft2(numpy_go)
        return grad_output.new(result)


# since this layer does not have any parameters, we can
# simply declare this as a function, rather than as an nn.Module class


def incorrect_fft(input):
    return BadFFTFunction.apply(input)


torch.manual_seed(0)
input = torch.randn(8, 8, requires_grad=True)
result = incorrect_fft(input)
print(result)
assert result.shape == (8, 5) and result.dtype == torch.float32 and result.requires_grad
assert np.allclose(result.detach().numpy(), abs(rfft2(input.detach().numpy())), atol=1e-4)
upstream = torch.randn(result.size())
result.backward(upstream)
print(input)
assert input.grad.shape == (8, 8) and input.grad.dtype == torch.float32
assert np.allclose(input.grad.numpy(), irfft2(upstream.numpy()), atol=1e-5)


class ScipyConv2dFunction(Function):
    @staticmethod
    def forward(ctx, input, filter, bias):
        # detach so we can cast to NumPy
        input, filter, bias = input.detach(), filter.detach(), bias.detach()
        result = correlate2d(input.numpy(), filter.numpy(), mode='valid')
        result += bias.numpy()
        ctx.save_for_backward(input, filter, bias)
        return torch.as_tensor(result, dtype=input.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        grad_output = grad_output.detach()
        input, filter, bias = ctx.saved_tensors
        grad_output = grad_output.numpy()
        grad_bias = np.sum(grad_output, keepdims=True)
        grad_input = convolve2d(grad_output, filter.numpy(), mode='full')
        # the previous line can be expressed equivalently as:
        # grad_input = correlate2d(grad_output, flip(flip(filter.numpy(), axis=0), axis=1), mode='full')
        grad_filter = correlate2d(input.numpy(), grad_output, mode='valid')
        return torch.as_tensor(grad_input, dtype=input.dtype), torch.as_tensor(grad_filter, dtype=filter.dtype), torch.as_tensor(grad_bias, dtype=bias.dtype)


class ScipyConv2d(Module):
    def __init__(self, filter_width, filter_height):
        super(ScipyConv2d, self).__init__()
        self.filter = Parameter(torch.randn(filter_width, filter_height))
        self.bias = Parameter(torch.randn(1, 1))

    def forward(self, input):
        return ScipyConv2dFunction.apply(input, self.filter, self.bias)


module = ScipyConv2d(3, 3)
print("Filter and bias: ", list(module.parameters()))
input = torch.randn(10, 10, requires_grad=True)
output = module(input)
print("Output from the convolution: ", output)
assert output.shape == (8, 8) and output.dtype == torch.float32
ref = F.conv2d(input[None, None], module.filter[None, None]).squeeze() + module.bias
assert torch.allclose(output, ref, atol=1e-5)
go = torch.randn(8, 8)
output.backward(go)
print("Gradient for the input map: ", input.grad)
ref_grads = torch.autograd.grad(ref, (input, module.filter, module.bias), go)
assert torch.allclose(input.grad, ref_grads[0], atol=1e-5)
assert torch.allclose(module.filter.grad, ref_grads[1], atol=1e-4)
assert module.bias.grad.shape == (1, 1) and torch.allclose(module.bias.grad, ref_grads[2], atol=1e-4)

from torch.autograd.gradcheck import gradcheck

moduleConv = ScipyConv2d(3, 3)

input = [torch.randn(20, 20, dtype=torch.double, requires_grad=True)]
test = gradcheck(moduleConv, input, eps=1e-6, atol=1e-4)
print("Are the gradients correct: ", test)
assert test
