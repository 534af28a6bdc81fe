"""A custom autograd Function (LegendrePolynomial3 from the tutorial), checked against autograd."""
import math
import torch


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


dtype = torch.float
x = torch.linspace(-math.pi, math.pi, 200, dtype=dtype)
y = torch.sin(x)
torch.manual_seed(5)
a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, dtype=dtype, requires_grad=True)
P3 = LegendrePolynomial3.apply

z = c + d * x
y_pred = a + b * P3(z)
loss = (y_pred - y).pow(2).sum()
loss.backward()

# the same loss written with plain ops gives the same gradients
a2, b2, c2, d2 = (t.detach().clone().requires_grad_() for t in (a, b, c, d))
z2 = c2 + d2 * x
loss2 = (a2 + b2 * 0.5 * (5 * z2 ** 3 - 3 * z2) - y).pow(2).sum()
loss2.backward()
for g1, g2 in [(a.grad, a2.grad), (b.grad, b2.grad), (c.grad, c2.grad), (d.grad, d2.grad)]:
    assert torch.allclose(g1, g2, rtol=1e-4, atol=1e-3), (g1, g2)
assert y_pred.grad_fn is not None
