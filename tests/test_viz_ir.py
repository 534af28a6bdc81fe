"""labkit.viz draws labkit.jit graphs: one box per op, fused groups and If/Loop as clusters,
before/after optimisation side by side; the DOT text says so (SVG rendering is render's job)."""
import labkit
from labkit import jit
from labkit.jit import passes
from labkit.viz import draw_ir, ir_side_by_side


def _traced():
    model = labkit.nn.Sequential(labkit.nn.Linear(4, 8), labkit.nn.ReLU(), labkit.nn.Linear(8, 2))
    return jit.trace(lambda x: (model(x) * 2 + 1).tanh().sum(), labkit.randn(3, 4))


def test_fused_groups_are_clusters_after_optimisation():
    t = _traced()
    after = passes.optimize(t.graph, copy=True)
    src = ir_side_by_side(t, after).source
    assert 'label=before' in src and 'label=after' in src
    assert "label=linear_relu" in src and "label=fused_0" in src
    assert src.count("tanh") == 2 and "fused" not in str(t.graph)   # the original is unchanged


def test_script_control_flow_is_drawn_as_clusters():
    def f(x, n: int):
        y = x.relu() if x.sum() > 0 else -x
        for i in range(n):
            y = y * 0.5
        return y
    src = draw_ir(jit.script(f)).source
    assert "label=If" in src and "label=Loop" in src and "label=then" in src
