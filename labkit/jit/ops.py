"""What the JIT asks about an op, answered by the op table (engine/ops/table.py): its printed
name, whether it may join a fused group, whether it may write over its input, whether it is a
matrix product. Nothing here is per op: a new op declares itself on its Function.
"""
from ..engine.ops import linalg, table
from ..engine.ops.linear import Linear

kind_of = table.name          # the name a node of this Function prints with
LINEAR = Linear


def elementwise(fn):
    """Whether nodes of fn may join a fused elementwise group."""
    return table.lookup(fn, "elementwise")


def inplace_ok(fn):
    """Elementwise ops with a numpy template may write their result over an input of their
    own shape."""
    return table.lookup(fn, "elementwise") and isinstance(table.lookup(fn, "numpy"), table.Numpy) \
        and not table.lookup(fn, "numpy").view


def is_matmul(fn):
    """A matrix product (mm, matmul, mv, dot): what the addmm fusion and the algebra pass
    look for."""
    return isinstance(fn, type) and issubclass(fn, linalg.MatMul)
