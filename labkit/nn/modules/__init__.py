"""labkit.nn.modules: torch.nn.modules as an import path, so code written for torch runs
unchanged: from torch.nn.modules import Linear; from torch.nn.modules.linear import Linear;
torch.nn.modules.module.register_module_forward_hook(hook). The names are labkit.nn's, and
each torch submodule name points at the labkit.nn file that holds them."""
import importlib
import sys

_FILES = ("activation", "attention", "batchnorm", "container", "conv", "dropout", "embedding",
          "flatten", "lazy", "linear", "loss", "module", "normalization", "padding", "pooling",
          "rnn", "transformer", "upsampling")
_NN = __name__.rsplit(".", 1)[0]
for _name in _FILES:
    globals()[_name] = sys.modules[f"{__name__}.{_name}"] = importlib.import_module(
        f"{_NN}.{_name}")
del _name


def __getattr__(name):
    """Layer classes (Linear, Conv2d, ...) come from labkit.nn, read when asked for: this
    package is imported while labkit.nn is still defining them."""
    nn = sys.modules[_NN]
    if name[:1].isupper() and hasattr(nn, name):
        return getattr(nn, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = list(_FILES)
