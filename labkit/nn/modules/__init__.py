"""labkit.nn.modules: torch.nn.modules as an import path. torch code imports layers from here
(from torch.nn.modules import Module; from torch.nn.modules.linear import Linear): the names
are labkit.nn's, and each torch submodule name points at the labkit.nn file holding them."""
import sys

from .. import (activation, batchnorm, container, conv, dropout, embedding, flatten, lazy,
                linear, loss, module, normalization, padding, pooling, upsampling)
_nn = sys.modules[__name__.rsplit(".", 1)[0]]
globals().update({k: v for k, v in vars(_nn).items() if k[:1].isupper()})   # every layer class

for _m in (activation, batchnorm, container, conv, dropout, embedding, flatten, lazy, linear,
           loss, module, normalization, padding, pooling, upsampling):
    sys.modules[f"{__name__}.{_m.__name__.rsplit('.', 1)[1]}"] = _m
del _m, _nn
