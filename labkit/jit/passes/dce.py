"""Dead-code elimination: drop nodes whose outputs nobody reads (in blocks too)."""
from ..ir import Value
from .uses import live_roots


def dead_code(graph):
    live = set(live_roots(graph))
    _sweep(graph, live)
    used = set()
    for n in graph.walk():
        used.update(n.inputs)
    graph.constants = [c for c in graph.constants if c in used or c in live]
    return graph


def _sweep(graph, live):
    live.update(v for v in graph.outputs if isinstance(v, Value))
    kept = []
    for node in reversed(graph.nodes):
        if any(v in live for v in node.outputs):
            kept.append(node)
            for b in node.blocks:
                _sweep(b, live)
            live.update(node.inputs)
    graph.nodes = kept[::-1]
