"""Capturing a whole forward pass as one graph, with no Python left in it.

The function runs under a tracer that refuses what a graph cannot hold: a tensor read as a
Python value (`if x.sum() > 0`, `.item()`) is an error naming the line, with the fix
(labkit.cond for a branch, labkit.where for an elementwise choice). Sizes marked dynamic are
found by tracing twice, at two sizes: an argument that follows the size (a reshape's target)
becomes symbolic; one that changes any other way, or a graph that changes shape, is an error.
"""
import linecache
import sys

from ..engine.tensor import Tensor
from ..jit import passes
from ..jit.ir import Value
from ..jit.trace import _arg_names, flatten_output
from ..jit.tracer import _LABKIT, Tracer
from ..jit.ir import Graph


class ExportError(RuntimeError):
    """What labkit.export cannot capture faithfully, with where and how to fix it."""


def user_line():
    """'file:line (`code`)' of the first frame outside labkit."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_LABKIT):
        frame = frame.f_back
    if frame is None:
        return "an unknown line"
    name = frame.f_code.co_filename
    code = linecache.getline(name, frame.f_lineno).strip()
    in_notebook = "ipykernel" in name or name.startswith("<")
    where = f"line {frame.f_lineno} of its notebook cell" if in_notebook else f"{name}:{frame.f_lineno}"
    return f"{where} (`{code}`)"


class ExportTracer(Tracer):
    def escape(self, tensor, what):
        raise ExportError(
            f"labkit.export: {what} at {user_line()} turns a tensor into a Python value. An "
            "exported graph holds no Python, so a choice made on a tensor's value (data-dependent "
            "control flow) cannot be captured. Fix: write the branch as labkit.cond(pred, "
            "true_fn, false_fn, (x,)), which keeps both sides in the graph, or use "
            "labkit.where(cond, a, b) for an elementwise choice.")


def record(fn, args, kwargs, names):
    """(graph, eager output, tracer) for fn(*args, **kwargs) captured whole."""
    graph = Graph("forward")
    tracer = ExportTracer(graph, params=names, strict=True)
    target = getattr(fn, "forward", fn)
    arg_names = _arg_names(target, len(args))
    for t, n in zip(args, arg_names):
        if not isinstance(t, Tensor):
            raise ExportError(f"labkit.export: argument {n!r} is a {type(t).__name__}; export "
                              "takes tensors as inputs (fix other values by closing over them).")
        v = graph.add_input(n, t._data.shape, t._data.dtype)
        tracer.bind(t, v)
        tracer.external[id(t)] = (t, v)
    with tracer:
        out = fn(*args, **(kwargs or {}))
    graph.outputs, rebuild = flatten_output(out, tracer)
    if tracer.mutated:
        raise ExportError("labkit.export: the function changes captured tensors in place "
                          "(e.g. a running statistic); export captures pure forward passes. "
                          "Call model.eval() first, or return the new value instead.")
    passes.dead_code(graph)
    return graph, rebuild, arg_names


def text(sym):
    """How a symbolic size prints: batch, 3*batch, batch + 1."""
    name, k, c = sym
    out = name if k == 1 else f"{k}*{name}"
    return out if c == 0 else f"{out} {'+' if c > 0 else '-'} {abs(c)}"


# --- symbolic sizes, from two traces -------------------------------------------------------
def symbolize(g1, g2, sizes):
    """Compare two captures made at two sizes of the dynamic dims ({(s1, s2): name}).
    Returns ({node path: {arg path: (name, k, c)}}, {value name: shape with names}); raises where the
    graphs differ in a way a symbol cannot express."""
    sym_args, sym_shapes, pairs = {}, {}, {}

    def name_of(a, b):
        """(dim name, k, c) with a = k * s1 + c and b = k * s2 + c, for the one dim that fits."""
        if not (isinstance(a, int) and isinstance(b, int)) or a == b:
            return None
        fits = []
        for (s1, s2), name in sizes.items():
            k, rest = divmod(b - a, s2 - s1)
            if rest == 0 and k > 0:
                fits.append((name, k, a - k * s1))
        return fits[0] if len(fits) == 1 else None

    def shape_of(v1, v2):
        if v1.shape is None or v2.shape is None or len(v1.shape) != len(v2.shape):
            raise ExportError(f"labkit.export: the rank of %{v1.name} changes with the dynamic "
                              "sizes; an exported graph needs a fixed rank.")
        out = []
        for a, b in zip(v1.shape, v2.shape):
            sym = name_of(a, b)
            if a == b:
                out.append(a)
            elif sym is not None:
                out.append(text(sym))
            else:
                raise ExportError(
                    f"labkit.export: the size {a} of %{v1.name} depends on a dynamic dimension "
                    f"in a way export cannot name (it became {b}, not one of the dynamic sizes). "
                    "Keep that dimension static, or compute with the dimension itself.")
        if any(isinstance(s, str) for s in out):
            sym_shapes[v1.name] = tuple(out)

    def same_arg(a, b, where, path, found):
        if isinstance(a, Value):
            if not isinstance(b, Value) or pairs.get(id(a), b) is not b:
                raise ExportError(f"labkit.export: {where} reads different values at the two "
                                  "sizes: the graph changes with the dynamic dimension.")
            return
        if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b)):
                same_arg(x, y, where, path + (i,), found)
            return
        if hasattr(a, "shape") and hasattr(b, "shape"):
            if a.shape != b.shape:
                raise ExportError(f"labkit.export: {where} uses a constant array whose shape "
                                  "follows a dynamic dimension; build it with tensor ops instead.")
            return
        try:
            equal = bool(a == b)
        except (TypeError, ValueError):
            equal = a is b
        if equal:
            return
        sym = name_of(a, b)
        if sym is not None:
            found[path] = sym
            return
        raise ExportError(
            f"labkit.export: {where} has the argument {a!r} at one size and {b!r} at the other; "
            "it depends on a dynamic dimension in a way export cannot name. Use -1 in reshapes, "
            "or keep that dimension static.")

    def walk(b1, b2, prefix):
        for v1, v2 in zip(b1.inputs, b2.inputs):
            pairs[id(v1)] = v2
        for v1, v2 in zip(b1.constants, b2.constants):
            if v1.shape != v2.shape:
                raise ExportError(
                    f"labkit.export: a constant array whose shape follows a dynamic dimension "
                    f"({v1.shape} at one size, {v2.shape} at the other): it was built outside "
                    "tensor ops (e.g. labkit.ones(n) from a size). Build it from the input "
                    "instead (x.new_ones / ones_like / expand), or keep the dimension static.")
            pairs[id(v1)] = v2
        if len(b1.nodes) != len(b2.nodes):
            raise ExportError("labkit.export: the graph has a different number of ops at the two "
                              "sizes of a dynamic dimension (a Python loop over a size?). Keep "
                              "that dimension static.")
        for i, (n1, n2) in enumerate(zip(b1.nodes, b2.nodes)):
            where = f"the op {n1.kind}"
            if n1.kind != n2.kind or n1.fn is not n2.fn:
                raise ExportError(f"labkit.export: {where} becomes {n2.kind} at another size of "
                                  "a dynamic dimension; the graph must not depend on it.")
            found = {}
            same_arg(n1.args, n2.args, where, (), found)
            if found:
                sym_args[prefix + (i,)] = found
            for v1, v2 in zip(n1.outputs, n2.outputs):
                pairs[id(v1)] = v2
                shape_of(v1, v2)
            for j, (c1, c2) in enumerate(zip(n1.blocks, n2.blocks)):
                walk(c1, c2, prefix + (i, j))
    for v1, v2 in zip(g1.inputs, g2.inputs):
        shape_of(v1, v2)
    walk(g1, g2, ())
    return sym_args, sym_shapes
