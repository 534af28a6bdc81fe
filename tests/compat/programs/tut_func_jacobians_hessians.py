"""PyTorch tutorial "Jacobians, Hessians, hvp, vhp, and more: composing function transforms"
(intermediate_source/jacobians_hessians.py): predict(weight, bias, x) = F.linear(x, weight,
bias).tanh(), jacrev(predict, argnums=2), vmap(vjp_fn)(unit_vectors) against the explicit loop,
jacfwd vs jacrev, argnums=(0, 1), hessian = jacfwd(jacrev(...)), batch Jacobians via
vmap(jacrev(predict), in_dims=(None, None, 0)) and via summing over the batch then movedim, and
hvp via jvp(grad(f)) compared with torch.autograd.functional.hvp."""
import torch
import torch.nn.functional as F
from functools import partial
from torch.func import hessian, jacfwd, jacrev, jvp, grad, vjp, vmap

torch.manual_seed(0)


def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


D = 16
weight = torch.randn(D, D)
bias = torch.randn(D)
x = torch.randn(D)  # feature vector

# computing the jacobian row by row
xp = x.clone().requires_grad_()
unit_vectors = torch.eye(D)


def compute_jac(xp):
    jacobian_rows = [torch.autograd.grad(predict(weight, bias, xp), xp, vec)[0]
                     for vec in unit_vectors]
    return torch.stack(jacobian_rows)


jacobian = compute_jac(xp)
print(jacobian.shape)
print(jacobian[0])  # show first row

_, vjp_fn = vjp(partial(predict, weight, bias), x)
ft_jacobian, = vmap(vjp_fn)(unit_vectors)
# let's confirm both methods compute the same result
assert torch.allclose(ft_jacobian, jacobian)

ft_jacobian = jacrev(predict, argnums=2)(weight, bias, x)
# Confirm by running the following:
assert torch.allclose(ft_jacobian, jacobian)

# reverse-mode vs forward-mode
jacfwd_result = jacfwd(predict, argnums=2)(weight, bias, x)
assert torch.allclose(jacfwd_result, ft_jacobian, atol=1e-6)

# w.r.t. the weight and the bias
ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
assert ft_jac_weight.shape == (D, D, D) and ft_jac_bias.shape == (D, D)
# the bias Jacobian of tanh(W x + b) is diag(1 - y^2)
y = predict(weight, bias, x)
assert torch.allclose(ft_jac_bias, torch.diag(1 - y ** 2), atol=1e-6)
fwd_weight, fwd_bias = jacfwd(predict, argnums=(0, 1))(weight, bias, x)
assert torch.allclose(fwd_weight, ft_jac_weight, atol=1e-6)

# Hessian computation
Din, Dout = 8, 4
weight = torch.randn(Dout, Din)
bias = torch.randn(Dout)
x = torch.randn(Din)
hess_api = hessian(predict, argnums=2)(weight, bias, x)
hess_fwdfwd = jacfwd(jacfwd(predict, argnums=2), argnums=2)(weight, bias, x)
hess_revrev = jacrev(jacrev(predict, argnums=2), argnums=2)(weight, bias, x)
assert hess_api.shape == (Dout, Din, Din)
assert torch.allclose(hess_api, hess_fwdfwd, atol=1e-5)
assert torch.allclose(hess_api, hess_revrev, atol=1e-5)

# batch Jacobian and batch Hessian
batch_size = 8
Din, Dout = 6, 5
weight = torch.randn(Dout, Din)
bias = torch.randn(Dout)
x = torch.randn(batch_size, Din)
compute_batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))
batch_jacobian0 = compute_batch_jacobian(weight, bias, x)
assert batch_jacobian0.shape == (batch_size, Dout, Din)


def predict_with_output_summed(weight, bias, x):
    return predict(weight, bias, x).sum(0)


batch_jacobian1 = jacrev(predict_with_output_summed, argnums=2)(weight, bias, x).movedim(1, 0)
assert torch.allclose(batch_jacobian0, batch_jacobian1, atol=1e-6)

compute_batch_hessian = vmap(hessian(predict, argnums=2), in_dims=(None, None, 0))
batch_hess = compute_batch_hessian(weight, bias, x)
assert batch_hess.shape == (batch_size, Dout, Din, Din)


# hessian-vector products
def hvp(f, primals, tangents):
    return jvp(grad(f), primals, tangents)[1]


def f(x):
    return x.sin().sum()


x = torch.randn(2048)
tangent = torch.randn(2048)
result = hvp(f, (x,), (tangent,))
assert torch.allclose(result, -x.sin() * tangent, atol=1e-6)
_, hvp_autograd = torch.autograd.functional.hvp(f, x, tangent)
assert torch.allclose(result, hvp_autograd, atol=1e-6)
