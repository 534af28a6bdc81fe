"""The recorder (graph growing op by op) and the backward stepper: their op order and counts
are the engine's, their gradients are backward's, and their widget callbacks are plain
functions."""
import numpy as np
import pytest

import labkit
from labkit import viz
from labkit.engine import execution_order, function
from labkit.viz import nodes


def two_layer():
    labkit.manual_seed(0)
    x, y = labkit.randn(6, 5), labkit.randn(6, 2)
    w1 = labkit.randn(5, 4, requires_grad=True)
    w2 = labkit.randn(4, 2, requires_grad=True)
    return x, y, w1, w2


def record_forward():
    x, y, w1, w2 = two_layer()
    with viz.record() as rec:
        h = x.mm(w1)
        h_relu = h.clamp(min=0)
        y_pred = h_relu.mm(w2)
        loss = (y_pred - y).pow(2).sum()
    return rec, loss, (w1, w2, h)


class FakeHandle:
    """Stands in for IPython's DisplayHandle: remembers what was shown."""
    def __init__(self, shown):
        self.shown = [shown]

    def update(self, obj):
        self.shown.append(obj)


def fake_display(obj, display_id=False):
    return FakeHandle(obj) if display_id else None


def test_recorder_sees_every_op_in_the_engines_order():
    rec, loss, _ = record_forward()
    engine_ops = [n for n in execution_order(loss) if nodes.leaf_of(n) is None][::-1]
    assert len(rec) == 6 == len(engine_ops)
    assert rec.nodes == engine_ops                       # same objects, creation order
    assert [nodes.name(n) for n in rec.nodes] == ["MmBackward0", "ClampBackward1", "MmBackward0",
                                                  "SubBackward0", "PowBackward0", "SumBackward0"]
    assert rec.ops[-1].outputs[0] is loss


def test_recorder_keeps_the_line_of_code_and_the_variable_names():
    rec, loss, _ = record_forward()
    assert [op.code for op in rec.ops[:3]] == ["h = x.mm(w1)", "h_relu = h.clamp(min=0)",
                                               "y_pred = h_relu.mm(w2)"]
    assert rec.ops[3].code == rec.ops[5].code == "loss = (y_pred - y).pow(2).sum()"
    assert rec.ops[1].lineno == rec.ops[0].lineno + 1
    assert "op  2  ClampBackward1  line" in str(rec)
    last = rec.frame(len(rec)).source
    for name in ("w1", "w2", "loss"):
        assert f'label="{name}\\n' in last


def test_frames_grow_one_op_at_a_time_with_op_k_in_red():
    rec, _, _ = record_forward()
    for k in range(1, len(rec) + 1):
        src = rec.frame(k).source
        ops = [line for line in src.splitlines() if line.startswith("\tn")
               and "Backward" in line and "->" not in line]
        assert len(ops) == k
        red = [line for line in ops if "color=red" in line]
        assert red == [line for line in ops if nodes.name(rec.ops[k - 1].node) in line
                       and "color=red" in line] and len(red) == 1
        assert f"after op {k} of 6" in src
    assert "h_relu\\n(6, 4)" in rec.frame(2).source          # the newest result, in green
    assert "h_relu\\n(6, 4)" not in rec.frame(3).source      # used by op 3: no longer an end
    assert "nothing recorded yet" in rec.frame(0).source


def test_recorder_removes_its_observer_even_after_an_error():
    before = list(function.observers)
    with pytest.raises(RuntimeError):
        with viz.record():
            labkit.randn(2, 3, requires_grad=True).mm(labkit.randn(2, 3))
    assert function.observers == before


def test_ops_that_autograd_does_not_record_are_not_in_the_recording():
    w = labkit.randn(3, requires_grad=True)
    with viz.record() as rec:
        a = labkit.randn(3) * 2          # no input requires grad
        with labkit.no_grad():
            w * 2                        # grad mode off
        b = (w * a).sum()
    assert [nodes.name(n) for n in rec.nodes] == ["MulBackward0", "SumBackward0"]
    assert b.grad_fn is rec.nodes[-1]


def test_slider_callback_is_a_plain_function(monkeypatch):
    rec, _, _ = record_forward()
    monkeypatch.setattr(viz.widgets, "display", fake_display)
    view = rec.slider()
    assert view.slider.value == view.slider.max == 6 and view.slider.min == 1
    view._ipython_display_()
    view.on_change({"new": 2})
    assert view.current.source == rec.frame(2).source
    assert view.handle.shown[-1] is view.current
    view.slider.value = 4                                 # the widget calls on_change
    assert view.current.source == rec.frame(4).source


def test_live_mode_redraws_and_ends_on_the_last_frame(monkeypatch):
    monkeypatch.setattr(viz.live, "display", fake_display)
    x, y, w1, w2 = two_layer()
    with viz.record(live=True, interval=0) as rec:
        loss = (x.mm(w1).relu().mm(w2) - y).pow(2).sum()
    shown = rec._handle.shown
    assert len(shown) == 1 + len(rec) + 1                 # empty frame, one per op, final
    assert shown[-1].source == rec.frame(len(rec)).source
    assert loss.grad_fn is rec.nodes[-1]


def test_stepper_order_is_the_engines_and_grads_are_backwards():
    x, y, w1, w2 = two_layer()
    h = x.mm(w1)
    h.retain_grad()
    loss = (h.clamp(min=0).mm(w2) - y).pow(2).sum()
    order = execution_order(loss)
    st = viz.step_backward(loss, params={"w1": w1, "w2": w2})
    assert st.order == order and len(st) == 8
    grads = {id(s.node): s.grads for s in st.steps}
    np.testing.assert_allclose(grads[id(loss.grad_fn)][0], 1.0)
    np.testing.assert_allclose(grads[id(w1._accum)][0], w1.grad.numpy())
    np.testing.assert_allclose(grads[id(w2._accum)][0], w2.grad.numpy())
    np.testing.assert_allclose(grads[id(h.grad_fn)][0], h.grad.numpy())


def test_stepper_frames_highlight_step_k_and_show_the_grads_reached():
    x = labkit.tensor([2.0], requires_grad=True)
    st = viz.step_backward((x * x * 3).sum(), params={"x": x})
    names = [nodes.name(n) for n in st.order]
    assert names == ["SumBackward0", "MulBackward0", "MulBackward0", "AccumulateGrad"]
    src = st.frame(2).source
    assert src.count("color=red") == 1 and "backward step 2 of 4: MulBackward0" in src
    assert 'label="SumBackward0\\ngrad 1"' in src
    assert 'label="MulBackward0\\ngrad [1]"' in src
    assert "grad [12]" not in src                          # the leaf is not reached yet
    last = st.frame(4).source
    assert 'label="AccumulateGrad\\ngrad [12]"' in last and "into x.grad" in last
    assert x.grad.item() == 12.0
    assert "step  4  AccumulateGrad  grad [12]" in str(st)


def test_stepper_slider_and_a_second_backward_accumulating(monkeypatch):
    monkeypatch.setattr(viz.widgets, "display", fake_display)
    x = labkit.tensor(1.0, requires_grad=True)
    y = x ** 2
    viz.step_backward(y, retain_graph=True)
    st = viz.step_backward(y)
    assert x.grad.item() == 4.0                            # a real backward: grads add up
    view = st.slider()
    view._ipython_display_()
    view.on_change({"new": 1})
    assert view.handle.shown[-1].source == st.frame(1).source


def test_every_frame_uses_the_direction_of_the_final_graph():
    rec, _, _ = record_forward()
    dirs = {line for k in range(1, len(rec) + 1) for line in rec.frame(k).source.split()
            if line.startswith("rankdir=")}
    assert dirs == {"rankdir=TB"}        # frame 1 alone would fit left to right
