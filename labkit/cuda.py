"""labkit.cuda: is there a GPU, how many, and waiting for it (torch.cuda's basics)."""
from .engine import device as _device


def is_available():
    """True when cupy is installed and sees a GPU. labkit works fully without one."""
    return _device.cuda_available()


def device_count():
    if not _device.cuda_available():
        return 0
    return _device._cupy.cuda.runtime.getDeviceCount()


def synchronize(device=None):
    """Block until all queued GPU work is done (needed before reading a clock)."""
    if _device.cuda_available():
        _device.synchronize(device if device is not None else "cuda")


__all__ = ["is_available", "device_count", "synchronize"]
