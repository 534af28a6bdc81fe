"""labkit.cond: a branch that is part of the graph (torch.cond, jax.lax.cond).

Eagerly it runs the side pred picks. While a graph is captured (labkit.export, jit.trace,
jit.compile) both sides are traced and become an If node holding two blocks, so the choice is
made again on every call instead of frozen. Under vmap both sides run and labkit.where picks,
example by example.
"""
from ..engine.hooks import current_tracer
from ..engine.tensor import Tensor


def _leaves(out, side):
    leaves = out if isinstance(out, (tuple, list)) else (out,)
    for o in leaves:
        if not isinstance(o, Tensor):
            raise TypeError(f"labkit.cond: {side} must return tensors, got {type(o).__name__}.")
    return tuple(leaves)


def cond(pred, true_fn, false_fn, operands=()):
    """true_fn(*operands) if pred else false_fn(*operands), recorded as one If node."""
    operands = tuple(operands)
    if isinstance(pred, Tensor) and pred.numel() != 1:
        raise RuntimeError(f"labkit.cond: pred must be a bool or a one-element tensor, got shape "
                           f"{tuple(pred.shape)}; reduce it first (e.g. (x > 0).all()).")
    tracer = current_tracer()
    if tracer is None or not isinstance(pred, Tensor):
        return true_fn(*operands) if bool(pred) else false_fn(*operands)
    from ..jit.tracer import Tracer
    if not isinstance(tracer, Tracer):             # a labkit.func level: both sides, then where
        from ..engine.ops.select import where
        t = _leaves(true_fn(*operands), "true_fn")
        f = _leaves(false_fn(*operands), "false_fn")
        out = tuple(where(pred.reshape(()), a, b) for a, b in zip(t, f))
        return out if len(out) > 1 else out[0]
    from .capture import ExportTracer
    if tracer.strict and not isinstance(tracer, ExportTracer):
        raise RuntimeError(
            "labkit.cond inside labkit.jit.compile: compile generates straight-line code and "
            "cannot hold an If node yet. Capture the function with labkit.export (or jit.trace, "
            "jit.script) instead, or compile each branch and choose outside the compiled code.")
    return _traced(tracer, pred, true_fn, false_fn, operands)


def _traced(tracer, pred, true_fn, false_fn, operands):
    from ..jit.ir import Graph
    g = tracer.graph
    pv = tracer.value_of(pred)
    sides = []
    for name, fn in (("true_graph", true_fn), ("false_graph", false_fn)):
        saved, g.nodes = g.nodes, []
        try:
            out = fn(*operands)
        finally:
            nodes, g.nodes = g.nodes, saved
        leaves = _leaves(out, name.replace("_graph", "_fn"))
        block = Graph(name)
        block.nodes = nodes
        block.outputs = [tracer.value_of(o) for o in leaves]
        sides.append((block, leaves, out))
    (tb, tl, tout), (fb, fl, _) = sides
    if [(tuple(a.shape), a.dtype) for a in tl] != [(tuple(b.shape), b.dtype) for b in fl]:
        raise RuntimeError(
            "labkit.cond: both branches must return tensors of the same shapes and dtypes, got "
            f"{[tuple(a.shape) for a in tl]} and {[tuple(b.shape) for b in fl]}: the graph has "
            "one output for either side.")
    values = [g.new_value(a._data.shape, a._data.dtype) for a in tl]
    g.add_node("If", None, (pv,), values, blocks=[tb, fb])
    chosen = tl if bool(pred._data) else fl        # the value, read without a tracer escape
    results = tuple(Tensor._make(c._data.copy(), c.device) for c in chosen)
    for r, v in zip(results, values):
        tracer.bind(r, v)
    return results if isinstance(tout, (tuple, list)) else results[0]
