"""A transform level: an object the engine calls for every op while it is installed.

The engine hands the installed tracer (engine/hooks.py) each op (`record(cls, args, result)`) and each
escape to Python (`escape(t, what)`). A level passes both on to the level outside it (another
transform, or a labkit.jit tracer), so transforms nest; what a level computes itself (tangents,
batched replays) runs with the outer level installed, so the outer level sees it as ordinary ops.
"""
import warnings

from ..engine import hooks
from ..engine.tensor import Tensor


class Level:
    def __init__(self):
        self.parent = hooks.current_tracer()
        self._t = {}      # id(tensor) -> (tensor, value)
        self._n = {}      # (id(grad_fn), output index) -> value: saved outputs re-wrapped by backward
        self._a = {}      # id(array) -> (array, value)

    def __enter__(self):
        self.parent = hooks.current_tracer()
        self._installed = hooks.tracing(self)
        self._installed.__enter__()
        return self

    def __exit__(self, *exc):
        return self._installed.__exit__(*exc)

    def outside(self, fn, *args):
        """Run fn with the outer level installed: its ops are the outer level's business."""
        with hooks.tracing(self.parent):
            return fn(*args)

    # --- what a level knows about a tensor ------------------------------------------------
    def bind(self, t, value):
        self._t[id(t)] = (t, value)
        self._a[id(t._data)] = (t, value)
        if t.grad_fn is not None:
            self._n[(id(t.grad_fn), t._out_idx)] = (t, value)

    def lookup(self, t):
        """The value bound to t: found by the tensor, the node that made it (backward
        re-wraps a saved output in a new Tensor object), or its array."""
        hit = self._t.get(id(t))
        if hit is None and t.grad_fn is not None:
            hit = self._n.get((id(t.grad_fn), t._out_idx))
        if hit is None:
            hit = self._a.get(id(t._data))
        return None if hit is None else hit[1]

    def lookup_array(self, arr):
        hit = self._a.get(id(arr))
        return None if hit is None else hit[1]

    def record(self, cls, args, result):
        if self.parent is not None:
            self.parent.record(cls, args, result)

    def escape(self, t, what):
        if self.parent is not None:
            self.parent.escape(t, what)


class _Running:
    """How many transforms are running (nested calls): only the outermost cleans up."""
    depth = 0

    def __enter__(self):
        _Running.depth += 1

    def __exit__(self, *exc):
        _Running.depth -= 1


running = _Running()


_warned = set()


def warn_once(kind, cls, what):
    if (kind, cls) in _warned:
        return
    _warned.add((kind, cls))
    warnings.warn(f"labkit.func.{kind}: the op {getattr(cls, 'op_name', None) or cls.__name__} has "
                  f"no {what} rule, so it falls back to a slower way. Add a `{kind}` rule to its "
                  "Function (beside forward and backward) to make it fast.", UserWarning,
                  stacklevel=3)


def outputs_of(result):
    return result if isinstance(result, tuple) else (result,)


def is_float(t):
    return isinstance(t, Tensor) and t._data.dtype.kind == "f"
