"""labkit.cuda: is there a GPU, waiting for it, timing it, and its memory (torch.cuda's basics).

Everything here works on a machine without a GPU in the sense that it says so: is_available()
is False, device_count() is 0, synchronize() does nothing, and asking for a GPU-only figure
(an Event, memory in use) raises an error that says why and what to do.
"""
from .engine import device as _device

_NO_GPU = ("{what} needs a CUDA GPU, and none is usable here (cupy is not installed or sees no "
           "GPU). Guard GPU-only code with `if labkit.cuda.is_available():`; on a GPU machine "
           "install the CuPy build for its CUDA version (see the README).")


def is_available():
    """True when cupy is installed and sees a GPU. labkit works fully without one."""
    return _device.cuda_available()


def device_count():
    if not _device.cuda_available():
        return 0
    return _device._cupy.cuda.runtime.getDeviceCount()


def synchronize(device=None):
    """Block until all queued GPU work is done (needed before reading a clock).

    GPU calls return as soon as the work is queued; the GPU runs it later. A no-op without one.
    """
    if _device.cuda_available():
        _device.synchronize(device if device is not None else "cuda")


def current_device():
    """The GPU number tensors go to by default (labkit always uses GPU 0 unless told)."""
    _cupy("labkit.cuda.current_device()")
    return 0


def manual_seed(seed):
    """Seed random numbers for cuda tensors. labkit draws them on the host with one generator
    for every device (so a seeded run gives the same numbers on cpu and cuda): this is
    labkit.manual_seed. Like torch's, it works without a GPU too."""
    from .engine.creation import manual_seed as _seed
    return _seed(seed)


manual_seed_all = manual_seed


def _cupy(what):
    if not _device.cuda_available():
        raise RuntimeError(_NO_GPU.format(what=what))
    return _device._cupy


def _index(device):
    """The GPU number for `device` (None, an int, 'cuda:1' or a labkit device)."""
    if device is None:
        return 0
    if isinstance(device, int):
        return device
    dev = _device.Device(device)
    if dev.type != "cuda":
        raise ValueError(f"labkit.cuda: expected a cuda device, got '{dev}'.")
    return dev.index


def get_device_name(device=None):
    """The GPU's marketing name, e.g. 'NVIDIA H100 80GB HBM3'."""
    name = _cupy("labkit.cuda.get_device_name()").cuda.runtime.getDeviceProperties(
        _index(device))["name"]
    return name.decode() if isinstance(name, bytes) else name


def memory_allocated(device=None):
    """Bytes held by live tensors on the GPU (cupy's memory pool: blocks in use)."""
    cp = _cupy("labkit.cuda.memory_allocated()")
    with cp.cuda.Device(_index(device)):
        return cp.get_default_memory_pool().used_bytes()


def memory_reserved(device=None):
    """Bytes the caching allocator holds from the GPU: in use plus cached for reuse.

    Freed tensors return their blocks to the cache, not to the GPU, so reserved >= allocated;
    nvidia-smi shows the reserved figure.
    """
    cp = _cupy("labkit.cuda.memory_reserved()")
    with cp.cuda.Device(_index(device)):
        return cp.get_default_memory_pool().total_bytes()


_peak = {}   # GPU index -> the most bytes in use seen by the tracking allocator


def _track_peak(cp):
    """Route cupy's allocations through a wrapper that notes the pool's bytes in use after
    each one. Installed on the first peak query, so nothing is paid until then."""
    if _peak.get("installed"):
        return
    pool = cp.get_default_memory_pool()

    def malloc(size):
        mem = pool.malloc(size)
        dev = cp.cuda.runtime.getDevice()
        used = pool.used_bytes()
        if used > _peak.get(dev, 0):
            _peak[dev] = used
        return mem
    cp.cuda.set_allocator(malloc)
    _peak["installed"] = True


def max_memory_allocated(device=None):
    """The most bytes live tensors held on the GPU since reset_peak_memory_stats() (or since
    the first call of either: labkit starts counting then, torch at program start)."""
    cp = _cupy("labkit.cuda.max_memory_allocated()")
    _track_peak(cp)
    idx = _index(device)
    with cp.cuda.Device(idx):
        _peak[idx] = max(_peak.get(idx, 0), cp.get_default_memory_pool().used_bytes())
    return _peak[idx]


def reset_peak_memory_stats(device=None):
    """Start the peak of max_memory_allocated() again from the bytes in use now."""
    cp = _cupy("labkit.cuda.reset_peak_memory_stats()")
    _track_peak(cp)
    idx = _index(device)
    with cp.cuda.Device(idx):
        _peak[idx] = cp.get_default_memory_pool().used_bytes()


def empty_cache():
    """Give cached, unused GPU memory back to the driver (allocated memory is untouched)."""
    if _device.cuda_available():
        _device._cupy.get_default_memory_pool().free_all_blocks()
        _device._cupy.get_default_pinned_memory_pool().free_all_blocks()


from .engine.memory import OutOfMemoryError  # noqa: E402  (torch.cuda.OutOfMemoryError too)


class AcceleratorError(RuntimeError):
    """torch.AcceleratorError: an error the GPU reported; error_code is CUDA's number for it."""

    def __init__(self, message, error_code=None):
        super().__init__(message)
        self.error_code = error_code


_CUDA_ERROR_NOT_READY = 600     # cudaErrorNotReady


class Event:
    """A marker in the GPU's queue of work. Two recorded events time the GPU work between them
    on the GPU's own clock, without stopping the CPU in between:

        start, end = Event(enable_timing=True), Event(enable_timing=True)
        start.record(); y = a @ b; end.record()
        end.synchronize(); start.elapsed_time(end)   # milliseconds
    """

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        cp = _cupy("labkit.cuda.Event")
        self.enable_timing = enable_timing
        self._event = cp.cuda.Event(block=blocking, disable_timing=not enable_timing,
                                    interprocess=interprocess)
        self._recorded = False

    def record(self, stream=None):
        """Put the marker into the queue; it completes when the GPU reaches it."""
        self._event.record(stream)
        self._recorded = True

    def synchronize(self):
        """Wait on the CPU until the GPU has reached this event."""
        self._event.synchronize()

    def query(self):
        """True when the GPU has reached this event (never waits)."""
        return self._event.done

    def elapsed_time(self, end_event):
        """Milliseconds of GPU time from this event to `end_event`. Like torch's (CUDA's
        cudaEventElapsedTime), it does not wait: both events must have completed, so call
        end_event.synchronize() first, or it raises AcceleratorError (device not ready)."""
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Event.elapsed_time(): both events need enable_timing=True, e.g. "
                               "labkit.cuda.Event(enable_timing=True).")
        if not (self._recorded and end_event._recorded):
            raise RuntimeError("Event.elapsed_time(): both events must be recorded first: call "
                               "start.record() before the work and end.record() after it.")
        if not (self.query() and end_event.query()):
            raise AcceleratorError(
                "CUDA error: device not ready. Event.elapsed_time(): the GPU has not reached "
                "the end event yet (its work is still queued), so there is no time to read. "
                "Wait for it first: end.synchronize() (or labkit.cuda.synchronize()), then "
                "start.elapsed_time(end). PyTorch raises this error too.",
                error_code=_CUDA_ERROR_NOT_READY)
        return float(_device._cupy.cuda.get_elapsed_time(self._event, end_event._event))

    def __repr__(self):
        return f"<labkit.cuda.Event enable_timing={self.enable_timing} recorded={self._recorded}>"


__all__ = ["AcceleratorError", "OutOfMemoryError", "Event", "current_device", "device_count", "empty_cache",
           "get_device_name", "is_available", "manual_seed", "manual_seed_all", "memory_allocated",
           "memory_reserved", "synchronize"]


from .legacy import CUDA_TYPES as _CUDA_TYPES  # noqa: E402  (legacy torch.cuda.FloatTensor & co.)
globals().update(_CUDA_TYPES)


from .amp import cuda_amp as amp  # noqa: E402  (labkit.cuda.amp.autocast, as torch.cuda.amp)
__import__("sys").modules[__name__ + ".amp"] = amp
