"""Each classic static-graph pitfall, pinned: what the JIT does about it (warn, refuse,
retrace or replay faithfully), never a silent wrong answer where it can tell."""
import numpy as np
import pytest

import labkit
from labkit import jit


def branchy(x):
    if x.sum() > 0:          # a Python branch on a tensor's value
        return x * 2
    return x * -1


def test_trace_freezes_a_branch_and_warns():
    with pytest.warns(jit.TracerWarning, match=r"bool\(\).*same path on every call"):
        traced = jit.trace(branchy, labkit.ones(3))
    neg = -labkit.ones(3)
    assert np.allclose(branchy(neg).numpy(), [1, 1, 1])
    assert np.allclose(traced(neg).numpy(), [-2, -2, -2])   # the traced branch, frozen


def test_item_while_tracing_warns_and_freezes_the_number():
    def scale(x):
        return x / x.max().item()
    with pytest.warns(jit.TracerWarning, match=r"item\(\)"):
        traced = jit.trace(scale, labkit.tensor([1.0, 2.0]))
    assert np.allclose(traced(labkit.tensor([1.0, 4.0])).numpy(), [0.5, 2.0])  # still / 2


def test_compile_refuses_item_and_branches_on_values():
    with pytest.raises(RuntimeError, match=r"compile refuses.*item\(\) outside"):
        jit.compile(lambda x: x * x.sum().item())(labkit.ones(2))
    with pytest.raises(RuntimeError, match=r"bool\(\)"):
        jit.compile(branchy)(labkit.ones(2))


def test_trace_freezes_other_tensors_as_constants():
    scale = labkit.tensor([2.0])
    traced = jit.trace(lambda x: x * scale, labkit.ones(1))
    scale.mul_(10)
    assert np.allclose(traced(labkit.ones(1)).numpy(), [2.0])     # torch.jit.trace does too


def test_compile_retraces_when_a_captured_tensor_changes():
    scale = labkit.tensor([2.0])
    f = jit.compile(lambda x: x * scale)
    assert np.allclose(f(labkit.ones(1)).numpy(), [2.0])
    scale.mul_(10)
    assert np.allclose(f(labkit.ones(1)).numpy(), [20.0]) and f.traces == 2


def test_compile_outputs_are_never_aliased_between_calls():
    f = jit.compile(lambda x: x.tanh() * 3)
    first = f(labkit.zeros(4))
    f(labkit.ones(4))
    assert np.allclose(first.numpy(), 0)


def test_compile_replays_in_place_writes_to_inputs():
    def bump(x):
        x.mul_(2)
        return x.sum()
    f = jit.compile(bump)
    x = labkit.ones(3)
    for _ in range(3):
        f(x)
    assert np.allclose(x.numpy(), 8) and f.traces == 1 and x._version == 3


def test_compile_refuses_in_place_writes_to_a_view_of_an_input():
    def bump_row(x):
        x[0].add_(1)
        return x
    with pytest.raises(RuntimeError, match="view of a captured tensor"):
        jit.compile(bump_row)(labkit.zeros(2, 2))


def test_signature_mismatch_retraces_compile_but_errors_for_trace():
    f = jit.compile(lambda x: x.sum(0))
    f(labkit.ones(2, 3))
    assert np.allclose(f(labkit.ones(4, 3)).numpy(), 4) and f.traces == 2
    traced = jit.trace(lambda x: x.sum(0), labkit.ones(2, 3))
    with pytest.raises(RuntimeError, match="specialised to the shapes"):
        traced(labkit.ones(4, 3))


def test_gradient_accumulation_across_calls_is_replayed():
    w = labkit.ones(2, requires_grad=True)
    f = jit.compile(lambda x: (w * x).sum().backward())   # no zero_grad: grads add up
    for _ in range(3):
        f(labkit.tensor([1.0, 2.0]))
    assert np.allclose(w.grad.numpy(), [3.0, 6.0])


def test_a_changed_learning_rate_retraces():
    w = labkit.ones(2, requires_grad=True)
    opt = labkit.optim.SGD([w], lr=0.1)

    def step():
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    f = jit.compile(step)
    f()
    f()
    before = f.traces
    opt.param_groups[0]["lr"] = 0.0
    value = w.detach().numpy().copy()
    f()
    assert f.traces == before + 1 and np.allclose(w.detach().numpy(), value)


def test_argmax_inside_a_compiled_step_is_recomputed_not_frozen():
    f = jit.compile(lambda x: (x.argmax(1) == 0).float().mean())   # an accuracy
    assert np.allclose(f(labkit.tensor([[1.0, 0.0], [1.0, 0.0]])).numpy(), 1.0)
    assert np.allclose(f(labkit.tensor([[0.0, 1.0], [1.0, 0.0]])).numpy(), 0.5)
    assert f.traces == 1


def test_random_numbers_are_drawn_on_every_compiled_call():
    model = labkit.nn.Dropout(0.5)
    f = jit.compile(lambda x: model(x))
    x = labkit.ones(200)
    labkit.manual_seed(1)
    masks = [f(x).numpy().copy() for _ in range(3)]
    assert not np.array_equal(masks[1], masks[2])      # replays draw fresh numbers
    labkit.manual_seed(1)
    eager = [model(x).numpy().copy() for _ in range(3)]
    assert all(np.array_equal(a, b) for a, b in zip(masks, eager))   # the same stream
    assert f.traces == 1
