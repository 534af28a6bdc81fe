"""Step through backward in the order the engine really runs it.

    stepper = viz.step_backward(loss, params={"w1": w1, "w2": w2})   # runs loss.backward()
    stepper        # a slider over the steps; each node shows the gradient that reached it

The engine calls each node hook (labkit.engine.hooks.node_hook) as fn(node, grads) when it
reaches a node, with the summed gradient of each of the node's outputs. The stepper listens
during one real backward() call, so its order is the engine's order and its gradients are the
ones backward used, not a re-enactment.
"""
from dataclasses import dataclass

import numpy as np
from IPython.display import display

from ..engine import hooks
from ..engine.device import to_host
from . import nodes
from .graph import MAX_NODES, auto_rankdir, describe, extract, to_dot
from .widgets import FrameSlider


@dataclass
class Step:
    node: object    # the node the engine processed
    grads: list     # the gradient of each of its outputs as it arrived (numpy copies, or None)


class BackwardStepper:
    """The steps of one backward pass, drawable one by one (see step_backward())."""

    def __init__(self, extracted, steps, rankdir=None):
        self.extracted, self.steps = extracted, steps
        self.rankdir = rankdir or auto_rankdir(extracted)

    def __len__(self):
        return len(self.steps)

    @property
    def order(self):
        """The nodes in the order backward processed them."""
        return [s.node for s in self.steps]

    def grad_text(self, step):
        return ["grad " + ("None" if g is None else describe(g)) for g in step.grads]

    def frame(self, k):
        """The graph after k backward steps: node k in red, gradients on the nodes reached."""
        ex, n = self.extracted, len(self.steps)
        notes = {}
        for step in self.steps[:k]:
            box = ex.id_of(step.node)
            if box is not None:
                notes[box] = self.grad_text(step)
        if k == 0:
            return to_dot(ex, self.rankdir, caption=f"before backward: 0 of {n} steps")
        node = self.steps[k - 1].node
        leaf = nodes.leaf_of(node)
        if leaf is not None:
            name = ex.box(ex.id_of(leaf)).title.split("\n")[0] if ex.id_of(leaf) else "the leaf"
            what = f"adds the gradient into {name}.grad"
        else:
            what = "turns its output's gradient into its inputs' gradients"
        caption = f"backward step {k} of {n}: {nodes.name(node)} {what}"
        return to_dot(ex, self.rankdir, highlight={ex.id_of(node)} - {None}, notes=notes,
                      caption=caption)

    def slider(self, value=None):
        """The slider view: FrameSlider over steps 1..N, starting at N (backward done)."""
        return FrameSlider(self.frame, min(1, len(self.steps)), len(self.steps), value,
                           description="backward step")

    def _ipython_display_(self):
        display(self.slider())

    def __repr__(self):
        return f"<BackwardStepper: {len(self.steps)} steps>"

    def __str__(self):
        width = max((len(nodes.name(s.node)) for s in self.steps), default=0)
        return "\n".join(f"step {i:>2}  {nodes.name(s.node):<{width}}  "
                         + ", ".join(self.grad_text(s)) for i, s in enumerate(self.steps, 1))


def step_backward(output, params=None, gradient=None, retain_graph=None, show_saved=False,
                  rankdir=None, max_nodes=MAX_NODES):
    """Run output.backward(gradient, retain_graph) and record every step; returns a
    BackwardStepper (display it for the slider). This is a real backward: leaves' .grad fill
    (and accumulate) as usual. The graph is read first, so show_saved still shows what the
    nodes saved before backward freed it."""
    ex = extract(output, params, show_saved=show_saved, max_nodes=max_nodes)
    steps = []

    def observe(node, grads):
        steps.append(Step(node, [None if g is None else np.array(to_host(g._data))
                                 for g in grads]))

    with hooks.node_hook(observe):
        output.backward(gradient, retain_graph=retain_graph)
    return BackwardStepper(ex, steps, rankdir)
