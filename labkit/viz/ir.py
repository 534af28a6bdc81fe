"""labkit.jit graphs (the IR), drawn: one box per op, the graph's inputs in blue (captured
parameters) or light blue (arguments), constants in white, outputs in green. A fused node is a
cluster around the ops it runs as one kernel; If and Loop are clusters around their blocks.
`ir_side_by_side` puts two graphs next to each other (before and after optimisation).
It only reads the Graph (layering: engine <- jit <- viz)."""
from .graph import COLORS, new_digraph

_FUSED = ("fused", "addmm", "addmm_relu", "linear", "linear_relu")


def _shape(v):
    return "" if v.shape is None else str(tuple(v.shape)).replace(",)", ")")


class _Drawer:
    def __init__(self, prefix):
        self.prefix = prefix
        self.box = {}          # Value -> box id of what makes it
        self.n = 0
        self.links = []        # edges, drawn at the top level (an edge written inside a
        #                        cluster would pull its ends into the cluster)

    def new_id(self):
        self.n += 1
        return f"{self.prefix}n{self.n}"

    def inputs(self, g, graph):
        for v in graph.inputs:
            bid = self.new_id()
            color = COLORS["leaf"] if v.role == "param" else "azure"
            g.node(bid, f"%{v.name}\n{_shape(v)}", fillcolor=color)
            self.box[v] = bid
        for v in graph.constants:
            bid = self.new_id()
            g.node(bid, f"%{v.name}\nconstant {_shape(v)}", fillcolor="white")
            self.box[v] = bid

    def nodes(self, g, nodes, depth=0):
        for node in nodes:
            if node.blocks and (node.kind in _FUSED or node.kind in ("If", "Loop")):
                self.cluster(g, node, depth)
                continue
            bid = self.new_id()
            shapes = ", ".join(_shape(v) for v in node.outputs if v.kind == "Tensor")
            g.node(bid, f"{node.kind}\n{shapes}".strip(), fillcolor=COLORS["op"])
            self.edges(g, node, bid)
            for v in node.outputs:
                self.box[v] = bid

    def edges(self, g, node, bid):
        for v in dict.fromkeys(node.inputs):
            src = self.box.get(v)
            if src is not None:
                self.links.append((src, bid, {}))

    def cluster(self, g, node, depth):
        cid = self.new_id()
        with g.subgraph(name=f"cluster_{cid}") as sub:
            fused = node.kind in _FUSED
            label = (node.blocks[0].name if node.kind == "fused" else node.kind)
            sub.attr(label=label, style="rounded,filled" if fused else "rounded",
                     fillcolor="lightyellow" if fused else "white", color="darkorange"
                     if fused else "gray50", fontname="Courier", fontsize="10")
            if node.kind in ("If", "Loop"):
                head = self.new_id()
                sub.node(head, node.kind.lower(), shape="diamond", fillcolor="white")
                self.edges(sub, node, head)
                for b in node.blocks:
                    for v in b.inputs:
                        self.box[v] = head
                    with sub.subgraph(name=f"cluster_{self.new_id()}") as bs:
                        bs.attr(label=b.name, style="dashed", color="gray60")
                        self.nodes(bs, b.nodes, depth + 1)
                for v in node.outputs:
                    self.box[v] = head
                for b in node.blocks:
                    for v in b.outputs:
                        if v in self.box and self.box[v] != head:
                            self.links.append((self.box[v], head,
                                               {"style": "dashed", "constraint": "false"}))
            else:
                self.nodes(sub, node.blocks[0].nodes, depth + 1)

    def outputs(self, g, graph):
        for i, v in enumerate(graph.outputs):
            if v not in self.box:
                continue
            bid = self.new_id()
            g.node(bid, f"output {i}\n{_shape(v)}", fillcolor=COLORS["output"])
            self.links.append((self.box[v], bid, {}))
        for p, v in graph.stores:
            bid = self.new_id()
            g.node(bid, f"write into %{p.name}", fillcolor=COLORS["leaf"], style="filled,dashed")
            if v in self.box:
                self.links.append((self.box[v], bid, {}))


def _draw_into(g, graph, prefix):
    d = _Drawer(prefix)
    d.inputs(g, graph)
    d.nodes(g, graph.nodes)
    d.outputs(g, graph)
    for a, b, attrs in d.links:
        g.edge(a, b, **attrs)


def draw_ir(graph, caption=None, rankdir="TB"):
    """A labkit.jit Graph (or anything with .graph: a traced, scripted or compiled function)
    as a Digraph; shown as SVG in Jupyter."""
    graph = getattr(graph, "graph", graph)
    g = new_digraph("ir", rankdir, caption)
    _draw_into(g, graph, "")
    return g


def ir_side_by_side(a, b, titles=("before", "after"), rankdir="TB", caption=None):
    """Two graphs next to each other, e.g. a trace before and after optimisation."""
    g = new_digraph("ir_compare", rankdir, caption)
    for prefix, graph, title in (("a_", a, titles[0]), ("b_", b, titles[1])):
        with g.subgraph(name=f"cluster_{prefix[0]}") as sub:
            sub.attr(label=title, fontname="Courier", fontsize="12", style="rounded",
                     color="gray60")
            _draw_into(sub, getattr(graph, "graph", graph), prefix)
    return g
