"""labkit.viz.draw: the graph as DOT text (boxes, labels, colours, edges, names), stable ids,
the node budget, and side_by_side's differences."""
import re

import pytest

import labkit
from labkit import viz
from labkit.engine import execution_order
from labkit.viz.graph import extract


def small():
    """c = sum(x * y + z), as in lecture 01, with x and z requiring grad."""
    x = labkit.tensor([1.0, 2.0], requires_grad=True)
    y = labkit.tensor([3.0, 4.0])
    z = labkit.tensor([0.5, 0.5], requires_grad=True)
    return x, y, z, (x * y + z).sum()


def body(g):
    """The DOT lines that describe boxes and edges (not the style header)."""
    return [line.strip() for line in g.body if re.match(r"\s*n\d+", line)]


def test_dot_text_of_a_known_graph():
    x, y, z, c = small()
    g = viz.draw(c, params={"x": x, "z": z})
    assert body(g) == [
        'n0 [label="()" fillcolor=darkolivegreen1]',
        "n1 [label=SumBackward0 fillcolor=lightgray]",
        "n2 [label=AddBackward0 fillcolor=lightgray]",
        "n3 [label=MulBackward0 fillcolor=lightgray]",
        "n4 [label=AccumulateGrad fillcolor=lightgray]",     # z's, reached first (breadth-first)
        "n5 [label=AccumulateGrad fillcolor=lightgray]",     # x's
        'n6 [label="z\\n(2,)" fillcolor=lightblue]',
        'n7 [label="x\\n(2,)" fillcolor=lightblue]',
        "n1 -> n0",                                          # arrows follow the forward pass
        "n2 -> n1",
        "n3 -> n2",
        "n4 -> n2",
        "n5 -> n3",
        "n6 -> n4",
        "n7 -> n5",
    ]
    assert "rankdir=LR" in g.source


def test_unnamed_leaves_show_their_shape_only_and_data_never_appears():
    x, y, z, c = small()
    src = viz.draw(c).source
    assert src.count("fillcolor=lightblue") == 2        # x and z; y needs no grad: not drawn
    assert 'label="(2,)" fillcolor=lightblue' in src


def test_names_from_a_module_like_object():
    class Model:
        def __init__(self):
            self.w = labkit.randn(3, 2, requires_grad=True)

        def named_parameters(self):
            yield "layer.weight", self.w

    m = Model()
    out = labkit.randn(4, 3).mm(m.w).relu().sum()
    assert 'label="layer.weight\\n(3, 2)" fillcolor=lightblue' in viz.draw(out, params=m).source


def test_params_of_the_wrong_kind_get_a_teaching_error():
    x, y, z, c = small()
    with pytest.raises(TypeError, match=r"dict \{'w1': w1, \.\.\.\}.*got a list"):
        viz.draw(c, params=[x, z])


def test_saved_tensors_are_orange_dashed_and_named():
    x, y, z, c = small()
    g = viz.draw(c, params={"x": x}, show_saved=True)
    lines = body(g)
    saved = [line for line in lines if "fillcolor=orange" in line]
    # as torch's MulBackward0: only x needs a gradient, and x's gradient needs y alone
    assert saved == ['n6 [label="saved input\\n(2,)" fillcolor=orange]']
    assert "n6 -> n3 [arrowhead=none style=dashed]" in lines
    w = labkit.tensor([3.0, 4.0], requires_grad=True)
    both = body(viz.draw((x * w).sum(), params={"x": x, "w": w}, show_saved=True))
    assert [line for line in both if "fillcolor=orange" in line] == [
        'n5 [label="saved w\\n(2,)" fillcolor=orange]',
        'n6 [label="saved x\\n(2,)" fillcolor=orange]']               # both need the other
    c.backward()
    after = viz.draw(c, show_saved=True).source
    assert "fillcolor=orange" not in after and "(saved tensors freed)" in after


def test_show_values_gives_micrograd_records():
    x, y, z, c = small()
    c.backward()
    src = viz.draw(c, params={"x": x, "z": z}, show_values=True).source
    assert 'label="{x\\n(2,) | data [1, 2] | grad [3, 4]}"' in src
    assert 'label="{() | data 12 | grad None}"' in src and "shape=record" in src
    big = labkit.randn(10, requires_grad=True)
    assert "data norm " in viz.draw(big.sum(), params={"b": big}, show_values=True).source


def test_outputs_as_a_dict_and_a_list_and_a_tensor_without_history():
    x, y, z, c = small()
    d = x * 2
    src = viz.draw({"c": c, "d": d}).source
    assert 'label="c\\n()" fillcolor=darkolivegreen1' in src
    assert 'label="d\\n(2,)" fillcolor=darkolivegreen1' in src
    assert src.count("MulBackward0") == 2
    assert "nothing was recorded" in viz.draw(y).source
    with pytest.raises(TypeError, match="expected labkit tensors"):
        viz.draw([c, 3.0])


def run_twice(fn):
    return fn(), fn()


def test_the_same_code_gives_the_same_dot_and_svg():
    def build():
        labkit.manual_seed(0)
        w = labkit.randn(5, 4, requires_grad=True)
        b = labkit.randn(4, requires_grad=True)
        out = (labkit.randn(3, 5).mm(w) + b).tanh().pow(2).mean()
        return viz.draw(out, params={"w": w, "b": b}, show_saved=True)
    g1, g2 = run_twice(build)
    assert g1.source == g2.source
    from labkit.viz import render
    render._svg.cache_clear()
    s1 = render.svg(g1.source)
    render._svg.cache_clear()
    assert s1 == render.svg(g2.source) and "<svg" in s1


def chain(n_layers):
    """A tanh RNN-like chain with shared weights: 3 nodes per step."""
    labkit.manual_seed(1)
    w = labkit.randn(4, 4, requires_grad=True)
    b = labkit.randn(4, requires_grad=True)
    h = labkit.randn(2, 4)
    for _ in range(n_layers):
        h = (h.mm(w) + b).tanh()
    return h.sum(), w, b


def test_a_200_node_graph_is_drawn_within_the_budget_with_a_note():
    out, w, b = chain(66)
    assert len(execution_order(out)) == 201
    ex = extract(out, {"w": w, "b": b})
    assert len(ex.boxes) <= viz.graph.MAX_NODES
    drawn_ops = sum(1 for bx in ex.boxes if bx.kind == "op")
    assert ex.hidden == 201 - drawn_ops > 0
    g = viz.draw(out, params={"w": w, "b": b})
    assert f"{ex.hidden} more nodes not drawn" in g.source
    assert "rankdir=TB" in g.source and "concentrate=true" in g.source  # large: top to bottom
    small_g = viz.draw(out, params={"w": w, "b": b}, max_nodes=20)
    assert len(body(small_g)) - small_g.source.count("->") <= 20


def test_extraction_is_iterative_even_for_very_deep_graphs():
    x = labkit.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(3000):
        y = y * 1.0
    ex = extract(y, max_nodes=10)
    assert ex.hidden == 3001 - sum(1 for b in ex.boxes if b.kind == "op")


def test_side_by_side_marks_only_what_differs():
    x = labkit.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    naive = 1 / (1 + (-x).exp())
    g = viz.side_by_side(naive, x.sigmoid(), titles=("naive", "Function"), params={"x": x})
    red = re.findall(r"(\w+) \[label=(\w+) .*color=red", g.source)
    assert sorted(name for _, name in red) == ["AddBackward0", "ExpBackward0", "MulBackward0",
                                                "NegBackward0", "ReciprocalBackward0",
                                                "SigmoidBackward0"]   # 1 / u: torch's nodes
    assert "subgraph cluster_a" in g.source and "label=naive" in g.source


def test_direction_is_left_right_for_short_graphs_and_top_down_for_long_ones():
    x, y, z, c = small()
    assert "rankdir=LR" in viz.draw(c).source
    labkit.manual_seed(0)
    w1, w2 = labkit.randn(5, 4, requires_grad=True), labkit.randn(4, 2, requires_grad=True)
    loss = (labkit.randn(3, 5).mm(w1).clamp(min=0).mm(w2) - 1).pow(2).sum()
    assert "rankdir=TB" in viz.draw(loss).source                      # 9 boxes deep
    assert "rankdir=LR" in viz.draw(loss, rankdir="LR").source         # unless asked
    assert 'size="9,1000"' in viz.draw(loss).source                    # wide ones scale down
