"""Fake cupy.cuda.runtime (test double): one fake GPU whose memory is numpy's."""


class CUDARuntimeError(RuntimeError):
    pass


def getDeviceCount():
    return 1


def getDevice():
    return 0


def deviceSynchronize():
    pass


def getDeviceProperties(device):
    if device != 0:
        raise CUDARuntimeError(f"cudaErrorInvalidDevice: invalid device ordinal {device}")
    return {"name": b"Fake CUDA GPU (numpy)", "totalGlobalMem": 16 * 2 ** 30,
            "multiProcessorCount": 8, "clockRate": 1_000_000, "major": 8, "minor": 0,
            "memoryClockRate": 1_000_000, "memoryBusWidth": 256, "warpSize": 32}


def memGetInfo():
    from . import memory_pool
    total = getDeviceProperties(0)["totalGlobalMem"]
    return total - memory_pool.total_bytes(), total


class PointerAttributes:
    def __init__(self, type, ptr):
        self.type, self.device = type, 0 if type else -2
        self.devicePointer = ptr if type else 0
        self.hostPointer = ptr if type == 1 else 0


def pointerGetAttributes(ptr):
    """type 1: host memory from cupyx.empty_pinned; 2: a fake device array; 0: unregistered."""
    from . import _device, _pinned
    for kind, registry in ((1, _pinned), (2, _device)):
        if any(p <= ptr < p + max(n, 1) for p, n in list(registry.values())):
            return PointerAttributes(kind, ptr)
    return PointerAttributes(0, ptr)


def runtimeGetVersion():
    return 0          # no CUDA here: 0 says so in any report that prints it


def driverGetVersion():
    return 0
