"""Grad mode: whether ops record the graph (no_grad, enable_grad, set_grad_enabled).

As in torch, grad mode is per thread: `no_grad` in one thread (an optimizer step, an
evaluation loop) leaves recording on in every other thread. So are the engine hooks (the jit
tracer, the viz and profiler hooks that watch this thread's ops; see hooks.py). Anomaly mode
is process-wide, as torch's is."""
import functools
import threading


class _Mode(threading.local):
    """One instance, attributes per thread (__init__ runs again in each new thread). The
    engine hooks (labkit.engine.hooks registers them) live here, read once per op."""
    anomaly = False   # a class attribute: process-wide (set it with set_anomaly)

    def __init__(self):
        self.enabled = True
        self.inference = False   # inside inference_mode() (is_inference_mode_enabled)
        self.tracer = None       # sees every op and every escape (hooks.tracing installs it)
        self.op_hooks = ()       # fn(node, args, outputs) for every op this thread records
        self.node_hooks = ()     # fn(node, grads) for every node this thread's backward runs
        self.saved_hooks = None  # (pack, unpack) for tensors saved for backward


mode = _Mode()  # read by Function.apply on every op: one attribute lookup


class _Process:
    """Process-wide switches, read on every op: a plain object is cheaper than mode's
    per-thread lookup. Instance attributes, set in __init__ (not class defaults): on
    Python 3.11 only those get the interpreter's fast attribute read."""

    def __init__(self):
        self.anomaly = False
        self.post_accumulate_hooks = 0   # alive anywhere: backward then runs each leaf's
        #                                  AccumulateGrad as soon as its gradient is complete
        self.hooked = 0   # engine hooks (tracers, op/node/saved-tensor hooks) installed in any
        #                   thread: while 0 the engine does not read them from `mode` (each
        #                   per-thread read costs about 50 ns, a plain attribute 10)
        self.complex_check = None   # fn(cls, args) once a complex tensor exists (it counts
        #                             in hooked): refuses ops torch has no complex kernel for


process = _Process()


def set_anomaly(value):
    """Anomaly mode on or off in every thread (torch's is process-wide too)."""
    _Mode.anomaly = process.anomaly = bool(value)


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
    """no_grad that also says so to is_inference_mode_enabled() (PyTorch adds speed-ups and
    marks the tensors made inside; labkit does neither)."""

    def __init__(self, mode=True):
        self.value = not mode

    def __enter__(self):
        self.prev_inference = mode.inference
        mode.inference = not self.value
        return super().__enter__()

    def __exit__(self, *exc):
        mode.inference = self.prev_inference
        return super().__exit__(*exc)

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(not self.value):
                return fn(*args, **kwargs)
        return wrapper


def is_inference_mode_enabled():
    return mode.inference


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
