"""Algebraic simplification: a number that scales a matrix product scales its smaller factor.

(A @ B) * s = A @ (B * s): the same value (rounded differently in the last bit), but the
multiplication touches the smaller array. A training step meets this in every SGD update:
lr * (x.T @ grad_h) scales a 1000 x 100 gradient, x.T @ (lr * grad_h) a 64 x 100 one.
"""
from ...engine.ops import arithmetic
from ..ops import is_matmul
from .uses import live_roots, replace_uses, users


def _numel(v):
    n = 1
    for d in v.shape:
        n *= d
    return n


def scale_smaller_factor(graph):
    use, roots = users(graph), set(live_roots(graph))
    for node in list(graph.nodes):
        if node.fn is not arithmetic.Mul or len(node.args) != 2:
            continue
        prod, s = node.args
        if type(s) is not float or prod.node is None or not is_matmul(prod.node.fn):
            continue
        mm = prod.node
        if len(use.get(prod, [])) != 1 or prod in roots or len(prod.shape or ()) != 2:
            continue
        a, b = mm.args
        small = min((a, b), key=_numel)
        if _numel(small) >= _numel(prod) or small.dtype != prod.dtype:
            continue
        scaled = graph.new_value(small.shape, small.dtype)
        where = graph.nodes.index(mm)
        graph.nodes.insert(where, _mul_node(graph, small, s, scaled))
        mm.args = (scaled, b) if small is a else (a, scaled)
        replace_uses(graph, node.outputs[0], prod)
        graph.nodes.remove(node)
    return graph


def _mul_node(graph, x, s, out):
    from ..ir import Node
    return Node("mul", arithmetic.Mul, (x, s), [out], meta={"tuple": False})
