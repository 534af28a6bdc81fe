"""Devices and the array module `xp` behind them.

A Tensor lives on one Device. The Device knows its array module: numpy for
"cpu", cupy for "cuda". Ops call `device.xp`, so one op definition serves both
(Chainer's trick). cupy is imported only when a cuda device is first used.
"""
import numpy as np

_cupy = None
_cuda_ok = None  # cached answer of cuda_available()


def cuda_available():
    """True when cupy imports and sees at least one GPU (never raises)."""
    global _cupy, _cuda_ok
    if _cuda_ok is None:
        try:
            import cupy
            _cuda_ok = cupy.cuda.runtime.getDeviceCount() > 0
            _cupy = cupy if _cuda_ok else None
        except Exception:
            _cuda_ok = False
    return _cuda_ok


def _require_cuda(name):
    if not cuda_available():
        raise RuntimeError(
            f"labkit: device '{name}' was requested, but no CUDA GPU is usable here "
            "(cupy is not installed or sees no GPU). Check with labkit.cuda.is_available() "
            "and fall back to device='cpu'; for a GPU install cupy, e.g. pip install 'labkit[gpu]'.")
    return _cupy


class Device:
    """Where a tensor's data lives: `device(type='cpu')` or `device(type='cuda', index=0)`."""
    __slots__ = ("type", "index", "_xp")
    _cache = {}

    def __new__(cls, spec="cpu", index=None):
        if isinstance(spec, Device):
            return spec
        key = (spec, index)
        dev = cls._cache.get(key)
        if dev is not None:
            return dev
        if type(spec) is int and index is None:    # torch: an int is an accelerator's index
            if spec < 0:                            # (x.to(x.get_device()) on the cpu: -1)
                raise RuntimeError(f"Device index must not be negative (got {spec}); a cpu "
                                   "tensor's get_device() is -1: use x.device, not an index.")
            if not cuda_available():
                raise RuntimeError(f"Cannot access accelerator device when none is available "
                                   f"(device {spec} is an index into the GPUs; this machine "
                                   "has none usable). Use 'cpu'.")
            return cls(f"cuda:{spec}")
        if not isinstance(spec, str):
            raise TypeError(f"labkit.device: expected a string like 'cpu' or 'cuda:0', got {spec!r}")
        kind, _, idx = spec.partition(":")
        if kind not in ("cpu", "cuda", "meta") or (idx and not idx.isdigit()) or \
                (idx and index is not None):
            raise RuntimeError(
                f"labkit.device: unknown device {spec!r}. Use 'cpu', 'cuda' or 'cuda:N' "
                "(N a GPU number, e.g. 'cuda:0'), or 'meta' (shapes without data).")
        if kind == "meta":
            dev = cls._cache.get(("meta", None))
            if dev is None:
                dev = object.__new__(cls)
                dev.type, dev.index, dev._xp = "meta", None, np
                cls._cache[("meta", None)] = dev
        elif kind == "cpu":
            if idx not in ("", "0") or index not in (None, 0):
                raise RuntimeError(f"labkit.device: the cpu has no index {idx or index}; use 'cpu'.")
            dev = cls._cache.get(("cpu", None))
            if dev is None:
                dev = object.__new__(cls)
                dev.type, dev.index, dev._xp = "cpu", None, np
                cls._cache[("cpu", None)] = dev
        else:
            n = int(idx) if idx else (index or 0)
            dev = cls._cache.get(("cuda", n))
            if dev is None:
                dev = object.__new__(cls)
                dev.type, dev.index, dev._xp = "cuda", n, None
                cls._cache[("cuda", n)] = dev
        cls._cache[key] = dev
        return dev

    @property
    def xp(self):
        """The array module for this device (numpy or cupy)."""
        if self._xp is None:
            cp = _require_cuda(str(self))
            if self.index >= cp.cuda.runtime.getDeviceCount():
                raise RuntimeError(f"labkit: device '{self}' does not exist: this machine has "
                                   f"{cp.cuda.runtime.getDeviceCount()} GPU(s).")
            self._xp = cp
        return self._xp

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __reduce__(self):
        return (Device, (str(self),))  # rebuilt by name: the array module itself cannot be pickled

    def __eq__(self, other):
        if isinstance(other, str):
            other = Device(other)
        return self is other

    def __hash__(self):
        return hash(str(self))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        """A device is a place, not data: a deep copy of a tensor lives on the same device
        (without this, copy.deepcopy would try to copy the array module)."""
        return self

    def __enter__(self):
        """`with torch.device('cuda'):` (or 'meta') creates new tensors (and layers'
        parameters) there."""
        from .defaults import defaults
        _entered.append(defaults.device)
        defaults.device = self
        return self

    def __exit__(self, *exc):
        from .defaults import defaults
        defaults.device = _entered.pop()


_entered = []   # the default devices that `with device:` blocks replaced, innermost last


cpu = Device("cpu")


def meta_array(shape, dtype):
    """The storage of a 'meta' tensor: one element seen through zero strides, so shapes and
    dtypes flow through every op (as torch's meta device) while nothing of size is allocated
    for the tensor itself; its values are never shown (printing, item, numpy refuse)."""
    return np.lib.stride_tricks.as_strided(np.zeros(1, dtype), shape, (0,) * len(shape))


def device_of_array(arr):
    """The Device an array lives on (numpy -> cpu, cupy -> its GPU)."""
    if isinstance(arr, np.ndarray):
        return cpu
    return Device("cuda", arr.device.id)


def to_host(arr):
    """`arr` as a numpy array: a GPU array is copied to the host (explicitly, with .get())."""
    if isinstance(arr, np.ndarray):
        return arr
    return arr.get() if hasattr(arr, "get") else np.asarray(arr)


def to_device_array(arr, dev, non_blocking=False):
    """Copy `arr` to device `dev` (explicit transfer; a no-op when already there).

    non_blocking=True makes a host-to-GPU copy asynchronous on the current stream when the
    host array is pinned, so the CPU can queue more work while the copy engine runs; from
    pageable memory the driver must stage the data, so the copy stays synchronous (as in torch).
    """
    if dev.type == "meta":
        return meta_array(arr.shape, arr.dtype)
    if dev.type == "cpu":
        return to_host(arr)
    cp = dev.xp
    with cp.cuda.Device(dev.index):
        if non_blocking and isinstance(arr, np.ndarray) and is_pinned_array(arr):
            out = cp.empty(arr.shape, arr.dtype)
            out.set(np.ascontiguousarray(arr), stream=cp.cuda.get_current_stream())
            return out
        return cp.asarray(arr)


_HOST_PINNED = 1  # cudaMemoryTypeHost: page-locked host memory the GPU can read by DMA


def is_pinned_array(arr):
    """True when a host (numpy) array lives in page-locked memory (False without CUDA)."""
    if not isinstance(arr, np.ndarray) or arr.size == 0 or not cuda_available():
        return False
    try:
        return _cupy.cuda.runtime.pointerGetAttributes(arr.ctypes.data).type == _HOST_PINNED
    except Exception:     # older drivers report ordinary host memory as an error
        return False


def pin_array(arr):
    """A copy of host array `arr` in pinned memory (callers check cuda_available() first:
    pinning is the CUDA driver's job)."""
    import cupyx
    out = cupyx.empty_pinned(arr.shape, arr.dtype)
    out[...] = arr
    return out


def synchronize(dev=None):
    """Wait for the GPU to finish queued work (no-op on cpu)."""
    dev = Device(dev) if dev is not None else None
    if dev is not None and dev.type == "cpu":
        return
    if cuda_available():
        _cupy.cuda.Device(dev.index if dev else 0).synchronize()
