"""jit.trace: the recorded graph computes what the eager code computes (values and
gradients), prints as TorchScript-style IR, and is specialised to the traced shapes."""
import numpy as np
import pytest

import labkit
from labkit import jit, nn
from jit_models import arrays, close, cnn, mlp, two_layer


def test_trace_two_layer_values_and_gradients_match_eager():
    x, w1, w2 = (labkit.from_numpy(a) for a in arrays((8, 5), (5, 4), (4, 3)))
    w1.requires_grad_(), w2.requires_grad_()
    traced = jit.trace(two_layer, (x, w1, w2))
    out = traced(x, w1, w2)
    assert close(out, two_layer(x, w1, w2))
    out.pow(2).sum().backward()
    g1, g2 = w1.grad, w2.grad
    w1.grad = w2.grad = None
    two_layer(x, w1, w2).pow(2).sum().backward()
    assert close(g1, w1.grad) and close(g2, w2.grad)


def test_traced_ir_prints_ops_with_shapes_and_dtypes():
    x, w1, w2 = (labkit.from_numpy(a) for a in arrays((64, 100), (100, 20), (20, 10)))
    text = str(jit.trace(two_layer, (x, w1, w2)).graph)
    assert "graph(%x : Float(64, 100)," in text
    assert "%0 : Float(64, 20) = mm(%x, %w1)" in text
    assert "clamp_min(%0, 0, None)" in text and text.rstrip().endswith("return (%2)")


@pytest.mark.parametrize("make", [mlp, lambda: mlp(sizes=(2, 8, 8, 3), act=nn.Tanh), cnn])
def test_trace_modules_match_eager_with_gradients(make):
    model = make()
    shape = (5, 1, 8, 8) if isinstance(model[0], nn.Conv2d) else (5, 2)
    x = labkit.from_numpy(arrays(shape)[0])
    traced = jit.trace(model, x)
    target = labkit.tensor([0, 1, 2, 1, 0])
    loss = labkit.nn.functional.cross_entropy(traced(x), target)
    loss.backward()
    grads = [p.grad.numpy().copy() for p in model.parameters()]
    model.zero_grad()
    eager = labkit.nn.functional.cross_entropy(model(x), target)
    eager.backward()
    assert close(loss, eager)
    for g, p in zip(grads, model.parameters()):
        assert close(g, p.grad)


@pytest.mark.parametrize("make", [mlp, cnn])
def test_trace_on_the_device_matches_eager_call_after_call(device, make):
    """The arrays a forward keeps for its backward (max_pool's indices, softmax) are read
    afresh on every call, cupy arrays as much as numpy ones: not frozen at trace time."""
    model = make().to(device)
    shape = (5, 1, 8, 8) if make is cnn else (5, 2)
    xs = [labkit.from_numpy(a).to(device) for a in arrays(shape, shape, shape)]
    target = labkit.tensor([0, 1, 2, 1, 0], device=device)
    traced = jit.trace(model, xs[0])
    for x in xs:
        model.zero_grad()
        loss = labkit.nn.functional.cross_entropy(traced(x), target)
        loss.backward()
        grads = [p.grad.clone() for p in model.parameters()]
        model.zero_grad()
        eager = labkit.nn.functional.cross_entropy(model(x), target)
        eager.backward()
        assert loss.device.type == device and close(loss, eager)
        for g, p in zip(grads, model.parameters()):
            assert close(g, p.grad)


def test_parameters_are_captured_by_reference():
    model = mlp()
    x = labkit.randn(3, 2)
    traced = jit.trace(model, x)
    with labkit.no_grad():
        model[0].weight.mul_(2)
    assert close(traced(x), model(x))


def test_trace_code_is_python_calling_labkit_ops():
    x = labkit.randn(4, 3)
    code = jit.trace(lambda x: (x * 2).relu().sum(), x).code
    assert code.splitlines()[0].startswith("def ") and "relu(" in code and "return" in code


def test_wrong_shape_gives_a_clear_error():
    traced = jit.trace(lambda x: x.sum(0), labkit.randn(4, 3))
    with pytest.raises(RuntimeError, match=r"traced with shape \(4, 3\).*jit.compile"):
        traced(labkit.randn(5, 3))


def test_in_place_change_of_an_input_is_replayed():
    def bump(x):
        x.add_(1)
        return x * 2
    traced = jit.trace(bump, labkit.zeros(3))
    x = labkit.zeros(3)
    out = traced(x)
    assert np.array_equal(x.numpy(), np.ones(3)) and np.array_equal(out.numpy(), 2 * np.ones(3))
