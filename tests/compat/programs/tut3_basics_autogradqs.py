"""PyTorch "Learn the Basics", part "Automatic Differentiation with torch.autograd"
(beginner_source/basics/autogradqs_tutorial.py): z = torch.matmul(x, w) + b and
binary_cross_entropy_with_logits, z.grad_fn / loss.grad_fn, loss.backward() filling w.grad and
b.grad (checked against the formula), requires_grad off under torch.no_grad() and after
detach(), and the Jacobian-product section: out = (inp + 1).pow(2).t() with inp = torch.eye(4, 5),
out.backward(torch.ones_like(out), retain_graph=True) twice (gradients accumulate) and again after
inp.grad.zero_()."""
import torch

torch.manual_seed(0)
x = torch.ones(5)  # input tensor
y = torch.zeros(3)  # expected output
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w) + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)

print(f"Gradient function for z = {z.grad_fn}")
print(f"Gradient function for loss = {loss.grad_fn}")
assert z.grad_fn is not None and loss.grad_fn is not None
assert "Backward" in type(z.grad_fn).__name__
assert "BinaryCrossEntropyWithLogits" in type(loss.grad_fn).__name__

loss.backward()
print(w.grad)
print(b.grad)
# d loss / d z = (sigmoid(z) - y) / 3 (the mean over 3 outputs); x is all ones
dz = (torch.sigmoid(z.detach()) - y) / 3
assert torch.allclose(b.grad, dz)
assert torch.allclose(w.grad, torch.outer(x, dz))
assert z.grad is None  # not a leaf: no .grad kept

# We can only perform gradient calculations using backward once on a given graph
try:
    loss.backward()
except RuntimeError as e:
    print("second backward:", str(e)[:60])
else:
    raise AssertionError("a second backward through a freed graph must fail")

z = torch.matmul(x, w)+b
print(z.requires_grad)
assert z.requires_grad

with torch.no_grad():
    z = torch.matmul(x, w)+b
print(z.requires_grad)
assert not z.requires_grad

z = torch.matmul(x, w)+b
z_det = z.detach()
print(z_det.requires_grad)
assert not z_det.requires_grad and z_det.is_leaf
assert torch.equal(z_det, z)

inp = torch.eye(4, 5, requires_grad=True)
out = (inp+1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\n{inp.grad}")
first = inp.grad.clone()
assert torch.equal(first, 2 * (torch.eye(4, 5) + 1))
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nSecond call\n{inp.grad}")
assert torch.equal(inp.grad, 2 * first)
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nCall after zeroing gradients\n{inp.grad}")
assert torch.equal(inp.grad, first)
assert out.shape == (5, 4) and inp.grad.shape == (4, 5)
