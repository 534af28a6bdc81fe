"""nn.init's remaining initialisers: dirac_ (a conv that passes its input through) and sparse_
(a normal matrix with a fraction of each column zeroed), plus torch's deprecated names without
the trailing underscore (normal, xavier_uniform ...), which warn and call the new ones."""
import math
import warnings

from ..engine.creation import randperm
from ..engine.grad_mode import no_grad


def dirac_(tensor, groups=1):
    """Identity kernels for a 3-, 4- or 5-D conv weight: output channel d copies input channel
    d (per group) through the kernel's centre tap."""
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    with no_grad():
        tensor.zero_()
        centre = tuple(s // 2 for s in sizes[2:])
        for g in range(groups):
            for d in range(min(per_group, sizes[1])):
                tensor[(g * per_group + d, d) + centre] = 1
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """N(0, std) values with ceil(sparsity * rows) random entries of each column set to 0."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for c in range(cols):
            tensor[randperm(rows, generator=generator)[:zeros], c] = 0
    return tensor


def _deprecated(name):
    def old(*args, **kwargs):
        warnings.warn(f"`nn.init.{name}` is now deprecated in favor of `nn.init.{name}_`.",
                      FutureWarning, stacklevel=2)
        from . import init
        return getattr(init, name + "_")(*args, **kwargs)
    old.__name__ = old.__qualname__ = name
    old.__doc__ = f"Deprecated: use nn.init.{name}_."
    return old


DEPRECATED = ("uniform", "normal", "constant", "xavier_uniform", "xavier_normal",
              "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse", "eye", "dirac")
for _name in DEPRECATED:
    globals()[_name] = _deprecated(_name)
