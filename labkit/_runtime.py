"""torch's process-wide switches that programs set once at the top: determinism and thread counts.

labkit's kernels are numpy's (CuPy's on a GPU): every op gives the same numbers run after run, so
`use_deterministic_algorithms(True)` has nothing to forbid; it is recorded and read back.
Threads belong to numpy's BLAS (set OPENBLAS_NUM_THREADS before starting Python): the counts
are recorded for programs that read them back, and change nothing.
"""
import os
import warnings

_state = {"deterministic": False, "warn_only": False,
          "threads": os.cpu_count() or 1, "interop": os.cpu_count() or 1, "matmul_precision": "highest"}


def use_deterministic_algorithms(mode, *, warn_only=False):
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms expects a bool, but got {type(mode).__name__}")
    _state["deterministic"], _state["warn_only"] = mode, bool(warn_only)


def are_deterministic_algorithms_enabled():
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    return _state["warn_only"]


def _positive(name, n):
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise RuntimeError(f"{name}: the number of threads must be a positive integer, got {n!r}")
    return n


def set_num_threads(n):
    _state["threads"] = _positive("set_num_threads", n)


def get_num_threads():
    return _state["threads"]


def set_num_interop_threads(n):
    _state["interop"] = _positive("set_num_interop_threads", n)


def get_num_interop_threads():
    return _state["interop"]


def set_float32_matmul_precision(precision):
    """Recorded and read back: numpy's float32 matmul is always full precision ('highest')."""
    if not isinstance(precision, str):
        raise RuntimeError("set_float32_matmul_precision expects a str, but got "
                           f"{type(precision).__name__}")
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      "set_float32_matmul_precision call has no effect.")
        return
    _state["matmul_precision"] = precision


def get_float32_matmul_precision():
    return _state["matmul_precision"]


def quiet_numpy_float_warnings():
    """torch computes log(0) = -inf, 1/0 = inf, 0/0 = nan silently, but numpy warns from inside
    labkit's ops. Ignore numpy's RuntimeWarnings raised in labkit's own modules (a program's own
    numpy code still warns); a warnings filter costs nothing per op. Installed at import; code
    that resets the warnings filters (warnings.catch_warnings around the import, as pytest
    does) can call this again."""
    warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"labkit(\.|$)")
