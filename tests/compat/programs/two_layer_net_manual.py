"""A two-layer ReLU net with hand-written backward (mm, clamp(min=0), .t()), checked by autograd."""
import torch

dtype = torch.float
N, D_in, H, D_out = 16, 50, 20, 5
torch.manual_seed(7)
x = torch.randn(N, D_in, dtype=dtype)
y = torch.randn(N, D_out, dtype=dtype)
w1 = torch.randn(D_in, H, dtype=dtype)
w2 = torch.randn(H, D_out, dtype=dtype)

h = x.mm(w1)
h_relu = h.clamp(min=0)
y_pred = h_relu.mm(w2)
grad_y_pred = 2.0 * (y_pred - y)
grad_w2 = h_relu.t().mm(grad_y_pred)
grad_h_relu = grad_y_pred.mm(w2.t())
grad_h = grad_h_relu.clone()
grad_h[h < 0] = 0
grad_w1 = x.t().mm(grad_h)

w1a = w1.clone().requires_grad_(True)
w2a = w2.clone().requires_grad_(True)
loss = (x.mm(w1a).clamp(min=0).mm(w2a) - y).pow(2).sum()
loss.backward()
assert torch.allclose(w1a.grad, grad_w1, rtol=1e-4, atol=1e-3)
assert torch.allclose(w2a.grad, grad_w2, rtol=1e-4, atol=1e-3)

learning_rate = 1e-4
for t in range(50):
    y_pred = x.mm(w1).clamp(min=0).mm(w2)
    if t == 0:
        first = (y_pred - y).pow(2).sum().item()
    grad_y_pred = 2.0 * (y_pred - y)
    h = x.mm(w1)
    grad_w2 = h.clamp(min=0).t().mm(grad_y_pred)
    grad_h = grad_y_pred.mm(w2.t())
    grad_h[h < 0] = 0
    w1 -= learning_rate * x.t().mm(grad_h)
    w2 -= learning_rate * grad_w2
assert (x.mm(w1).clamp(min=0).mm(w2) - y).pow(2).sum().item() < first
