"""Gradients that flow as arrays (issue 21, W2): when nothing records the backward, the engine
calls a Function's backward_arrays and hands arrays from node to node, wrapping them in Tensors
only where a Tensor is due (hooks, leaves, grad() results, Tensor formulas). Checked against
torch: values, dtypes, 0-d, fan-out, shared gradients, numbers, mixed dtypes (the fallback to
backward), and the errors saved tensors raise (in-place change, backward twice)."""
import numpy as np
import pytest

import labkit
from labkit.autograd import Function

torch = pytest.importorskip("torch")


def _pair(arrs):
    return ([labkit.tensor(a, requires_grad=True) for a in arrs],
            [torch.tensor(a, requires_grad=True) for a in arrs])


def _same_grads(mine, ref, rtol=1e-6):
    for m, r in zip(mine, ref):
        assert type(m.grad) is labkit.Tensor and type(m.grad._data) is np.ndarray
        assert str(m.grad.dtype).split(".")[-1] == str(r.grad.dtype).split(".")[-1]
        assert tuple(m.grad.shape) == tuple(r.grad.shape)
        np.testing.assert_allclose(m.grad._data, r.grad.numpy(), rtol=rtol, atol=1e-7)


def _chain(x, w, c):
    """fan-out (h used twice), numbers (int and float), broadcasting, mixed dtypes, exp/tanh."""
    h = (x * w + 0.5).tanh()
    k = h * 2.5 + h.exp() * 3
    return (k * c).sum() + (h * h).sum()


@pytest.mark.parametrize("shape", [(4, 3), (), (1,), (0, 3)])
def test_a_mixed_chain_matches_torch(shape):
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, shape).astype(np.float32)
    w = rng.uniform(-1, 1, shape[-1:] if shape else ()).astype(np.float32)
    c = rng.uniform(-1, 1, shape).astype(np.float64)       # float64: mul falls back to backward
    mine, ref = _pair([x, w, c])
    _chain(*mine).backward()
    _chain(*ref).backward()
    _same_grads(mine, ref)


def test_a_0d_chain_keeps_0d_arrays_and_torchs_values():
    mine, ref = _pair([np.float32(0.3), np.float32(-1.2)])
    for (a, b) in (mine, ref):
        ((a * b).tanh() * a + b.exp() * b * a).backward()
    _same_grads(mine, ref)


def test_one_gradient_reaching_two_leaves_is_not_shared():
    """add's backward hands the same array to both inputs: each leaf keeps its own copy."""
    a, b = labkit.ones(3, requires_grad=True), labkit.ones(3, requires_grad=True)
    (a + b).sum().backward()
    a.grad.add_(1)
    assert b.grad.tolist() == [1.0, 1.0, 1.0]
    (a + a + b).sum().backward()          # a leaf reached twice sums its two arrays
    assert a.grad.tolist() == [4.0, 4.0, 4.0] and b.grad.tolist() == [2.0, 2.0, 2.0]


def test_hooks_retain_grad_and_grad_inputs_receive_tensors():
    x = labkit.tensor([0.5, -1.0, 2.0], dtype=labkit.float64, requires_grad=True)
    xt = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    seen = []
    outs = []
    for L, t in ((labkit, x), (torch, xt)):
        h = t * t
        h.register_hook(lambda g, L=L: seen.append(type(g).__module__.split(".")[0]) or g * 2)
        m = h.tanh()
        m.retain_grad()
        y = (m * 3.0).exp().sum()
        (gh,) = L.autograd.grad(y, [h], retain_graph=True)
        y.backward()
        outs.append((gh.detach().numpy().copy(), m.grad.numpy().copy(), t.grad.numpy().copy()))
    assert seen == ["labkit", "labkit", "torch", "torch"]    # grad() and backward()
    for mine, ref in zip(*outs):
        np.testing.assert_allclose(mine, ref, rtol=1e-12)


def test_an_input_changed_in_place_is_still_detected():
    for L in (labkit, torch):
        x = L.ones(3, requires_grad=True)
        b = L.ones(3)
        y = x * b
        b.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def test_an_output_changed_in_place_is_still_detected():
    for L in (labkit, torch):
        x = L.ones(3, requires_grad=True)
        y = (x * 2).exp()
        y.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def test_backward_twice_through_freed_arrays_raises_as_torch():
    for L in (labkit, torch):
        x = L.ones(3, requires_grad=True)
        y = (x * x).tanh().sum()
        y.backward()
        with pytest.raises(RuntimeError, match="second time"):
            y.backward()


class Cube(Function):
    """x**3 with both formulas: the engine picks backward_arrays when nothing records."""
    calls = []

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x._data ** 3

    @staticmethod
    def backward(ctx, grad):
        Cube.calls.append("tensors")
        (x,) = ctx.saved_tensors
        return grad * 3 * x * x

    @staticmethod
    def backward_arrays(ctx, grad):
        Cube.calls.append("arrays")
        (x,) = ctx.saved_arrays
        return (grad * 3 * x * x,) if x.dtype == np.float64 else NotImplemented


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_a_function_with_backward_arrays_uses_it_only_when_nothing_records(dtype):
    Cube.calls.clear()
    x = labkit.tensor([1.0, -2.0], dtype=getattr(labkit, dtype), requires_grad=True)
    Cube.apply(x).sum().backward()
    assert x.grad.tolist() == [3.0, 12.0]
    assert Cube.calls == (["arrays"] if dtype == "float64" else ["arrays", "tensors"])
    Cube.calls.clear()
    (g,) = labkit.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    (gg,) = labkit.autograd.grad(g.sum(), x)
    assert Cube.calls == ["tensors"] and gg.tolist() == [6.0, -12.0]


def test_anomaly_mode_takes_the_tensor_path_and_still_finds_nan():
    x = labkit.tensor([-1.0, 1.0], requires_grad=True)
    with labkit.autograd.detect_anomaly():
        y = x.sqrt().exp().sum()
        with pytest.raises(RuntimeError, match="nan"):
            y.backward()


def _random_program(seed):
    """A random graph of the ops with backward_arrays and a few without, with reuse, numbers,
    broadcasting and mixed dtypes; returns f(L, leaves) -> scalar."""
    rng = np.random.default_rng(seed)
    steps = []
    for _ in range(int(rng.integers(3, 12))):
        kind = rng.choice(["mul", "add", "tanh", "exp", "num", "sub", "div", "sum0"])
        i, j = int(rng.integers(0, 1 << 16)), int(rng.integers(0, 1 << 16))
        c = float(np.round(rng.uniform(-2, 2), 2))
        steps.append((kind, i, j, c))

    def f(L, leaves):
        vals = list(leaves)
        for kind, i, j, c in steps:
            a, b = vals[i % len(vals)], vals[j % len(vals)]
            if kind == "mul":
                v = a * b
            elif kind == "add":
                v = a + b
            elif kind == "tanh":
                v = a.tanh()
            elif kind == "exp":
                v = (a * 0.3).exp()
            elif kind == "num":
                v = a * c + (2 if c > 0 else 3)
            elif kind == "sub":
                v = a - b
            elif kind == "div":
                v = a / (b * b + 1)
            else:
                v = a.sum(0, keepdim=True) * b if a.dim() else a * b
            vals.append(v)
        return sum(v.sum() for v in vals[len(leaves):])
    return f


@pytest.mark.parametrize("seed", range(40))
def test_random_graphs_match_torch(seed):
    rng = np.random.default_rng(seed)
    shapes = [(3, 4), (4,), (1, 4), ()][: int(rng.integers(2, 5))]
    dtypes = ["float64", "float32"] if seed % 3 else ["float64"]
    arrs = [rng.uniform(-1, 1, s).astype(dtypes[k % len(dtypes)]) for k, s in enumerate(shapes)]
    mine, ref = _pair(arrs)
    f = _random_program(seed)
    f(labkit, mine).backward()
    f(torch, ref).backward()
    for m, r in zip(mine, ref):
        assert (m.grad is None) == (r.grad is None)
        if r.grad is not None:
            assert str(m.grad.dtype).split(".")[-1] == str(r.grad.dtype).split(".")[-1]
            np.testing.assert_allclose(m.grad._data, r.grad.numpy(), rtol=2e-5, atol=1e-6)
