"""Process-wide defaults that creation functions read: torch.set_default_dtype and
torch.set_default_device."""
import numpy as np

from . import dtype as _dt
from .device import Device


class _Defaults:
    float = np.dtype("float32")   # the dtype of Python floats and of rand/zeros/... by default
    device = None                 # None: cpu


defaults = _Defaults()


def set_default_dtype(d):
    """Make d (float32, float64 or float16) the dtype new float tensors get by default."""
    np_d = _dt.to_np(d)
    if np_d is None or np_d.kind != "f":
        raise TypeError(f"set_default_dtype: only floating-point types are supported as the "
                        f"default type, got {d!r}.")
    defaults.float = np_d


def get_default_dtype():
    return _dt.from_np(defaults.float)


def set_default_device(device):
    """Create new tensors on `device` (e.g. 'cuda') when no device= is given; None resets."""
    defaults.device = None if device is None else Device(device)


def get_default_device():
    return defaults.device or Device("cpu")
