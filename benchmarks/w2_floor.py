"""W2's floor in pure Python: the same 100-op chain (add, mul, tanh on 16 floats, forward and
backward) on a minimal engine that keeps labkit's bookkeeping and nothing else (a node per op
with its edges and needs, saved arrays with a version check, each gradient's shape and dtype
checked, the walk in reverse creation order through a heap, gradients summed per node), next
to labkit and numpy's forward alone, interleaved in one run.

What the minimal engine leaves out is labkit's API and safety around the same work: Function
and ctx (save_for_backward, saved_tensors), grad mode per thread, hooks and tracers, devices
and dtype promotion, leaf accumulation into .grad. So its ratio is about as low as an eager
engine written in CPython 3.11 gets on this chain, and the gap to labkit is what the API costs.
"""
import itertools
from heapq import heappop, heappush

import numpy as np

import labkit
from timing import compare, report
from w2_op_chain import A, B, N_OPS, X, make_chain, numpy_forward

_new = object.__new__
_seq = itertools.count()
_ONE = np.ones((), np.float32)


class T:
    """A tensor: its array, the node that made it, whether it requires grad, its version."""
    __slots__ = ("d", "fn", "rg", "vc")


class Node:
    __slots__ = ("edges", "needs", "saved", "seq", "shape", "dtype")


class AddNode(Node):
    __slots__ = ()

    def back(self, g):
        return g, g


class MulNode(Node):
    __slots__ = ()

    def back(self, g):
        b, vc, version = self.saved
        if vc[0] != version:
            raise RuntimeError("a saved tensor was changed in place")
        return (g * b.d if self.needs[0] else None), None   # (b: the chain's constant)


class TanhNode(Node):
    __slots__ = ()

    def back(self, g):
        y, vc, version = self.saved
        if vc[0] != version:
            raise RuntimeError("a saved tensor was changed in place")
        return (g * (_ONE - y * y),)


def tensor(d, rg=False, fn=None):
    t = _new(T)
    t.d, t.fn, t.rg, t.vc = d, fn, rg, None
    return t


def record(cls, out, args):
    node = _new(cls)
    node.edges = [(a.fn, 0) if a.rg else None for a in args]
    node.needs = tuple(a.rg for a in args)
    node.shape, node.dtype, node.seq = out.shape, out.dtype, next(_seq)
    return node, tensor(out, True, node)


def add(a, b):
    node, t = record(AddNode, a.d + b.d, (a, b))
    node.saved = None
    return t


def mul(a, b):
    node, t = record(MulNode, a.d * b.d, (a, b))
    vc = b.vc
    if vc is None:
        vc = b.vc = [0]
    node.saved = (b, vc, vc[0])
    return t


def tanh(a):
    y = np.tanh(a.d)
    node, t = record(TanhNode, y, (a,))
    t.vc = vc = [0]
    node.saved = (y, vc, 0)
    return t


def backward(root, grad):
    heap, buffers = [(-root.fn.seq, root.fn)], {root.fn: grad}
    while heap:
        node = heappop(heap)[1]
        g = buffers.pop(node)
        if node.edges is None:           # the leaf: its gradient is complete
            continue
        for e, gi in zip(node.edges, node.back(g)):
            if gi is None or e is None:
                continue
            nxt = e[0]
            if gi.shape != nxt.shape or gi.dtype is not nxt.dtype:
                raise RuntimeError("gradient of the wrong shape or dtype")
            if nxt in buffers:
                buffers[nxt] = buffers[nxt] + gi
            else:
                heappush(heap, (-nxt.seq, nxt))
                buffers[nxt] = gi


def make_minimal_chain():
    leaf = _new(Node)
    leaf.edges, leaf.seq, leaf.shape, leaf.dtype = None, -1, X.shape, X.dtype
    x = tensor(X.copy(), True, leaf)
    a, b = tensor(A), tensor(B)

    def chain():
        y = x
        for i in range(N_OPS):
            k = i % 3
            y = add(y, a) if k == 0 else mul(y, b) if k == 1 else tanh(y)
        backward(y, np.ones(16, np.float32))
    return chain


def main():
    med = compare({"numpy forward only": numpy_forward,
                   "minimal engine fwd+bwd": make_minimal_chain(),
                   "labkit fwd+bwd": make_chain(labkit, labkit.from_numpy)},
                  rounds=41, number=10)
    report(f"W2 chain of {N_OPS} ops on 16 floats, per op:", med, "numpy forward only",
           per=N_OPS)
    floor = med["minimal engine fwd+bwd"] / med["numpy forward only"]
    print(f"floor: a minimal Python engine = {floor:.2f}x numpy forward; labkit = "
          f"{med['labkit fwd+bwd'] / med['numpy forward only']:.2f}x")


if __name__ == "__main__":
    main()
