"""Each graph pass does its one job and keeps the values: dead code goes, repeated work is
done once, constants are computed ahead, ops are fused, buffers are reused."""
import numpy as np

import labkit
from labkit import jit, nn
from labkit.jit import passes
from jit_models import close


def _kinds(graph):
    return [n.kind for n in graph.nodes]


def _trace(fn, *shapes):
    return jit.trace(fn, tuple(labkit.randn(*s) for s in shapes))


def test_dead_code_is_removed():
    t = _trace(lambda x: (x.exp(), x.sin())[0] * 2, (3,))
    g = passes.optimize(t.graph, [passes.dead_code], copy=True)
    assert "sin" not in _kinds(g) and "exp" in _kinds(g)


def test_common_subexpressions_are_computed_once():
    t = _trace(lambda x: (x * 2).exp() + (x * 2).exp(), (3,))
    g = passes.optimize(t.graph, [passes.common_subexpressions, passes.dead_code], copy=True)
    assert _kinds(g).count("mul") == 1 and _kinds(g).count("exp") == 1


def test_constants_are_folded_ahead_of_time():
    k = labkit.tensor([1.0, 2.0, 3.0])
    t = _trace(lambda x: x + (k * 2).exp(), (3,))
    g = passes.optimize(t.graph, [passes.fold_constants, passes.dead_code], copy=True)
    assert _kinds(g) == ["add"]
    x = labkit.randn(3)
    assert close(jit.trace(lambda x: x + (k * 2).exp(), x)(x), x + (k * 2).exp())


def test_matmul_bias_relu_becomes_one_node():
    labkit.manual_seed(0)
    lin = nn.Linear(4, 3)
    w, b = lin.weight.detach().t().clone(), lin.bias.detach().clone()
    t = _trace(lambda x: (x.mm(w) + b).relu(), (5, 4))
    g = passes.optimize(t.graph, copy=True)
    assert _kinds(g) == ["addmm_relu"]


def test_elementwise_chain_becomes_one_fused_group_with_reused_buffers():
    f = jit.compile(lambda x: (((x * 2 + 1).tanh() - 0.5) * 3).abs())
    x = labkit.randn(8, 8)
    f(x)
    assert [n.kind for n in f.graph.nodes] == ["fused"]
    src = f.kernels["fused_0"]
    assert src.count("_b0") >= 6                         # one buffer, reused in place
    assert close(f(x), (((x * 2 + 1).tanh() - 0.5) * 3).abs())


def test_optimised_graph_gives_the_same_values_as_the_trace():
    labkit.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3), nn.Tanh())
    x = labkit.randn(5, 4)
    t = jit.trace(model, x)
    from labkit.jit import interpreter
    g = passes.optimize(t.graph, copy=True)
    (a,), (b,) = interpreter.run(t.graph, [x]), interpreter.run(g, [x])
    assert close(a, b) and len(g.nodes) < len(t.graph.nodes)
    assert np.allclose(a.detach().numpy(), model(x).detach().numpy())
