"""Read-only views of the engine's recorded graph: the one place viz reads engine internals.

The engine keeps what backward needs in private fields, laid out for speed. Everything else in
labkit.viz goes through these few functions, so an engine change touches one file here.
"""
from ..engine.function import AccumulateGrad


def name(node):
    """The node's class name, as PyTorch prints it: MulBackward0, AccumulateGrad ..."""
    return type(node).__name__


def inputs(node):
    """The nodes that feed this one, as (node, output index), skipping inputs without grad."""
    return [(n, i) for n, i in node.next_functions if n is not None]


def leaf_of(node):
    """The leaf tensor an AccumulateGrad node writes .grad into (None for other nodes)."""
    return node.variable if type(node) is AccumulateGrad else None


def saved(node):
    """What the node keeps for backward, as (kind, value, tensor): Node.saved_values()."""
    return node.saved_values()


def freed(node):
    """True once a backward without retain_graph has released the node's saved tensors."""
    return bool(node._freed)
