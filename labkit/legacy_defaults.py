"""The older global switches torch still accepts: set_default_tensor_type (a legacy type, e.g.
torch.cuda.FloatTensor, sets the default dtype and device at once), typename (the legacy type
name of a tensor, the qualified class name of anything else), set_warn_always and
set_flush_denormal."""
import warnings

from .engine.defaults import set_default_device, set_default_dtype
from .engine.tensor import Tensor
from . import legacy

_WARN_ALWAYS = [False]


def _legacy_class(name):
    parts = name.split(".")
    table = legacy.CUDA_TYPES if parts[1:2] == ["cuda"] else legacy._BY_NAME
    if parts[0] not in ("torch", "labkit") or len(parts) not in (2, 3) or parts[-1] not in table:
        raise AttributeError(f"invalid type: {name!r} (expected e.g. 'torch.FloatTensor' or "
                        "'torch.cuda.DoubleTensor')")
    return table[parts[-1]]


def set_default_tensor_type(t):
    """Deprecated in torch in favour of set_default_dtype and set_default_device."""
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
                  UserWarning, stacklevel=2)
    if isinstance(t, str):
        t = _legacy_class(t)
    if not isinstance(t, legacy._TensorTypeMeta):
        raise TypeError(f"invalid type object: {t!r}; pass a legacy type such as "
                        "labkit.FloatTensor (better: set_default_dtype(labkit.float32)).")
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    set_default_dtype(t.dtype)
    set_default_device("cuda" if t.is_cuda else "cpu")


def typename(obj):
    """'torch.FloatTensor' for a float32 cpu tensor (torch's legacy names), else the
    qualified class name."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(type(obj), "__module__", "builtins")
    name = type(obj).__qualname__
    return name if module in ("builtins", None) else f"{module}.{name}"


def get_device(input):
    """-1 for a cpu tensor, else the GPU's index (Tensor.get_device)."""
    return input.get_device()


def set_warn_always(b):
    """torch warns once per call site by default; True makes its 'warn once' warnings repeat.
    labkit's warnings go through Python's warnings module, whose filters decide."""
    _WARN_ALWAYS[0] = bool(b)
    if b:
        warnings.simplefilter("always")


def is_warn_always_enabled():
    return _WARN_ALWAYS[0]


def set_flush_denormal(mode):
    """False: numpy cannot flush subnormal floats to zero, so the request is not honoured (as
    torch answers on a CPU without the instruction)."""
    return False
