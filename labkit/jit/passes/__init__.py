"""Graph passes: each takes a Graph, changes it in place, and returns it.

A static graph is optimised once, before it runs many times: that is what it buys over
define-by-run, where every iteration sees only the op at hand.
"""
from .algebra import scale_smaller_factor
from .batch import batch_derivatives
from .cse import common_subexpressions
from .dce import dead_code
from .fold import fold_constants
from .fuse import fuse_elementwise, fuse_matmul

PIPELINE = (fold_constants, common_subexpressions, dead_code, scale_smaller_factor, fuse_matmul,
            batch_derivatives, fuse_elementwise)


def optimize(graph, passes=PIPELINE, copy=False):
    """Run the passes in order; with copy=True on a copy (the original stays as it was)."""
    if copy:
        from ..ir import copy_graph
        graph = copy_graph(graph)
    for p in passes:
        p(graph)
    return graph


__all__ = ["dead_code", "common_subexpressions", "fold_constants", "fuse_elementwise",
           "fuse_matmul", "batch_derivatives", "scale_smaller_factor", "optimize", "PIPELINE"]
