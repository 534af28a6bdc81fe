"""Two autograd graphs in one picture, with what differs between them in red.

Boxes are matched by kind and label (an op's name, a tensor's name and shape), as multisets:
a box is red when the other graph has no box left with the same label. That is enough to see
that a custom Function replaced four ops with one, or that one iteration used w2a and the next
w2b, without pretending to solve graph matching.
"""
from collections import Counter

from .graph import MAX_NODES, HIGHLIGHT, add_boxes, extract, new_digraph


def _unmatched(ex, other):
    left = Counter((b.kind, b.title) for b in other.boxes if b.kind != "note")
    out = set()
    for b in ex.boxes:
        key = (b.kind, b.title)
        if b.kind != "note" and left[key] > 0:
            left[key] -= 1
        elif b.kind != "note":
            out.add(b.id)
    return out


def side_by_side(a, b, titles=("a", "b"), params=None, show_saved=False, rankdir="TB",
                 max_nodes=MAX_NODES):
    """One Digraph showing the graphs behind `a` and `b` (tensors, lists or {name: tensor})
    next to each other, each under its title; boxes without a counterpart get a red border."""
    ea = extract(a, params, show_saved=show_saved, max_nodes=max_nodes)
    eb = extract(b, params, show_saved=show_saved, max_nodes=max_nodes)
    g = new_digraph("compare", rankdir,
                    caption="red border: no box with the same label in the other graph")
    for prefix, ex, other, title in (("a_", ea, eb, titles[0]), ("b_", eb, ea, titles[1])):
        with g.subgraph(name=f"cluster_{prefix[0]}") as sub:
            sub.attr(label=title, fontname="Courier", fontsize="12", style="rounded",
                     color="gray60")
            red = _unmatched(ex, other)
            add_boxes(sub, ex, prefix, rankdir=rankdir,
                      box_attrs={i: HIGHLIGHT for i in red})
    return g
