"""labkit.accelerator, as torch.accelerator: the device-agnostic way current tutorials pick
their device (`device = torch.accelerator.current_accelerator() or "cpu"`). labkit's only
accelerator is CUDA (through CuPy)."""
from . import cuda as _cuda
from .engine.device import Device


def is_available():
    """True when an accelerator (a CUDA GPU) can be used."""
    return _cuda.is_available()


def current_accelerator(check_available=False):
    """device('cuda') when a GPU is usable, else None (as torch on a machine without one)."""
    return Device("cuda") if _cuda.is_available() else None


def device_count():
    return _cuda.device_count() if _cuda.is_available() else 0


def current_device_index():
    return 0 if _cuda.is_available() else -1


def synchronize(device=None):
    """Wait for the accelerator's queued work (a no-op without one)."""
    if _cuda.is_available():
        _cuda.synchronize()
