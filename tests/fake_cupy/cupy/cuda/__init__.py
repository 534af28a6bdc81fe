"""Fake cupy.cuda (test double, numpy behind it; see cupy/__init__.py): devices, streams,
events, and the memory pools' bookkeeping of live fake device arrays and pinned buffers."""
import time
import weakref

from . import runtime  # noqa: F401


class Device:
    def __init__(self, device=None):
        self.id = 0 if device is None else int(device)
        if not 0 <= self.id < runtime.getDeviceCount():
            raise runtime.CUDARuntimeError(f"cudaErrorInvalidDevice: invalid device ordinal {self.id}")

    compute_capability = "80"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def use(self):
        pass

    def synchronize(self):
        pass

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(self.id)

    def __repr__(self):
        return f"<CUDA Device {self.id}>"


class Stream:
    def __init__(self, null=False, non_blocking=False, ptr=0):
        self.ptr = 0 if null else id(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def synchronize(self):
        pass

    def use(self):
        return self

    @property
    def done(self):
        return True


Stream.null = Stream(null=True)


def get_current_stream(device_id=None):
    return Stream.null


class Event:
    def __init__(self, block=False, disable_timing=False, interprocess=False):
        self.disable_timing, self._t = disable_timing, None

    def record(self, stream=None):
        self._t = time.perf_counter()

    def synchronize(self):
        pass

    @property
    def done(self):
        return True


def get_elapsed_time(start_event, end_event):
    """Milliseconds between two recorded events (cudaEventElapsedTime)."""
    for e in (start_event, end_event):
        if e._t is None or e.disable_timing:
            raise runtime.CUDARuntimeError("cudaErrorInvalidResourceHandle: event not recorded "
                                           "or created with disable_timing=True")
    return (end_event._t - start_event._t) * 1e3


class MemoryPointer:
    def __init__(self, ptr):
        self.ptr, self.device_id = ptr, 0

    def __int__(self):
        return self.ptr


# --- bookkeeping: {id(root numpy array): (ptr, nbytes)} for device buffers and pinned buffers
_device, _pinned = {}, {}


class MemoryPool:
    def __init__(self):
        self._cached = 0

    def used_bytes(self):
        return sum(n for _, n in _device.values())

    def total_bytes(self):
        return self.used_bytes() + self._cached

    def free_bytes(self):
        return self._cached

    def free_all_blocks(self, stream=None):
        self._cached = 0

    def malloc(self, nbytes):
        return None       # the fake's buffers are numpy arrays, already made

    def _freed(self, key):
        self._cached += _device.pop(key)[1]


class PinnedMemoryPool:
    def __init__(self):
        self._free = 0

    def n_free_blocks(self):
        return self._free

    def free_all_blocks(self):
        self._free = 0

    def _freed(self, key):
        _pinned.pop(key)
        self._free += 1


memory_pool, pinned_memory_pool = MemoryPool(), PinnedMemoryPool()


def _track(registry, pool, root):
    key = id(root)
    if key not in registry:
        registry[key] = (root.__array_interface__["data"][0], root.nbytes)
        weakref.finalize(root, pool._freed, key)


def _track_device(root):
    new = id(root) not in _device
    _track(_device, memory_pool, root)
    if new and _allocator is not None:     # what cupy.cuda.set_allocator's function sees
        _allocator(root.nbytes)


_allocator = None


def set_allocator(allocator=None):
    """Route every device allocation through allocator(nbytes) (here: called after the
    bookkeeping, so it sees the bytes in use including the new buffer)."""
    global _allocator
    _allocator = allocator


def _track_pinned(root):
    _track(_pinned, pinned_memory_pool, root)
