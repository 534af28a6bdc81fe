"""labkit.autocast: run the ops that tolerate it in float16/bfloat16, the rest in float32.

A region (context manager or decorator) sets, for one device type and this thread, the
low-precision dtype; each op's entry point casts its inputs by torch's per-op policy
(labkit/engine/autocast.py holds the lists). Regions nest; enabled=False inside one turns
autocast off for that inner block, as in torch.

Where labkit differs from torch: an unsupported dtype raises (torch warns and runs without
autocast); casts of weights are not cached within a region (the same values and gradients,
one more cast per use); on cuda exp/log/pow/sum are not in labkit's float32 list.
"""
import functools
import warnings

from ..engine import dtype as _dt
from ..engine.autocast import state

_DEFAULT = {"cpu": "bfloat16", "cuda": "float16"}
_SUPPORTED = {"cpu": ("bfloat16", "float16"), "cuda": ("float16", "bfloat16")}


class autocast:
    """autocast(device_type, dtype=None, enabled=True, cache_enabled=None), as torch.autocast."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str) or device_type not in _DEFAULT:
            raise RuntimeError(
                f"autocast: device_type must be 'cpu' or 'cuda', got {device_type!r}. "
                "Pass the type of the device your tensors live on, e.g. "
                "autocast(device_type='cpu', dtype=labkit.bfloat16).")
        name = _DEFAULT[device_type] if dtype is None else getattr(dtype, "name", str(dtype))
        if name not in _SUPPORTED[device_type]:
            raise RuntimeError(
                f"autocast: dtype {dtype} is not supported on {device_type}; autocast runs "
                f"ops in a lower precision: use one of "
                f"{', '.join('labkit.' + d for d in _SUPPORTED[device_type])}.")
        self.device_type = device_type
        self.fast_dtype = getattr(_dt, name)
        self._enabled = bool(enabled)
        if enabled and device_type == "cuda":
            from .. import cuda
            if not cuda.is_available():
                warnings.warn("autocast: device_type 'cuda' but no CUDA GPU is usable here: "
                              "autocast is disabled (as torch does). Use device_type='cpu'.")
                self._enabled = False
        self._prev = []

    def __enter__(self):
        dtypes = state.dtypes
        self._prev.append(dtypes.get(self.device_type))
        if self._enabled:
            dtypes[self.device_type] = self.fast_dtype.np
        else:
            dtypes.pop(self.device_type, None)
        return self

    def __exit__(self, *exc):
        prev = self._prev.pop()
        if prev is None:
            state.dtypes.pop(self.device_type, None)
        else:
            state.dtypes[self.device_type] = prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def autocast_wrapper(*args, **kwargs):
            with autocast(self.device_type, self.fast_dtype, self._enabled):
                return fn(*args, **kwargs)
        return autocast_wrapper


def is_autocast_enabled(device_type="cuda"):
    return device_type in state.dtypes


def get_autocast_dtype(device_type):
    if device_type not in _DEFAULT:
        raise RuntimeError(f"get_autocast_dtype: unknown device type {device_type!r}")
    np_dtype = state.dtypes.get(device_type)
    return getattr(_dt, _DEFAULT[device_type]) if np_dtype is None else _dt.from_np(np_dtype)
