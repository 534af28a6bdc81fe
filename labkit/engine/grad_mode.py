"""Grad mode: whether ops record the graph (no_grad, enable_grad, set_grad_enabled)."""
import functools


class _Mode:
    __slots__ = ("enabled", "anomaly")

    def __init__(self):
        self.enabled = True
        self.anomaly = False


mode = _Mode()  # read by Function.apply on every op: one attribute lookup


def is_grad_enabled():
    return mode.enabled


class set_grad_enabled:
    """Turn graph recording on or off: a function call, a context manager, or a decorator."""

    def __init__(self, enabled):
        self.prev = mode.enabled
        self.value = bool(enabled)
        mode.enabled = self.value

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        mode.enabled = self.prev
        return False

    def __call__(self, fn):
        mode.enabled = self.prev  # used as a decorator: do not change the mode now
        value = self.value

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(value):
                return fn(*args, **kwargs)
        return wrapper


class _Switch:
    value = None

    def __enter__(self):
        self.prev = mode.enabled
        mode.enabled = self.value
        return self

    def __exit__(self, *exc):
        mode.enabled = self.prev
        return False

    def __call__(self, fn):
        value = self.value

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(value):
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_Switch):
    """Run without recording the graph: for parameter updates and inference."""
    value = False


class enable_grad(_Switch):
    """Record the graph again inside a no_grad block."""
    value = True


class inference_mode(no_grad):
    """Same as no_grad here (PyTorch adds extra speed-ups; labkit has no need)."""

    def __init__(self, mode=True):
        self.value = not mode
