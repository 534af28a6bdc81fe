"""Watch the graph grow: a recorder of every op autograd records inside a with-block.

    with viz.record() as rec:
        h = x.mm(w1)
        loss = h.clamp(min=0).mm(w2).sum()
    rec            # a slider "after op k of N" redraws the graph as it stood after k ops

The engine calls each op hook (labkit.engine.hooks.op_hooks) for every op it records; the
recorder adds one on entry and removes it on exit, so outside the block nothing is slower.
For each op it keeps the node, its tensors in and out, and the line of your code that ran it.
"""
import linecache
import os
import sys
import time
from dataclasses import dataclass

from IPython.display import display

from ..engine import hooks
from ..engine.tensor import Tensor
from . import nodes
from .graph import MAX_NODES, auto_rankdir, extract, new_digraph, param_names, to_dot
from .widgets import FrameSlider

_LABKIT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


@dataclass
class RecordedOp:
    node: object      # the backward node the op created (its output's grad_fn)
    inputs: tuple     # the tensor arguments
    outputs: tuple    # the tensors it returned
    lineno: int       # where in your code (the cell's line number in a notebook)
    code: str         # that line's text


def user_line():
    """(line number, text) of the innermost frame outside labkit: the line a student wrote
    (inside labkit.nn, that is the line that called the module)."""
    f = sys._getframe(1)
    while f is not None and f.f_code.co_filename.startswith(_LABKIT_DIR):
        f = f.f_back
    if f is None:
        return 0, ""
    return f.f_lineno, linecache.getline(f.f_code.co_filename, f.f_lineno).strip()


class Recorder:
    """Context manager that records every op autograd records inside it (see record())."""

    def __init__(self, params=None, show_saved=False, show_values=False, rankdir=None,
                 live=False, interval=0.5, max_nodes=MAX_NODES):
        self.ops = []
        self.names = param_names(params)
        self.options = dict(show_saved=show_saved, show_values=show_values,
                            max_nodes=max_nodes)
        self.rankdir = rankdir
        self._auto_rankdir, self._direction_for = "LR", -1
        self.live, self.interval = live, interval
        self._handle = None
        self._drawn_at = 0.0

    def __enter__(self):
        hooks.op_hooks.append(self._observe)
        if self.live:
            self._handle = display(self.frame(0), display_id=True)
            self._drawn_at = time.monotonic()
        return self

    def __exit__(self, *exc):
        hooks.op_hooks.remove(self._observe)
        self._name_tensors(sys._getframe(1))
        if self._handle is not None:
            self._handle.update(self.frame(len(self.ops)))
        return False

    def _observe(self, node, args, outputs):
        lineno, code = user_line()
        self.ops.append(RecordedOp(node, tuple(a for a in args if isinstance(a, Tensor)),
                                   tuple(outputs), lineno, code))
        if self._handle is not None and time.monotonic() - self._drawn_at >= self.interval:
            self._handle.update(self.frame(len(self.ops)))
            self._drawn_at = time.monotonic()

    def _name_tensors(self, frame):
        """Label boxes with your variable names: the tensors the block's frame holds now."""
        for name, value in frame.f_locals.items():
            if isinstance(value, Tensor) and not name.startswith("_"):
                self.names.setdefault(id(value), name)

    def __len__(self):
        return len(self.ops)

    @property
    def nodes(self):
        """The recorded nodes, in the order the ops ran (the engine's creation order)."""
        return [op.node for op in self.ops]

    def results(self, k):
        """The tensors made by the first k ops that no later op among them used: the ends of
        the graph after k ops, drawn green."""
        live = {}
        for op in self.ops[:k]:
            for t in op.inputs:
                live.pop(id(t), None)
            for t in op.outputs:
                if t.requires_grad:
                    live[id(t)] = t
        return list(live.values())

    def frame(self, k):
        """The graph as it stood after k ops, with op k (and its result) in red."""
        n = len(self.ops)
        if k == 0:
            return new_digraph(rankdir=self.rankdir or "LR",
                               caption=f"0 of {n} ops: nothing recorded yet")
        op = self.ops[k - 1]
        ex = extract(self.results(k), names=self.names, **self.options)
        highlight = {ex.id_of(op.node), *(ex.id_of(t) for t in op.outputs)} - {None}
        caption = (f"after op {k} of {n}: {nodes.name(op.node)}\n"
                   f"line {op.lineno}: {op.code}")
        return to_dot(ex, rankdir=self._direction(), highlight=highlight, caption=caption)

    def _direction(self):
        """One direction for every frame (chosen for the final graph), so the picture does not
        flip from left-right to top-down halfway through the slider."""
        if self.rankdir is not None:
            return self.rankdir
        if self._direction_for != len(self.ops):      # new ops since the last choice
            final = extract(self.results(len(self.ops)), names=self.names, **self.options)
            self._auto_rankdir, self._direction_for = auto_rankdir(final), len(self.ops)
        return self._auto_rankdir

    def slider(self, value=None):
        """The slider view: FrameSlider over k = 1..N (N = ops recorded), starting at N."""
        return FrameSlider(self.frame, min(1, len(self.ops)), len(self.ops), value,
                           description="after op")

    def _ipython_display_(self):
        display(self.slider())

    def __repr__(self):
        return f"<Recorder: {len(self.ops)} ops recorded>"

    def __str__(self):
        """The tape: one line per recorded op, in order."""
        width = max((len(nodes.name(op.node)) for op in self.ops), default=0)
        return "\n".join(f"op {i:>2}  {nodes.name(op.node):<{width}}  line {op.lineno}: {op.code}"
                         for i, op in enumerate(self.ops, 1))


def record(params=None, show_saved=False, show_values=False, rankdir=None, live=False,
           interval=0.5, max_nodes=MAX_NODES):
    """Record every op autograd records inside a with-block; display the result for a slider.

    params       names for leaves ({name: tensor} or a module); by default the variable
                 names your code holds when the block ends
    live=True    also draw the graph while the block runs, at most every `interval` seconds
    The other options are draw()'s. Only ops that autograd records appear: those with an
    input that requires grad, run with grad mode on.
    """
    return Recorder(params, show_saved, show_values, rankdir, live, interval, max_nodes)
