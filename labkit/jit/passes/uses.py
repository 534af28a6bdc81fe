"""Who reads each value, and replacing one value by another everywhere it is read."""
from ..ir import Value, map_values, values_in


def users(graph):
    """{Value: [nodes reading it]} over the graph's top-level nodes (blocks' reads count for
    the node holding them)."""
    out = {}
    for node in graph.nodes:
        for v in set(_reads(node)):
            out.setdefault(v, []).append(node)
    return out


def _reads(node):
    yield from node.inputs
    for b in node.blocks:
        for n in b.walk():
            yield from n.inputs
        yield from (v for v in b.outputs if isinstance(v, Value))


def live_roots(graph):
    """Values the outside world sees: outputs and what stores read and write."""
    roots = [v for v in graph.outputs if isinstance(v, Value)]
    for p, v in graph.stores:
        roots += [p, v]
    return roots


def replace_uses(graph, old, new):
    """Every read of `old` (in nodes, blocks, outputs and stores) reads `new` instead."""
    swap = {old: new}

    def fix(v):
        return swap.get(v, v)
    for node in graph.walk():
        node.args = map_values(node.args, fix)
    _fix_block_outputs(graph, fix)
    graph.stores = [(p, fix(v)) for p, v in graph.stores]


def _fix_block_outputs(graph, fix):
    graph.outputs = [fix(v) if isinstance(v, Value) else v for v in graph.outputs]
    for node in graph.nodes:
        for b in node.blocks:
            _fix_block_outputs(b, fix)


__all__ = ["users", "live_roots", "replace_uses", "values_in"]
