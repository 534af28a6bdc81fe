"""torch._dynamo: the calls programs make around torch.compile. labkit's compile runs eagerly
(see labkit/_compile.py), so there is no graph to reset, break or mark dynamic: these keep the
program running with the same results."""
from . import config  # noqa: F401


def reset():
    """Forget compiled graphs (labkit keeps none)."""


def is_compiling():
    return False


def graph_break():
    """A graph break (labkit's eager compile has no graph to break)."""


def _mark(t, index, **kwargs):
    from ..engine.tensor import Tensor
    if not isinstance(t, Tensor):
        raise TypeError(f"expected a Tensor to mark, got {type(t).__name__}")


def mark_dynamic(t, index, **kwargs):
    _mark(t, index, **kwargs)


def maybe_mark_dynamic(t, index):
    _mark(t, index)


def mark_static(t, index=None):
    _mark(t, index)


def disable(fn=None, recursive=True, *, reason=None, wrapping=True):
    """Run fn without compiling it: labkit never compiles, so fn itself (or a decorator)."""
    if fn is None:
        return lambda f: f
    return fn


def allow_in_graph(fn):
    return fn
