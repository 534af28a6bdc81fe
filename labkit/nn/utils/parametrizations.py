"""torch.nn.utils.parametrizations: ready-made parametrizations (weight_norm)."""
from ..module import Module
from . import parametrize
from .weight_norm import _weight_norm, norm_except_dim


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """`module.<name>` becomes g * v / ||v|| with g = parametrizations.<name>.original0 and
    v = .original1, both learned; returns the module."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module
