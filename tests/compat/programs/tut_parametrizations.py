"""PyTorch tutorial "Parametrizations Tutorial" (intermediate_source/parametrizations.py):
symmetric(X) by hand, then parametrize.register_parametrization(layer, "weight", Symmetric()),
Skew on a Conv2d, layer.parametrizations.weight.original, parametrize.cached(), chaining Skew and
a CayleyMap (torch.linalg.solve) into an orthogonal weight, MatrixExponential (torch.matrix_exp),
right_inverse so that `layer.weight = X` works, remove_parametrizations with and without
leave_parametrized; and training through a parametrization with SGD."""
import torch
import torch.nn as nn
import torch.nn.utils.parametrize as parametrize


def symmetric(X):
    return X.triu() + X.triu(1).transpose(-1, -2)


torch.manual_seed(0)
X = torch.rand(3, 3)
A = symmetric(X)
assert torch.allclose(A, A.T)


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Symmetric())
A = layer.weight
assert torch.allclose(A, A.T)
print(A)


class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)


cnn = nn.Conv2d(in_channels=5, out_channels=8, kernel_size=3)
parametrize.register_parametrization(cnn, "weight", Skew())
print(cnn.weight[0, 1])
print(cnn.weight[2, 2])
assert torch.allclose(cnn.weight, -cnn.weight.transpose(-1, -2))

# inspecting a parametrized module
layer = nn.Linear(3, 3)
print(f"Unparametrized:\n{layer}")
parametrize.register_parametrization(layer, "weight", Symmetric())
print(f"\nParametrized:\n{layer}")
assert type(layer).__name__ == "ParametrizedLinear"
assert isinstance(layer, nn.Linear)
print(layer.parametrizations)
print(layer.parametrizations.weight)
print(layer.parametrizations.weight[0])
names = dict(layer.named_parameters())
print(names)
assert sorted(names) == ["bias", "parametrizations.weight.original"]
assert sorted(layer.state_dict()) == ["bias", "parametrizations.weight.original"]
print(layer.parametrizations.weight.original)
symmetric = Symmetric()
weight_orig = layer.parametrizations.weight.original
print(torch.dist(layer.weight, symmetric(weight_orig)))
assert torch.dist(layer.weight, symmetric(weight_orig)) == 0
assert parametrize.is_parametrized(layer) and parametrize.is_parametrized(layer, "weight")
assert not parametrize.is_parametrized(layer, "bias")


# caching
class NoisyParametrization(nn.Module):
    calls = 0

    def forward(self, X):
        print("Computing the Parametrization")
        NoisyParametrization.calls += 1
        return X


layer = nn.Linear(4, 4)
parametrize.register_parametrization(layer, "weight", NoisyParametrization())
NoisyParametrization.calls = 0
foo = layer.weight + layer.weight.T
bar = layer.weight.sum()
assert NoisyParametrization.calls == 3
with parametrize.cached():
    foo = layer.weight + layer.weight.T
    bar = layer.weight.sum()
assert NoisyParametrization.calls == 4


# concatenating parametrizations
class CayleyMap(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("Id", torch.eye(n))

    def forward(self, X):
        # (I + X)(I - X)^{-1}
        return torch.linalg.solve(self.Id - X, self.Id + X)


layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Skew())
parametrize.register_parametrization(layer, "weight", CayleyMap(3))
X = layer.weight
print(torch.dist(X.T @ X, torch.eye(3)))  # X is orthogonal
assert torch.dist(X.T @ X, torch.eye(3)) < 1e-5
assert len(layer.parametrizations.weight) == 2


class MatrixExponential(nn.Module):
    def forward(self, X):
        return torch.matrix_exp(X)


layer_orthogonal = nn.Linear(3, 3)
parametrize.register_parametrization(layer_orthogonal, "weight", Skew())
parametrize.register_parametrization(layer_orthogonal, "weight", MatrixExponential())
X = layer_orthogonal.weight
print(torch.dist(X.T @ X, torch.eye(3)))         # X is orthogonal
assert torch.dist(X.T @ X, torch.eye(3)) < 1e-5

layer_spd = nn.Linear(3, 3)
parametrize.register_parametrization(layer_spd, "weight", Symmetric())
parametrize.register_parametrization(layer_spd, "weight", MatrixExponential())
X = layer_spd.weight
print(torch.dist(X, X.T))                        # X is symmetric
print((torch.linalg.eigvalsh(X) > 0.).all())     # X is positive definite
assert (torch.linalg.eigvalsh(X) > 0.).all()


# initializing parametrizations with right_inverse
class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)

    def right_inverse(self, A):
        # We assume that A is skew-symmetric
        # We take the upper-triangular elements, as these are those used in the forward
        return A.triu(1)


layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Skew())
X = torch.rand(3, 3)
X = X - X.T                             # X is now skew-symmetric
layer.weight = X                        # Initialize layer.weight to be X
print(torch.dist(layer.weight, X))      # layer.weight == X
assert torch.dist(layer.weight, X) < 1e-6

# training through the parametrization: the weight stays skew-symmetric
opt = torch.optim.SGD(layer.parameters(), lr=0.1)
x, y = torch.randn(16, 3), torch.randn(16, 3)
before = layer.parametrizations.weight.original.clone()
for _ in range(5):
    opt.zero_grad()
    loss = ((layer(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
grad = layer.parametrizations.weight.original.grad
assert torch.equal(grad.tril(), torch.zeros(3, 3))   # only the upper triangle is used
assert not torch.equal(layer.parametrizations.weight.original, before)
assert torch.allclose(layer.weight, -layer.weight.T)

# removing parametrizations
layer = nn.Linear(3, 3)
print("Before:")
print(layer)
print(layer.weight)
parametrize.register_parametrization(layer, "weight", Skew())
print("\nParametrized:")
print(layer)
print(layer.weight)
skew = layer.weight.detach().clone()
parametrize.remove_parametrizations(layer, "weight")
print("\nAfter. Weight has skew-symmetric values but it is unconstrained:")
print(layer)
print(layer.weight)
assert type(layer) is nn.Linear and isinstance(layer.weight, nn.Parameter)
assert torch.equal(layer.weight.detach(), skew)
assert not hasattr(layer, "parametrizations")

layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Skew())
original = layer.parametrizations.weight.original.detach().clone()
parametrize.remove_parametrizations(layer, "weight", leave_parametrized=False)
print(layer.weight)
assert torch.equal(layer.weight.detach(), original)
