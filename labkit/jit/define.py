"""Define-then-run, the TensorFlow 1 way: first build a graph from placeholders (nothing is
computed for real), then run it many times, feeding values for the placeholders.

    g = labkit.jit.define()
    with g:
        x = g.placeholder((64, 1000), name="x")
        loss = (x.mm(w1).clamp(min=0).mm(w2) - y).pow(2).sum()
        gw1, gw2 = g.gradients(loss, [w1, w2])
    for step in range(500):
        loss_value, g1, g2 = g.run([loss, gw1, gw2], feed_dict={x: batch})

Inside the with-block a placeholder is a tensor of zeros and every op on it is recorded (the
tracer); the values computed there mean nothing. run() executes the recorded graph for the
fetched tensors and returns numpy arrays, as Session.run did.
"""
import sys

import numpy as np

from ..engine import autograd
from ..engine.tensor import Tensor
from . import interpreter
from .ir import Graph
from .tracer import Tracer


class DefinedGraph:
    def __init__(self, name="graph"):
        self.graph = Graph(name)
        self.tracer = Tracer(self.graph)
        self.placeholders = {}        # id(tensor) -> (tensor, Value)
        self.runs = 0

    def __enter__(self):
        frame = sys._getframe(1)         # name captured tensors as the caller does
        for scope in (frame.f_globals, frame.f_locals):
            self.tracer.names.update((id(v), k) for k, v in scope.items()
                                     if isinstance(v, Tensor))
        self.tracer.__enter__()
        return self

    def __exit__(self, *exc):
        return self.tracer.__exit__(*exc)

    def placeholder(self, shape, dtype=np.float32, name=None):
        """A graph input: a value you feed at run time (a fixed shape here)."""
        t = Tensor._make(np.zeros(shape, dtype), _cpu())
        v = self.graph.add_input(name or f"input{len(self.placeholders)}", shape, dtype)
        self.tracer.bind(t, v)
        self.placeholders[id(t)] = (t, v)
        return t

    def gradients(self, output, inputs):
        """Symbolic gradients of output with respect to inputs (tf.gradients): the backward
        formulas are recorded into the graph, to be run by run() like any other node."""
        return list(autograd.grad(output, list(inputs)))

    def run(self, fetches, feed_dict):
        """Values (numpy arrays) of the fetched tensors for these placeholder values."""
        single = isinstance(fetches, Tensor)
        fetches = [fetches] if single else list(fetches)
        feed = {id(t): v for t, v in feed_dict.items()}
        args = []
        for i, (t, v) in self.placeholders.items():
            if i not in feed:
                raise KeyError(f"run: placeholder %{v.name} was not fed; pass "
                               f"feed_dict={{{v.name}: array}}.")
            value = feed[i]
            args.append(value if isinstance(value, Tensor) else
                        Tensor._make(np.asarray(value, dtype=v.dtype), _cpu()))
        self.graph.outputs = [self.tracer.value_of(f, check=False) for f in fetches]
        self.runs += 1
        out = [o.detach().numpy() for o in interpreter.run(self.graph, args)]
        return out[0] if single else out

    def __repr__(self):
        return str(self.graph)


def _cpu():
    from ..engine.device import cpu
    return cpu


def define(name="graph"):
    """A graph to build with placeholders inside `with g:` and run with g.run(...)."""
    return DefinedGraph(name)
