"""The backwards that run on arrays when nothing records them (each Function's
backward_arrays): matmul, linear, relu, clamp, pow 2, sum, mean, sub, mse_loss. Each case runs
both paths, the array one (plain backward) and the Tensor-op one (create_graph=True), and
compares values, dtypes and shapes of the gradients with torch's, for a random upstream
gradient; a spy checks which path ran."""
import numpy as np
import pytest

import labkit
from labkit.engine.function import Function
from labkit.engine.ops import arithmetic, linalg, linear, mse_loss, reduce, unary

torch = pytest.importorskip("torch")

MODULES = (arithmetic, linalg, linear, mse_loss, reduce, unary)


@pytest.fixture
def spy(monkeypatch):
    """Counts the backwards that took the array path (backward_arrays gave gradients)."""
    taken = []

    def counting(cls, fast):
        def backward_arrays(ctx, grad):
            out = fast(ctx, grad)
            if out is not NotImplemented:
                taken.append(cls)
            return out
        return staticmethod(backward_arrays)
    for m in MODULES:
        for cls in list(vars(m).values()):
            if isinstance(cls, type) and issubclass(cls, Function) and \
                    "backward_arrays" in vars(cls) and cls.__module__ == m.__name__:
                monkeypatch.setattr(cls, "backward_arrays",
                                    counting(cls, vars(cls)["backward_arrays"].__func__))
    return taken


def _data(shape, seed, dtype, layout=None):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-2, 2, size=shape)
    if layout == "T":                       # non-contiguous: a transposed view
        a = np.ascontiguousarray(a.swapaxes(-1, -2)).swapaxes(-1, -2)
    return a.astype(dtype)


def _twin(arr, device, rg=True, layout=None):
    """labkit and torch tensors with arr's values (and, for layout 'T', a transposed layout)."""
    if layout == "T":
        base = np.ascontiguousarray(arr.swapaxes(-1, -2))
        a = labkit.tensor(base, device=device).transpose(-1, -2)
        t = torch.tensor(base).transpose(-1, -2)
        if rg:
            a = a.detach().requires_grad_()
            t = t.detach().requires_grad_()
        return a, t
    return (labkit.tensor(arr, device=device, requires_grad=rg),
            torch.tensor(arr, requires_grad=rg))


def _tol(dtype):
    return dict(rtol=1e-5, atol=1e-5) if np.dtype(dtype) == np.float32 else \
        dict(rtol=1e-10, atol=1e-12)


def _both_paths(f_lk, f_t, lk_in, t_in, spy, device, seed=7):
    """Gradients of f w.r.t. the inputs that require grad, by both labkit paths and torch."""
    t_out = f_t(*t_in)
    g = np.random.default_rng(seed).standard_normal(tuple(t_out.shape))
    g_t = torch.tensor(g, dtype=t_out.dtype)
    t_req = [t for t in t_in if isinstance(t, torch.Tensor) and t.requires_grad]
    ref = torch.autograd.grad(t_out, t_req, g_t)
    results = {}
    for create_graph in (False, True):
        lk_out = f_lk(*lk_in)
        assert str(lk_out.dtype).split(".")[-1] == str(t_out.dtype).split(".")[-1]
        lk_req = [a for a in lk_in if isinstance(a, labkit.Tensor) and a.requires_grad]
        before = len(spy)
        got = labkit.autograd.grad(lk_out, lk_req, labkit.tensor(g, device=device,
                                                                 dtype=lk_out.dtype),
                                   create_graph=create_graph)
        results[create_graph] = (len(spy) - before, got)
    assert results[False][0] > 0, "the array path did not run"
    assert results[True][0] == 0, "create_graph=True must record the Tensor-op backward"
    for create_graph, (_, got) in results.items():
        for i, (m, r) in enumerate(zip(got, ref)):
            assert tuple(m.shape) == tuple(r.shape), (create_graph, i)
            assert not isinstance(m._data, np.generic), "a 0-d gradient must stay an array"
            assert str(m.dtype).split(".")[-1] == str(r.dtype).split(".")[-1], (create_graph, i)
            np.testing.assert_allclose(m.detach().cpu().numpy(), r.numpy(),
                                       err_msg=f"create_graph={create_graph}, input {i}",
                                       **_tol(r.numpy().dtype))
    np.testing.assert_array_equal(*(results[c][1][0].detach().cpu().numpy()
                                    for c in (False, True)))   # the same formula
    return results


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("sa,sb,layout", [
    ((5, 7), (7, 3), None), ((1, 7), (7, 1), None), ((5, 1), (1, 3), None),
    ((5, 7), (7, 3), "T"), ((2, 3, 4, 5), (5, 6), None), ((3, 4, 5), (1, 5, 6), None),
    ((0, 4), (4, 3), None), ((4, 0), (0, 3), None)])
@pytest.mark.parametrize("which", ["both", "a", "b"])
def test_matmul(device, spy, dtype, sa, sb, layout, which):
    a, ta = _twin(_data(sa, 1, dtype), device, which in ("both", "a"), layout)
    b, tb = _twin(_data(sb, 2, dtype), device, which in ("both", "b"), layout)
    _both_paths(lambda x, y: x @ y, lambda x, y: x @ y, [a, b], [ta, tb], spy, device)


def test_mm_after_sum_takes_a_broadcast_gradient(device, spy):
    """sum() hands mm's backward a stride-0 gradient: the products must still be right."""
    a, ta = _twin(_data((6, 4), 3, np.float32), device)
    b, tb = _twin(_data((4, 5), 4, np.float32), device)
    a.mm(b).sum().backward()
    ta.mm(tb).sum().backward()
    np.testing.assert_allclose(a.grad.cpu().numpy(), ta.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(b.grad.cpu().numpy(), tb.grad.numpy(), rtol=1e-6)
    assert a.grad.dtype == labkit.float32 and len(spy) >= 2


def test_matmul_second_derivative(device, spy):
    """The Tensor-op path stays differentiable: d/db of |d(a @ b)/da|^2."""
    a, ta = _twin(_data((3, 4), 5, np.float64), device)
    b, tb = _twin(_data((4, 2), 6, np.float64), device)
    (ga,) = labkit.autograd.grad((a @ b).sum(), [a], create_graph=True)
    (gta,) = torch.autograd.grad((ta @ tb).sum(), [ta], create_graph=True)
    (gb,) = labkit.autograd.grad((ga ** 2).sum(), [b])
    (gtb,) = torch.autograd.grad((gta ** 2).sum(), [tb])
    np.testing.assert_allclose(gb.cpu().numpy(), gtb.numpy(), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("xs,bias,layout", [
    ((4, 5), True, None), ((4, 5), False, None), ((5,), True, None), ((2, 4, 5), True, None),
    ((0, 5), True, None), ((1, 5), True, None), ((4, 5), True, "T")])
def test_linear(device, spy, dtype, xs, bias, layout):
    x, tx = _twin(_data(xs, 1, dtype), device, True, layout if len(xs) == 2 else None)
    w, tw = _twin(_data((3, 5), 2, dtype), device)
    ins, tins = [x, w], [tx, tw]
    if bias:
        b, tb = _twin(_data((3,), 3, dtype), device)
        ins.append(b)
        tins.append(tb)
    _both_paths(lambda *a: labkit.nn.functional.linear(*a),
                lambda *a: torch.nn.functional.linear(*a), ins, tins, spy, device)


def test_linear_second_derivative(device, spy):
    x, tx = _twin(_data((3, 4), 1, np.float64), device)
    w, tw = _twin(_data((2, 4), 2, np.float64), device)
    b, tb = _twin(_data((2,), 3, np.float64), device)
    (gx,) = labkit.autograd.grad((labkit.nn.functional.linear(x, w, b) ** 2).sum(), [x],
                                 create_graph=True)
    (gtx,) = torch.autograd.grad((torch.nn.functional.linear(tx, tw, tb) ** 2).sum(), [tx],
                                 create_graph=True)
    got = labkit.autograd.grad((gx ** 2).sum(), [w, b])
    ref = torch.autograd.grad((gtx ** 2).sum(), [tw, tb])
    for m, r in zip(got, ref):
        np.testing.assert_allclose(m.cpu().numpy(), r.numpy(), rtol=1e-12)


SPECIAL = np.array([-1.5, -0.0, 0.0, 0.7, np.nan, 2.0, -np.inf, np.inf])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["relu", "clamp_min", "clamp_max", "clamp_both",
                                "clamp_empty_range", "clamp_int_bound"])
@pytest.mark.parametrize("shape", [(8,), (2, 8), ()])
def test_relu_and_clamp(device, spy, dtype, op, shape):
    """Edge values (signed zeros, the bounds themselves, nan, inf) and 0-d; the upstream
    gradient holds nan and inf too, which a mask must keep out where the input was cut."""
    arr = (SPECIAL if shape != () else np.array(-0.0)).astype(dtype)
    arr = np.broadcast_to(arr, shape if shape != () else ()).copy()
    fns = {"relu": (lambda x: x.relu(), lambda x: x.relu()),
           "clamp_min": (lambda x: x.clamp(min=0.7), lambda x: x.clamp(min=0.7)),
           "clamp_max": (lambda x: x.clamp(max=0.0), lambda x: x.clamp(max=0.0)),
           "clamp_both": (lambda x: x.clamp(-1.5, 0.7), lambda x: x.clamp(-1.5, 0.7)),
           "clamp_empty_range": (lambda x: x.clamp(1.0, -1.0), lambda x: x.clamp(1.0, -1.0)),
           "clamp_int_bound": (lambda x: x.clamp(min=0), lambda x: x.clamp(min=0))}
    f_lk, f_t = fns[op]
    x, tx = _twin(arr, device)
    _both_paths(lambda a: f_lk(a) * 1.0, lambda a: f_t(a) * 1.0, [x], [tx], spy, device)
    g = np.array([np.nan, np.inf, 1.0, -2.0, np.nan, 3.0, np.inf, -np.inf], dtype)
    g = np.broadcast_to(g, shape if shape != () else ()).copy() if shape != () else \
        np.array(np.nan, dtype)
    x, tx = _twin(arr, device)
    f_lk(x).backward(labkit.tensor(g, device=device))
    f_t(tx).backward(torch.tensor(g))
    np.testing.assert_array_equal(x.grad.cpu().numpy(), tx.grad.numpy())
    assert x.grad.dtype == getattr(labkit, np.dtype(dtype).name)


def test_clamp_forward_keeps_dtype_and_nan(device):
    for dtype in (np.float16, np.float32, np.float64):
        arr = SPECIAL.astype(dtype)
        for kw in ({"min": 0}, {"max": 0.5}, {"min": -1, "max": 1.5}, {"min": 2, "max": 1}):
            got = labkit.tensor(arr, device=device).clamp(**kw)
            ref = torch.tensor(arr).clamp(**kw)
            assert str(got.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
            np.testing.assert_array_equal(got.cpu().numpy(), ref.numpy())
    got = labkit.tensor(np.float32(-3.0), device=device).clamp(min=0)
    assert got.shape == () and got.item() == 0.0


def test_clamp_tensor_bounds_take_the_tensor_path(device, spy):
    x, tx = _twin(_data((6,), 1, np.float64), device)
    lo, tlo = _twin(_data((6,), 2, np.float64) - 1, device)
    labkit.clamp(x, min=lo).sum().backward()
    torch.clamp(tx, min=tlo).sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), tx.grad.numpy())
    np.testing.assert_array_equal(lo.grad.cpu().numpy(), tlo.grad.numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(4, 3), (1,), (), (0, 3)])
def test_pow2(device, spy, dtype, shape):
    x, tx = _twin(_data(shape, 1, dtype), device)
    _both_paths(lambda a: a ** 2, lambda a: a ** 2, [x], [tx], spy, device)


def test_pow2_bits_and_overflow_as_torch():
    """2 * a overflows before the product, as torch's grad * (2 * a)."""
    arr = np.array([3e38, -3e38, 1.5, np.nan], np.float32)
    g = np.array([0.25, 0.5, 3.0, 1.0], np.float32)
    x, tx = _twin(arr, "cpu")
    x.pow(2).backward(labkit.tensor(g))
    with np.errstate(over="ignore"):
        tx.pow(2).backward(torch.tensor(g))
    np.testing.assert_array_equal(x.grad.cpu().numpy(), tx.grad.numpy())


def test_pow2_second_derivative(device):
    x, tx = _twin(_data((5,), 1, np.float64), device)
    (g,) = labkit.autograd.grad((x ** 2).sum(), [x], create_graph=True)
    (tg,) = torch.autograd.grad((tx ** 2).sum(), [tx], create_graph=True)
    (g2,) = labkit.autograd.grad((g ** 3).sum(), [x])
    (tg2,) = torch.autograd.grad((tg ** 3).sum(), [tx])
    np.testing.assert_allclose(g2.cpu().numpy(), tg2.cpu().numpy(), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("red", ["sum", "mean"])
@pytest.mark.parametrize("shape,kw", [
    ((4, 3), {}), ((4, 3), {"dim": 1}), ((4, 3), {"dim": 0, "keepdim": True}),
    ((2, 1, 3), {"dim": (0, 2)}), ((), {}), ((1,), {"dim": 0}), ((0, 3), {"dim": 1}),
    ((3, 0), {"dim": 1})])
def test_sum_and_mean(device, spy, dtype, red, shape, kw):
    x, tx = _twin(_data(shape, 1, dtype), device)
    if red == "mean" and 0 in shape:      # mean over nothing is nan; its gradient is empty
        got = getattr(x, red)(**kw)
        ref = getattr(tx, red)(**kw)
        np.testing.assert_array_equal(got.detach().cpu().numpy(), ref.detach().numpy())
        return
    _both_paths(lambda a: getattr(a, red)(**kw) * 1.0, lambda a: getattr(a, red)(**kw) * 1.0,
                [x], [tx], spy, device)


@pytest.mark.parametrize("target_dtype", [np.float32, np.float64])
def test_mixed_dtypes_reach_each_input_in_its_own_dtype(spy, target_dtype):
    """float32 prediction, float32 or float64 target: the square, the sum and the mean are
    computed in the promoted dtype, and each gradient comes back in its input's dtype."""
    p, tp = _twin(_data((6, 2), 1, np.float32), "cpu")
    y, ty = _twin(_data((6, 2), 2, target_dtype), "cpu")
    for red in ("sum", "mean"):
        p.grad = y.grad = tp.grad = ty.grad = None
        getattr((p - y) ** 2, red)().backward()
        getattr((tp - ty) ** 2, red)().backward()
        for m, r in ((p, tp), (y, ty)):
            assert str(m.grad.dtype).split(".")[-1] == str(r.grad.dtype).split(".")[-1]
            np.testing.assert_allclose(m.grad.numpy(), r.grad.numpy(), rtol=1e-6)


def _two_layer(x, y, w1, w2):
    return (x.mm(w1).clamp(min=0).mm(w2) - y).pow(2).sum()


def test_w1_step_as_torch(spy):
    """benchmarks/w1_two_layer_step.py's step: the same loss and gradients as torch's, with
    every backward on the array path and each leaf's first gradient taken as it is."""
    rng = np.random.default_rng(0)
    arrs = [rng.standard_normal(s).astype(np.float32) for s in
            ((16, 50), (16, 10), (50, 20), (20, 10))]
    x, y = labkit.from_numpy(arrs[0]), labkit.from_numpy(arrs[1])
    w1 = labkit.from_numpy(arrs[2].copy()).requires_grad_()
    w2 = labkit.from_numpy(arrs[3].copy()).requires_grad_()
    tx, ty = torch.from_numpy(arrs[0]), torch.from_numpy(arrs[1])
    tw1 = torch.from_numpy(arrs[2].copy()).requires_grad_()
    tw2 = torch.from_numpy(arrs[3].copy()).requires_grad_()
    loss = _two_layer(x, y, w1, w2)
    tloss = _two_layer(tx, ty, tw1, tw2)
    loss.backward()
    tloss.backward()
    np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-5)
    for m, r in ((w1, tw1), (w2, tw2)):
        np.testing.assert_allclose(m.grad.numpy(), r.grad.numpy(), rtol=1e-4, atol=1e-3)
        assert m.grad.dtype == labkit.float32 and m.grad.grad_fn is None
    assert len(spy) == 6        # sum, pow, sub, mm, clamp, mm: every node on arrays


def test_in_place_change_after_forward_is_still_caught(spy):
    a = labkit.randn(3, 4, requires_grad=True)
    h = a * 1.0
    out = h.mm(labkit.randn(4, 2, requires_grad=True))
    with labkit.no_grad():
        h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()
    x = labkit.randn(5, requires_grad=True) * 1.0
    y = x.clamp(min=0)
    x.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_the_array_path_stays_off_under_jit_and_node_observers(spy):
    """A tracer (jit, vmap) and node observers (profiler, viz) see the Tensor-op backward."""
    w = labkit.randn(4, 3, requires_grad=True)
    x = labkit.randn(2, 4)
    seen = []

    def watch(node, grads):
        seen.append(node)
    labkit.engine.hooks.node_hooks.append(watch)
    try:
        x.mm(w).relu().sum().backward()
    finally:
        labkit.engine.hooks.node_hooks.remove(watch)
    assert seen and spy == []
    g = labkit.func.grad(lambda w: x.mm(w).relu().sum())(w)
    tw = torch.from_numpy(w.detach().numpy()).requires_grad_()
    ref = torch.func.grad(lambda tw: torch.from_numpy(x.numpy()).mm(tw).relu().sum())(tw)
    # relu's gradient depends on w (a zero derivative, torch's threshold_backward), so with
    # w requiring grad the result does too, in both
    assert g.requires_grad == ref.requires_grad is True
    np.testing.assert_allclose(g.detach().numpy(), ref.detach().numpy(), rtol=1e-6)
