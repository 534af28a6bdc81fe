"""The autograd graph behind tensors, drawn: torchviz's colours, micrograd's `data | grad`.

Two steps, each testable as text. `extract` walks the engine's nodes breadth-first from the
outputs (a queue, no recursion) into plain boxes and edges, numbered n0, n1, ... in that order:
the same code gives the same ids, hence the same SVG, on every run. `to_dot` writes them as
Graphviz DOT. The recorder, the stepper and side_by_side reuse both with their own overlays.
"""
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from ..engine.tensor import Tensor
from ..engine.device import to_host
from . import nodes
from .render import Digraph

COLORS = {"op": "lightgray", "leaf": "lightblue", "saved": "orange",
          "output": "darkolivegreen1", "note": "white"}
HIGHLIGHT = {"color": "red", "penwidth": "3"}
MAX_NODES = 100   # boxes drawn at most (a note says how many nodes were left out)
LARGE = 40        # above this many boxes: top to bottom, edges merged (see to_dot)
LR_RANKS = 7      # at most this many boxes on the longest path: left to right (see to_dot)
MAX_WIDTH = "9,1000"  # inches: wider drawings are scaled down to fit a notebook's output area


@dataclass
class Box:
    """One box of the picture, standing for an engine node, a tensor or a saved array."""
    id: str
    kind: str                                   # op, leaf, saved, output or note
    title: str                                  # name and/or shape; may hold newlines
    values: list = field(default_factory=list)  # micrograd-style fields: "data ...", "grad ..."
    ref: object = None


@dataclass
class Extracted:
    """Boxes and edges (from id, to id, attrs) of one graph, and how many nodes did not fit."""
    boxes: list = field(default_factory=list)
    edges: list = field(default_factory=list)
    hidden: int = 0
    index: dict = field(default_factory=dict)   # id(object) -> box id (the objects are in boxes)

    def id_of(self, obj):
        """The box id drawn for an engine node or tensor, or None if it is not drawn."""
        return self.index.get(id(obj))

    def box(self, box_id):
        return next(b for b in self.boxes if b.id == box_id)


def describe(array):
    """Values for a small array (at most 4 numbers), its norm otherwise: short enough for a box."""
    a = np.asarray(to_host(array), dtype=np.float64)
    if a.size <= 4:
        if a.ndim == 0:
            return f"{a.item():.4g}"
        return "[" + ", ".join(f"{v:.4g}" for v in a.ravel()) + "]"
    return f"norm {np.linalg.norm(a):.4g}"


def shape_text(shape):
    return str(tuple(int(s) for s in shape))


def param_names(params):
    """{id(tensor): name} from a {name: tensor} dict or an object with named_parameters()."""
    if params is None:
        return {}
    if hasattr(params, "named_parameters"):
        params = dict(params.named_parameters())
    if not isinstance(params, dict):
        raise TypeError(
            f"draw: params must name the tensors, as a dict {{'w1': w1, ...}} or a module with "
            f"named_parameters(); got a {type(params).__name__}. Try params={{'w': w}}.")
    return {id(t): str(name) for name, t in params.items() if isinstance(t, Tensor)}


def _named_outputs(outputs):
    if isinstance(outputs, Tensor):
        return [(None, outputs)]
    if isinstance(outputs, dict):
        pairs = [(str(k), v) for k, v in outputs.items()]
    else:
        pairs = [(None, v) for v in outputs]
    for name, t in pairs:
        if not isinstance(t, Tensor):
            raise TypeError(f"draw: expected labkit tensors to draw the graph behind, got a "
                            f"{type(t).__name__}" + (f" for {name!r}" if name else "") + ".")
    return pairs


def _title(name, tensor):
    return "\n".join(filter(None, [name, shape_text(tensor.shape)]))


def _tensor_values(t):
    grad = "None" if t.grad is None else describe(t.grad._data)
    return [f"data {describe(t._data)}", f"grad {grad}"]


def _reachable(roots):
    """How many engine nodes lie behind the roots (an explicit stack: deep graphs are fine)."""
    seen, stack = set(), list(roots)
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        stack.extend(c for c, _ in nodes.inputs(n) if c not in seen)
    return len(seen)


def extract(outputs, params=None, show_saved=False, show_values=False, max_nodes=MAX_NODES,
            names=None):
    """Boxes and edges for the graph behind `outputs` (a tensor, a list, or {name: tensor}).
    Leaves are named from `params` ({name: tensor} or a module), then `names` ({id: name})."""
    names = {**(names or {}), **param_names(params)}
    ex = Extracted()
    queue, cut = deque(), []

    def add(kind, ref, title, values=()):
        box = Box(f"n{len(ex.boxes)}", kind, title, list(values), ref)
        ex.boxes.append(box)
        ex.index[id(ref)] = box.id
        return box.id

    def room(n):  # keep one place for the note about what did not fit
        return len(ex.boxes) + n + 1 <= max_nodes

    def visit(node):
        if id(node) in ex.index:
            return ex.index[id(node)]
        if not room(2 if nodes.leaf_of(node) is not None else 1):
            return None
        queue.append(node)
        return add("op", node, nodes.name(node))

    roots = []
    for name, t in _named_outputs(outputs):
        title = _title(name or names.get(id(t)), t)
        if not t.requires_grad:
            title += "\nno grad_fn: nothing was recorded"
        out_id = add("output", t, title, _tensor_values(t) if show_values else ())
        if t.grad_fn is not None:
            roots.append(t.grad_fn)
            src = visit(t.grad_fn)
            if src is not None:
                ex.edges.append((src, out_id, {}))
    while queue:
        node = queue.popleft()
        nid = ex.index[id(node)]
        leaf = nodes.leaf_of(node)
        if leaf is not None:
            lid = ex.index.get(id(leaf)) or add("leaf", leaf, _title(names.get(id(leaf)), leaf),
                                                _tensor_values(leaf) if show_values else ())
            ex.edges.append((lid, nid, {}))
        for child, _ in nodes.inputs(node):
            cid = visit(child)
            if cid is None:
                cut.append(nid)
            else:
                ex.edges.append((cid, nid, {}))
        if show_saved:
            _add_saved(ex, node, nid, add, room, names)
    ex.hidden = _reachable(roots) - sum(1 for b in ex.boxes if b.kind == "op")
    if ex.hidden:
        note = add("note", None, f"... {ex.hidden} more nodes not drawn\n"
                                 f"(draw(..., max_nodes={2 * max_nodes}) shows more)")
        for nid in dict.fromkeys(cut):
            ex.edges.append((note, nid, {"style": "dotted"}))
    return ex


def _add_saved(ex, node, nid, add, room, names):
    for kind, value, tensor in nodes.saved(node):
        sid = ex.index.get(id(value))
        if sid is None:
            if not room(1):
                return
            if kind == "value":
                sid = add("saved", value, f"saved {value!r}")
            else:
                what = names.get(id(tensor)) or kind
                sid = add("saved", value, f"saved {what}\n{shape_text(value.shape)}")
        ex.edges.append((sid, nid, {"style": "dashed", "arrowhead": "none"}))
    if nodes.freed(node):
        ex.box(nid).title += "\n(saved tensors freed)"


def _esc_record(text):
    for ch in "\\{}|<>":
        text = text.replace(ch, "\\" + ch)
    return text.replace("\n", "\\n")


def label(box, notes=(), rankdir="LR"):
    """The DOT label of a box: plain lines, or a micrograd-style record when it has values."""
    lines = [box.title, *notes]
    if not box.values:
        return "\\n".join("\n".join(lines).split("\n"))
    fields = " | ".join(_esc_record(f) for f in ["\n".join(lines), *box.values])
    return "{" + fields + "}" if rankdir in ("LR", "RL") else fields


def add_boxes(g, ex, prefix="", highlight=(), notes=None, rankdir="LR", box_attrs=None):
    """Write the boxes and edges of `ex` into graphviz graph `g` (a Digraph or a subgraph).

    highlight: box ids drawn with a red border; notes: {box id: extra lines};
    box_attrs: {box id: extra DOT attributes}.
    """
    notes, box_attrs = notes or {}, box_attrs or {}
    for b in ex.boxes:
        attrs = {"fillcolor": COLORS[b.kind]}
        if b.values:
            attrs["shape"] = "record"
        if b.kind == "note":
            attrs["style"] = "dashed"
        if b.id in highlight:
            attrs.update(HIGHLIGHT)
        attrs.update(box_attrs.get(b.id, {}))
        g.node(prefix + b.id, label(b, notes.get(b.id, ()), rankdir), **attrs)
    for a, b, attrs in ex.edges:
        g.edge(prefix + a, prefix + b, **attrs)


def new_digraph(name="autograd", rankdir="LR", caption=None, large=False):
    """An empty Digraph with the house style: torchviz's boxes, monospace text."""
    g = Digraph(name=name)
    g.attr(rankdir=rankdir, nodesep="0.2", ranksep="0.3", pad="0.1", size=MAX_WIDTH)
    if large:
        g.attr(concentrate="true")  # fan-out of shared leaves as one trunk; also lays out faster
    if caption:
        g.attr(label=caption.replace("\n", "\\l") + "\\l", labelloc="t", labeljust="l",
               fontname="Courier", fontsize="12")
    g.attr("node", shape="box", style="filled", fontname="Courier", fontsize="10",
           height="0.2")
    g.attr("edge", arrowsize="0.7")
    return g


def longest_path(ex):
    """The number of boxes on the longest chain of edges (Kahn's algorithm: no recursion)."""
    succ, indeg = {b.id: [] for b in ex.boxes}, {b.id: 0 for b in ex.boxes}
    for a, b, _ in ex.edges:
        succ[a].append(b)
        indeg[b] += 1
    depth = {i: 1 for i in succ}
    ready = [i for i, d in indeg.items() if d == 0]
    while ready:
        a = ready.pop()
        for b in succ[a]:
            depth[b] = max(depth[b], depth[a] + 1)
            indeg[b] -= 1
            if indeg[b] == 0:
                ready.append(b)
    return max(depth.values(), default=0)


def auto_rankdir(ex):
    """Left to right while the graph is short enough to fit across a notebook at full size;
    top to bottom otherwise, where a long chain scrolls down instead of being shrunk."""
    return "LR" if len(ex.boxes) <= LARGE and longest_path(ex) <= LR_RANKS else "TB"


def to_dot(ex, rankdir=None, highlight=(), notes=None, caption=None, name="autograd"):
    """The Digraph of extracted boxes; rankdir None picks one with auto_rankdir."""
    large = len(ex.boxes) > LARGE
    rankdir = rankdir or auto_rankdir(ex)
    g = new_digraph(name, rankdir, caption, large)
    add_boxes(g, ex, highlight=highlight, notes=notes, rankdir=rankdir)
    return g


def draw(output, params=None, show_saved=False, show_values=False, rankdir=None,
         max_nodes=MAX_NODES):
    """The autograd graph behind `output` as a graphviz.Digraph (shown as SVG in Jupyter).

    output       a tensor, a list of tensors, or {name: tensor}
    params       names for the leaves: {name: tensor} or a module (its named_parameters())
    show_saved   also draw what each node saved for backward (orange)
    show_values  micrograd-style `data | grad` on tensors (values up to 4 numbers, else norms)
    rankdir      "LR" (left to right) or "TB" (top to bottom); by default LR for graphs
                 short enough to fit across a notebook, TB for longer ones
    max_nodes    at most this many boxes; a note says how many nodes were left out

    Gray boxes are backward nodes (output.grad_fn and what it links to), blue ones leaves,
    orange ones saved tensors, green ones the outputs. Arrows follow the forward pass.
    """
    ex = extract(output, params, show_saved, show_values, max_nodes)
    return to_dot(ex, rankdir=rankdir)
