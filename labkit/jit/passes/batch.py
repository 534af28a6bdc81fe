"""Batching the local derivatives of small elementwise ops (horizontal fusion).

A backward through a chain of tanh (or sigmoid) ops multiplies the incoming gradient by each
op's derivative, 1 - y**2, computed from the op's forward output y. Those derivatives depend
on forward values only, so they need not wait for the gradient: when every y is ready before
the first derivative is needed (all forward, then all backward), the forward writes each y into
one row of a stacked buffer, and a single op computes every derivative at once. On tiny tensors
each numpy call costs far more than its arithmetic, so n calls become one.

tanh_backward(g, y) is rewritten as g * (1 - y**2): the same value, rounded differently from
the engine's g - g*y*y in the last bit.
"""
from ...engine.ops import arithmetic, table
from ..ir import Node


def batch_derivatives(graph, min_count=4):
    pos = {n: i for i, n in enumerate(graph.nodes)}
    groups = {}
    for node in list(graph.nodes):
        deriv = table.lookup(node.fn, "derivative")
        y = node.args[1] if deriv is not None and len(node.args) == 2 else None
        if y is None or y.node is None or y.node not in pos or y.shape != node.outputs[0].shape:
            continue
        groups.setdefault((deriv, y.shape, y.dtype.str), []).append(node)
    for (deriv, _, _), nodes in groups.items():
        if len(nodes) >= min_count:
            _batch(graph, deriv, nodes)
    return graph


def _batch(graph, deriv, grads):
    pos = {n: i for i, n in enumerate(graph.nodes)}
    ys = list(dict.fromkeys(n.args[1] for n in grads))
    ready = max(pos[y.node] for y in ys)
    first = min(pos[n] for n in grads)
    if ready >= first or any(y.node.fn is None or len(y.node.outputs) != 1 for y in ys) \
            or any(y in graph.outputs for y in ys):
        return
    ds = [graph.new_value(y.shape, y.dtype) for y in ys]
    batched = Node("batched_" + deriv.__name__.lower(), deriv, tuple(ys), ds,
                   meta={"batched": True})
    graph.nodes.insert(ready + 1, batched)
    of = dict(zip(ys, ds))
    for n in grads:
        n.fn, n.kind = arithmetic.Mul, "mul"
        n.args = (n.args[0], of[n.args[1]])
    return batched
