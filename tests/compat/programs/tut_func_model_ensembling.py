"""PyTorch tutorial "Model ensembling" (intermediate_source/ensembling.py) and the neural tangent
kernel tutorial's first steps: several SimpleMLP models, torch.func.stack_module_state(models),
a 'meta' base model from copy.deepcopy(models[0]).to('meta'), functional_call inside
vmap(fmodel, in_dims=(0, 0, None)) for the same minibatch and in_dims=(0, 0, 0) for one minibatch
per model, checked against running each model; then an empirical NTK from vmap(jacrev(fnet_single))."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, jacrev, stack_module_state, vmap

torch.manual_seed(0)


class SimpleMLP(nn.Module):
    def __init__(self):
        super(SimpleMLP, self).__init__()
        self.fc1 = nn.Linear(784, 128)
        self.fc2 = nn.Linear(128, 128)
        self.fc3 = nn.Linear(128, 10)

    def forward(self, x):
        x = x.flatten(1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.fc2(x)
        x = F.relu(x)
        x = self.fc3(x)
        return x


device = 'cpu'
num_models = 10
data = torch.randn(100, 64, 1, 28, 28, device=device)
targets = torch.randint(10, (6400,), device=device)
models = [SimpleMLP().to(device) for _ in range(num_models)]

minibatches = data[:num_models]
predictions_diff_minibatch_loop = [model(minibatch) for model, minibatch in zip(models, minibatches)]
minibatch = data[0]
predictions2 = [model(minibatch) for model in models]

params, buffers = stack_module_state(models)
assert params["fc1.weight"].shape == (num_models, 128, 784)
base_model = copy.deepcopy(models[0])
base_model = base_model.to('meta')
assert base_model.fc1.weight.device.type == "meta"


def fmodel(params, buffers, x):
    return functional_call(base_model, (params, buffers), (x,))


print([p.size(0) for p in params.values()])  # show the leading 'num_models' dimension
assert minibatches.shape == (num_models, 64, 1, 28, 28)  # verify minibatch has leading dimension of size 'num_models'
predictions1_vmap = vmap(fmodel)(params, buffers, minibatches)
# verify the ``vmap`` predictions match the
assert torch.allclose(predictions1_vmap, torch.stack(predictions_diff_minibatch_loop), atol=1e-3, rtol=1e-5)

predictions2_vmap = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
assert torch.allclose(predictions2_vmap, torch.stack(predictions2), atol=1e-3, rtol=1e-5)

# empirical neural tangent kernel (neural_tangent_kernels.py), at a small size
net = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 2))
net_params = {k: v.detach() for k, v in net.named_parameters()}


def fnet_single(params, x):
    return functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)


def empirical_ntk_jacobian_contraction(fnet_single, params, x1, x2):
    # Compute J(x1)
    jac1 = vmap(jacrev(fnet_single), (None, 0))(params, x1)
    jac1 = jac1.values()
    jac1 = [j.flatten(2) for j in jac1]
    # Compute J(x2)
    jac2 = vmap(jacrev(fnet_single), (None, 0))(params, x2)
    jac2 = jac2.values()
    jac2 = [j.flatten(2) for j in jac2]
    # Compute J(x1) @ J(x2).T
    result = torch.stack([torch.einsum('Naf,Mbf->NMab', j1, j2) for j1, j2 in zip(jac1, jac2)])
    result = result.sum(0)
    return result


x_train, x_test = torch.randn(5, 3), torch.randn(4, 3)
ntk = empirical_ntk_jacobian_contraction(fnet_single, net_params, x_train, x_test)
assert ntk.shape == (5, 4, 2, 2)
# check one entry against autograd
out1 = net(x_train[1])[0]
g1 = torch.autograd.grad(out1, list(net.parameters()))
out2 = net(x_test[2])[1]
g2 = torch.autograd.grad(out2, list(net.parameters()))
assert torch.allclose(ntk[1, 2, 0, 1], sum((a * b).sum() for a, b in zip(g1, g2)), atol=1e-5)
