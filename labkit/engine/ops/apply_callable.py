"""x.apply_(fn) and x.map_(other, fn): a Python function run on every element, in place (cpu
only, slow by design: one Python call per element; for a quick transformation while
exploring, never in a training step). Each result is stored in x's dtype, as torch does."""
import numpy as np

from ..tensor import tensor_method


def _check(name, x):
    if x.requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                           f"var.detach().{name}() instead.")
    if x.device.type != "cpu":
        raise RuntimeError(f"{name}() works on cpu tensors only (a Python call per element); "
                           f"this one is on {x.device}: use x.cpu().{name}(...).to(device).")


def _store(x, values):
    x._data[...] = np.asarray(values).astype(x._data.dtype)
    x._bump_version()
    return x


@tensor_method("apply_")
def apply_(x, callable):
    """Every element v becomes callable(v) (a Python number in, a number out)."""
    _check("apply_", x)
    flat = [callable(v) for v in x._data.reshape(-1).tolist()]
    return _store(x, np.asarray(flat, dtype=object).reshape(x._data.shape))


@tensor_method("map_")
def map_(x, tensor, callable):
    """Every element v of x becomes callable(v, w), w the matching element of tensor
    (broadcast to x's shape)."""
    _check("map_", x)
    other = tensor.expand(x.shape)._data.reshape(-1).tolist()
    flat = [callable(v, w) for v, w in zip(x._data.reshape(-1).tolist(), other)]
    return _store(x, np.asarray(flat, dtype=object).reshape(x._data.shape))
