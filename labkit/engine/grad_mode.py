"""Grad mode: whether ops record the graph (no_grad, enable_grad, set_grad_enabled).

As in torch, grad mode is per thread: `no_grad` in one thread (an optimizer step, an
evaluation loop) leaves recording on in every other thread. So are the jit tracer and the
observers (viz, jit) that watch the ops this thread records. Anomaly mode is process-wide,
as torch's is."""
import functools
import threading


class _Mode(threading.local):
    """One instance, attributes per thread (__init__ runs again in each new thread)."""
    anomaly = False   # a class attribute: process-wide (set it with set_anomaly)
    saved_hooks = None  # (pack, unpack) per thread inside saved_tensors_hooks

    def __init__(self):
        self.enabled = True
        self.tracer = None       # set by labkit.jit while tracing: sees every op and every escape
        self.op_observers = []   # fn(node, args, outputs) for every op this thread records
        self.node_observers = []  # fn(node, grads) for every node this thread's backward runs


mode = _Mode()  # read by Function.apply on every op: one attribute lookup


def set_anomaly(value):
    """Anomaly mode on or off in every thread (torch's is process-wide too)."""
    _Mode.anomaly = bool(value)


class Observers:
    """A registry of callbacks that reads like a list but holds one list per thread: a
    recorder installed in one thread never sees (or slows) the ops of another."""

    def __init__(self, attr):
        self._attr = attr

    def append(self, fn):
        getattr(mode, self._attr).append(fn)

    def remove(self, fn):
        getattr(mode, self._attr).remove(fn)

    def __iter__(self):
        return iter(list(getattr(mode, self._attr)))

    def __len__(self):
        return len(getattr(mode, self._attr))

    def __bool__(self):
        return bool(getattr(mode, self._attr))

    def __eq__(self, other):
        return list(self) == list(other)

    __hash__ = None


def is_grad_enabled():
    return mode.enabled


class _Switch:
    """Set recording to `value` inside a with-block, or around every call of a decorated fn."""
    value = None

    def __new__(cls, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and cls is not set_grad_enabled:
            return cls()(args[0])  # used as @no_grad, without parentheses
        return super().__new__(cls)

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
            prev = mode.enabled
            mode.enabled = value
            try:
                return fn(*args, **kwargs)
            finally:
                mode.enabled = prev
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


class set_grad_enabled(_Switch):
    """Turn recording on or off: takes effect at once as a call, or scoped as a with-block or
    a decorator (as in torch)."""

    def __init__(self, enabled):
        self.value = bool(enabled)
        self.prev = mode.enabled
        mode.enabled = self.value

    def __enter__(self):
        return self

    def __call__(self, fn):
        mode.enabled = self.prev  # used as a decorator: do not change the mode now
        return super().__call__(fn)
