"""Weight normalisation (Salimans & Kingma 2016): w = g * v / ||v||, the direction v and the
length g learned separately. Two spellings, as torch has them:

* parametrizations.weight_norm (current): `weight` becomes a parametrization of
  parametrizations.weight.original0 (g) and .original1 (v);
* nn.utils.weight_norm (deprecated, still in WaveNet / TCN / fairseq code): parameters
  weight_g and weight_v, and a forward pre-hook that recomputes `weight` before each call.

The norm is taken over every dim except `dim` (dim=None: over the whole tensor).
"""
import warnings

from ..parameter import Parameter


def norm_except_dim(v, pow=2, dim=0):
    """||v|| over all dims but `dim`, shaped to broadcast against v (torch.norm_except_dim)."""
    if dim == -1:
        return v.norm(pow)
    dims = tuple(d for d in range(v.dim()) if d != dim)
    return v.pow(2).sum(dims, keepdim=True).sqrt() if pow == 2 else \
        v.abs().pow(pow).sum(dims, keepdim=True).pow(1.0 / pow)


def _weight_norm(v, g, dim=0):
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook of the deprecated nn.utils.weight_norm."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same "
                                   f"parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Deprecated torch API: replace module.<name> by <name>_g and <name>_v; returns module."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    for k, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
