"""PyTorch tutorial "Neural Tangent Kernels" (intermediate_source/neural_tangent_kernels.py) at
toy size: the CNN (three Conv2d + relu, flatten(1), Linear), params detached from
named_parameters(), fnet_single through functional_call(net, params, (x.unsqueeze(0),)).squeeze(0);
method 1, empirical_ntk_jacobian_contraction with vmap(jacrev(fnet_single), (None, 0)) and the
'full' / 'trace' / 'diagonal' einsum expressions; method 2, empirical_ntk_ntk_vps with vjp
inside, jvp of the vjp, vmap over the rows of torch.eye and vmap(vmap(get_ntk, (None, 0)),
(0, None)) over the pairs, einsum('NMKK->NM') for the trace; the two methods agree."""
import torch
import torch.nn as nn
from torch.func import functional_call, jacrev, jvp, vjp, vmap

device = 'cpu'


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, (3, 3))
        self.conv2 = nn.Conv2d(4, 4, (3, 3))
        self.conv3 = nn.Conv2d(4, 4, (3, 3))
        self.fc = nn.Linear(16, 3)   # 21632 -> 10 for the tutorial's 32x32 inputs

    def forward(self, x):
        x = self.conv1(x)
        x = x.relu()
        x = self.conv2(x)
        x = x.relu()
        x = self.conv3(x)
        x = x.flatten(1)
        x = self.fc(x)
        return x


torch.manual_seed(0)
x_train = torch.randn(4, 3, 8, 8, device=device)
x_test = torch.randn(3, 3, 8, 8, device=device)

net = CNN().to(device)

# Detaching the parameters because we won't be calling Tensor.backward().
params = {k: v.detach() for k, v in net.named_parameters()}


def fnet_single(params, x):
    return functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)


assert torch.allclose(fnet_single(params, x_test[1]), net(x_test)[1], atol=1e-6)


def empirical_ntk_jacobian_contraction(fnet_single, params, x1, x2, compute='full'):
    # Compute J(x1)
    jac1 = vmap(jacrev(fnet_single), (None, 0))(params, x1)
    jac1 = jac1.values()
    jac1 = [j.flatten(2) for j in jac1]

    # Compute J(x2)
    jac2 = vmap(jacrev(fnet_single), (None, 0))(params, x2)
    jac2 = jac2.values()
    jac2 = [j.flatten(2) for j in jac2]

    # Compute J(x1) @ J(x2).T
    einsum_expr = None
    if compute == 'full':
        einsum_expr = 'Naf,Mbf->NMab'
    elif compute == 'trace':
        einsum_expr = 'Naf,Maf->NM'
    elif compute == 'diagonal':
        einsum_expr = 'Naf,Maf->NMa'
    else:
        assert False

    result = torch.stack([torch.einsum(einsum_expr, j1, j2) for j1, j2 in zip(jac1, jac2)])
    result = result.sum(0)
    return result


result = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test, 'trace')
print(result.shape)
assert result.shape == (4, 3)
full = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test)
diag = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test, 'diagonal')
assert full.shape == (4, 3, 3, 3) and diag.shape == (4, 3, 3)
assert torch.allclose(diag, torch.diagonal(full, dim1=-2, dim2=-1), atol=1e-5)
assert torch.allclose(result, diag.sum(-1), atol=1e-4)

# one entry by hand: the dot product of two per-output gradients over all parameters
g = []
for x, out in ((x_train[2], 1), (x_test[0], 2)):
    net.zero_grad()
    net(x.unsqueeze(0))[0, out].backward()
    g.append([p.grad.clone() for p in net.parameters()])
by_hand = sum((a * b).sum() for a, b in zip(*g))
assert torch.allclose(full[2, 0, 1, 2], by_hand, atol=1e-4)


def empirical_ntk_ntk_vps(func, params, x1, x2, compute='full'):
    def get_ntk(x1, x2):
        def func_x1(params):
            return func(params, x1)

        def func_x2(params):
            return func(params, x2)

        output, vjp_fn = vjp(func_x1, params)

        def get_ntk_slice(vec):
            # This computes ``vec @ J(x2).T``
            # `vec` is some unit vector (a single slice of the Identity matrix)
            vjps = vjp_fn(vec)
            # This computes ``J(X1) @ vjps``
            _, jvps = jvp(func_x2, (params,), vjps)
            return jvps

        # Here's our identity matrix
        basis = torch.eye(output.numel(), dtype=output.dtype, device=output.device).view(output.numel(), -1)
        return vmap(get_ntk_slice)(basis)

    # ``get_ntk(x1, x2)`` computes the NTK for a single data point x1, x2
    # Since the x1, x2 inputs to ``empirical_ntk_ntk_vps`` are batched,
    # we actually wish to compute the NTK between every pair of data points
    # between {x1} and {x2}. That's what the ``vmaps`` here do.
    result = vmap(vmap(get_ntk, (None, 0)), (0, None))(x1, x2)

    if compute == 'full':
        return result
    if compute == 'trace':
        return torch.einsum('NMKK->NM', result)
    if compute == 'diagonal':
        return torch.einsum('NMKK->NMK', result)


result_from_jacobian_contraction = empirical_ntk_jacobian_contraction(fnet_single, params, x_test, x_train)
result_from_ntk_vps = empirical_ntk_ntk_vps(fnet_single, params, x_test, x_train)
assert torch.allclose(result_from_jacobian_contraction, result_from_ntk_vps, atol=1e-5)

result_from_jacobian_contraction = empirical_ntk_jacobian_contraction(fnet_single, params, x_test, x_train, 'trace')
result_from_ntk_vps = empirical_ntk_ntk_vps(fnet_single, params, x_test, x_train, 'trace')
assert torch.allclose(result_from_jacobian_contraction, result_from_ntk_vps, atol=1e-5)
