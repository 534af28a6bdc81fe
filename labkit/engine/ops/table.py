"""The op table: what every part of labkit knows about an op, declared once, on the op's
Function beside its forward and backward. A backend looks its entry up there and nowhere else
(tinygrad's `code_for_op` is the model), so a new op is one class in one file.

    op_name      the public name: graphs print it, errors say it ('sum', 'tanh_backward');
                 default: the class name in snake_case
    node_name    grad_fn's class name, torch's ('MulBackward0'; see function.py)
    arity        how many operands (tensors or numbers) an elementwise op takes
    elementwise  True: maps elements to elements of one shape, so it may join a fused group
    numpy        Numpy(...): the generated program's numpy/CuPy code        default CALL
    cuda         the C expression of a fused CUDA kernel: operands {0}, {1} ..., {ctype};
                 or a function (operands, node, ctype) -> str                default UNSUPPORTED
    onnx         the ONNX operator: a name (same operands, in order) or a function
                 (writer, node, outputs) that writes the nodes               default UNSUPPORTED
    jvp, vmap    the forward-mode tangent and batching rules (rules.py)     default FALLBACK
    derivative   for a backward op g * f'(y): the op computing f'(y) from y alone (the jit
                 computes many at once)

An entry is found the way Python finds a method, except that a subclass which overrides
forward does not inherit its parent's (it computes something else); op_name and node_name are
plain class attributes. `ops()` lists the rows; tests/test_op_table.py checks every row.
"""
import re

from ..function import Function


class _Marker:
    def __init__(self, name, meaning):
        self.name, self.__doc__ = name, meaning

    def __repr__(self):
        return self.name


CALL = _Marker("CALL", "numpy: the generated program calls the op's forward (on stand-ins)")
UNSUPPORTED = _Marker("UNSUPPORTED", "the backend cannot handle the op: an Unsupported error")
FALLBACK = _Marker("FALLBACK", "jvp/vmap: no rule; labkit.func derives it (slower) and warns, "
                               "naming the op")

BACKENDS = {"numpy": CALL, "cuda": UNSUPPORTED, "onnx": UNSUPPORTED, "jvp": FALLBACK,
            "vmap": FALLBACK}
_DEFAULTS = dict(BACKENDS, arity=None, elementwise=False, derivative=None)


class Unsupported(NotImplementedError):
    """A backend met an op it has no form for; the message names both."""


_WHY = {
    "cuda": "no CUDA form for {op!r} in a fused group (give its Function a `cuda` expression)",
    "onnx": "labkit.onnx.export: no ONNX form for the op {op!r} yet. Export the inference "
            "model (no loss, no backward), or rewrite that part with common ops.",
}


class Numpy:
    """How the code generator writes an op. `code`: a format string of one call ({0}, {1}
    ...: the operands; {out}: the buffer to write; {shape}: the output's shape), or a function
    (gen, node, name, out) -> lines. `when(node)`: whether it applies to this node (else the
    program calls the op's forward). A `view` is an expression on its input, with no buffer
    (its function returns that expression)."""

    def __init__(self, code, when=None, view=False, calls=()):
        self.code, self.when, self.view = code, when, view
        found = re.findall(r"(?<![.\w])([a-z_]\w*)\(", code) if isinstance(code, str) else []
        self.calls = tuple(dict.fromkeys(found + list(calls)))   # the xp functions it uses
        CALLS.update(dict.fromkeys(self.calls))


CALLS = {}      # every xp function some template calls (an ordered set): generated code's names


def snake(name):
    """'CrossEntropy' -> 'cross_entropy'."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name.lstrip("_")).lower()


def name(cls):
    """The op's public name (what a graph node prints)."""
    return getattr(cls, "op_name", None) or snake(cls.__name__)


def lookup(cls, field):
    """cls's entry for a backend (or field), or its default (a marker for a backend). Only a
    Function has entries (a graph node may call a method or a Module). Entries are declared in
    the class body: each is read once, then remembered."""
    try:
        return _seen[cls, field]
    except (KeyError, TypeError):         # TypeError: an unhashable fn (never a Function)
        pass
    entry = _DEFAULTS[field]
    if isinstance(cls, type) and issubclass(cls, Function):
        for k in cls.__mro__:
            if field in k.__dict__:
                entry = getattr(cls, field)
                break
            if "forward" in k.__dict__:
                break
        _seen[cls, field] = entry
    return entry


_seen = {}       # (Function class, field) -> entry


def unsupported(backend, op):
    """The error a backend raises for an op (by its name) it has no form for."""
    return Unsupported(_WHY[backend].format(op=op))


def require(cls, backend, op=None):
    """cls's entry for a backend; an Unsupported error naming both when it has none."""
    entry = lookup(cls, backend)
    if entry is UNSUPPORTED:
        raise unsupported(backend, op or name(cls))
    return entry


def ops(everywhere=False):
    """Every Function subclass labkit defines (the op table's rows); everywhere=True: those
    defined anywhere (a user's op has rows too)."""
    seen, todo = {}, [Function]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in seen:
                seen[sub] = None
                todo.append(sub)
    return [c for c in seen if everywhere or c.__module__.startswith("labkit.")]
