"""mse_loss as one op (engine/ops/mse_loss.py), against torch's MseLossBackward0: values,
dtypes, gradients by both backward paths (arrays, and Tensor ops under create_graph), second
derivatives, the three reductions, size-0/size-1/0-d inputs, mixed dtypes; and the transforms
that read its op-table row (jvp, vmap, jit.compile, ONNX export)."""
import numpy as np
import pytest

import labkit
import labkit.nn.functional as F
from labkit.engine.ops import mse_loss as mse_module

torch = pytest.importorskip("torch")
TF = torch.nn.functional

SHAPES = [(), (0,), (1,), (1, 1), (4,), (3, 5), (2, 0, 3), (2, 3, 4)]
REDUCTIONS = ["mean", "sum", "none"]


@pytest.fixture
def spy(monkeypatch):
    """Counts the backwards that took the array path (backward_arrays gave gradients)."""
    taken = []
    fast = mse_module.MseLoss.backward_arrays

    def counting(ctx, grad):
        out = fast(ctx, grad)
        if out is not NotImplemented:
            taken.append(1)
        return out
    monkeypatch.setattr(mse_module.MseLoss, "backward_arrays", staticmethod(counting))
    return taken


def _pair(shape, dtype, seed, device="cpu", rg=(True, True)):
    rng = np.random.default_rng(seed)
    x, t = (rng.uniform(-2, 2, shape).astype(dtype) for _ in range(2))
    lk = (labkit.tensor(x, device=device, requires_grad=rg[0]),
          labkit.tensor(t, device=device, requires_grad=rg[1]))
    th = (torch.tensor(x, requires_grad=rg[0]), torch.tensor(t, requires_grad=rg[1]))
    return lk, th


def _tol(dtype):
    return dict(rtol=2e-6, atol=2e-6) if np.dtype(dtype) == np.float32 else \
        dict(rtol=1e-12, atol=1e-12)


def _np(t):
    return t.detach().cpu().numpy() if isinstance(t, torch.Tensor) else labkit_np(t)


def labkit_np(t):
    return np.asarray(t.detach().cpu().numpy())


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("rg", [(True, True), (True, False)], ids=["x,t", "x"])
def test_values_and_gradients_by_both_paths(device, dtype, shape, reduction, rg, spy):
    (x, t), (xt, tt) = _pair(shape, dtype, 1, device, rg)
    ref = TF.mse_loss(xt, tt, reduction=reduction)
    out = F.mse_loss(x, t, reduction=reduction)
    assert out.grad_fn.name() == type(ref.grad_fn).__name__ == "MseLossBackward0"
    assert str(out.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    assert tuple(out.shape) == tuple(ref.shape)
    np.testing.assert_allclose(labkit_np(out), _np(ref), equal_nan=True, **_tol(dtype))
    g = np.random.default_rng(9).standard_normal(tuple(ref.shape)).astype(dtype)
    inputs_t = [a for a in (xt, tt) if a.requires_grad]
    want = torch.autograd.grad(ref, inputs_t, torch.tensor(g))
    for create_graph in (False, True):
        before = len(spy)
        out = F.mse_loss(x, t, reduction=reduction)
        got = labkit.autograd.grad(out, [a for a in (x, t) if a.requires_grad],
                                   labkit.tensor(g, device=device), create_graph=create_graph)
        assert (len(spy) > before) is (not create_graph), "wrong backward path"
        for m, r in zip(got, want):
            assert m.dtype == x.dtype and tuple(m.shape) == tuple(r.shape)
            assert not isinstance(m._data, np.generic)
            np.testing.assert_allclose(labkit_np(m), _np(r), **_tol(dtype))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(), (1,), (3, 4)], ids=str)
def test_second_derivatives(device, reduction, shape):
    (x, t), (xt, tt) = _pair(shape, "float64", 2, device)
    rng = np.random.default_rng(3)
    g = rng.standard_normal(shape if reduction == "none" else ())
    v = rng.standard_normal(shape)
    res = []
    for lib, (a, b), F_, kw in ((labkit, (x, t), F, dict(device=device)),
                                (torch, (xt, tt), TF, {})):
        out = F_.mse_loss(a, b, reduction=reduction)
        gx, gt = lib.autograd.grad(out, (a, b), lib.tensor(g, **kw), create_graph=True)
        s = (gx * lib.tensor(v, **kw)).sum() + (gt * gt).sum()
        res.append(lib.autograd.grad(s, (a, b)))
    for m, r in zip(*res):
        np.testing.assert_allclose(labkit_np(m), _np(r), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("xd,td", [("float32", "float64"), ("float64", "float32"),
                                   ("float32", "int64"), ("float64", "bool")])
def test_mixed_dtypes_promote_as_torch(xd, td):
    rng = np.random.default_rng(4)
    xa = rng.uniform(-2, 2, (3, 2)).astype(xd)
    ta = (rng.uniform(-2, 2, (3, 2)) > 0 if td == "bool" else
          rng.uniform(-2, 2, (3, 2)) * 3).astype(td)
    x, xt = labkit.tensor(xa, requires_grad=True), torch.tensor(xa, requires_grad=True)
    t, tt = labkit.tensor(ta), torch.tensor(ta)
    for reduction in REDUCTIONS:
        out, ref = F.mse_loss(x, t, reduction=reduction), TF.mse_loss(xt, tt, reduction=reduction)
        assert str(out.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
        np.testing.assert_allclose(labkit_np(out), _np(ref), rtol=1e-6)
        (gx,), (gxt,) = labkit.autograd.grad(out.sum(), [x]), torch.autograd.grad(ref.sum(), [xt])
        assert gx.dtype == x.dtype
        np.testing.assert_allclose(labkit_np(gx), _np(gxt), rtol=1e-6, atol=1e-7)


def test_float16_is_close_to_torch():
    (x, t), (xt, tt) = _pair((4, 3), "float16", 5)
    for reduction in REDUCTIONS:
        out, ref = F.mse_loss(x, t, reduction=reduction), TF.mse_loss(xt, tt, reduction=reduction)
        assert out.dtype == labkit.float16
        np.testing.assert_allclose(labkit_np(out).astype(np.float32),
                                   _np(ref).astype(np.float32), rtol=2e-3, atol=2e-3)


def test_empty_mean_is_nan_without_a_warning(recwarn):
    x = labkit.zeros(0, requires_grad=True)
    xt = torch.zeros(0, requires_grad=True)
    out, ref = F.mse_loss(x, labkit.zeros(0)), TF.mse_loss(xt, torch.zeros(0))
    assert np.isnan(out.item()) and np.isnan(ref.item())
    out.backward()
    ref.backward()
    assert tuple(x.grad.shape) == tuple(xt.grad.shape) == (0,)
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_nn_module_and_errors():
    (x, t), (xt, tt) = _pair((3, 2), "float32", 6)
    for reduction in REDUCTIONS:
        out = labkit.nn.MSELoss(reduction=reduction)(x, t)
        ref = torch.nn.MSELoss(reduction=reduction)(xt, tt)
        np.testing.assert_allclose(labkit_np(out), _np(ref), rtol=1e-6)
    with pytest.raises(ValueError, match="reduction"):
        F.mse_loss(x, t, reduction="avg")
    with pytest.raises(NotImplementedError, match="mse_loss"):
        F.mse_loss(labkit.tensor([1, 2]), labkit.tensor([1, 3]))
    # (3, 2) against (2,): torch broadcasts, with a UserWarning naming both sizes; so does labkit
    for reduction in REDUCTIONS:
        with pytest.warns(UserWarning, match="different to the input size"):
            ref = TF.mse_loss(xt, tt[0], reduction=reduction)
        with pytest.warns(UserWarning, match=r"Size\(\[2\]\).*Size\(\[3, 2\]\)"):
            out = F.mse_loss(x, t[0], reduction=reduction)
        np.testing.assert_allclose(labkit_np(out), _np(ref), rtol=1e-6)


def test_saved_input_changed_in_place_is_caught():
    (x, t), _ = _pair((3,), "float32", 7)
    t = t.detach()
    out = F.mse_loss(x, t)
    with labkit.no_grad():
        t.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_jvp_matches_torch(reduction):
    (x, t), (xt, tt) = _pair((3, 4), "float64", 8, rg=(False, False))
    rng = np.random.default_rng(1)
    vx, vt = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    out, tan = labkit.func.jvp(lambda a, b: F.mse_loss(a, b, reduction=reduction), (x, t),
                               (labkit.tensor(vx), labkit.tensor(vt)))
    ref, tref = torch.func.jvp(lambda a, b: TF.mse_loss(a, b, reduction=reduction), (xt, tt),
                               (torch.tensor(vx), torch.tensor(vt)))
    np.testing.assert_allclose(labkit_np(tan), _np(tref), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(labkit_np(out), _np(ref), rtol=1e-12)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("in_dims", [(0, 0), (0, None), (None, 0)])
def test_vmap_matches_torch(reduction, in_dims):
    rng = np.random.default_rng(2)
    xa = rng.standard_normal((5, 3, 2) if in_dims[0] == 0 else (3, 2))
    ta = rng.standard_normal((5, 3, 2) if in_dims[1] == 0 else (3, 2))
    mine = labkit.func.vmap(lambda a, b: F.mse_loss(a, b, reduction=reduction),
                            in_dims=in_dims)(labkit.tensor(xa), labkit.tensor(ta))
    ref = torch.func.vmap(lambda a, b: TF.mse_loss(a, b, reduction=reduction),
                          in_dims=in_dims)(torch.tensor(xa), torch.tensor(ta))
    assert tuple(mine.shape) == tuple(ref.shape)
    np.testing.assert_allclose(labkit_np(mine), _np(ref), rtol=1e-12, atol=1e-12)


def test_vmap_of_grad_gives_per_example_gradients():
    rng = np.random.default_rng(3)
    w = rng.standard_normal((2,))
    xs, ys = rng.standard_normal((4, 2)), rng.standard_normal((4,))
    mine = labkit.func.vmap(labkit.func.grad(lambda w, x, y: F.mse_loss((w * x).sum(), y)),
                            in_dims=(None, 0, 0))(*(labkit.tensor(a) for a in (w, xs, ys)))
    ref = torch.func.vmap(torch.func.grad(lambda w, x, y: TF.mse_loss((w * x).sum(), y)),
                          in_dims=(None, 0, 0))(*(torch.tensor(a) for a in (w, xs, ys)))
    np.testing.assert_allclose(labkit_np(mine), _np(ref), rtol=1e-12)


def test_compiled_training_step_matches_eager():
    def make():
        labkit.manual_seed(0)
        model = labkit.nn.Sequential(labkit.nn.Linear(4, 8), labkit.nn.ReLU(),
                                     labkit.nn.Linear(8, 2))
        opt = labkit.optim.SGD(model.parameters(), lr=0.1)

        def step(x, y):
            opt.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            return loss
        return step, model
    rng = np.random.default_rng(4)
    data = [(labkit.from_numpy(rng.standard_normal((6, 4)).astype(np.float32)),
             labkit.from_numpy(rng.standard_normal((6, 2)).astype(np.float32)))
            for _ in range(3)]
    (eager, me), (fn, mc) = make(), make()
    compiled = labkit.jit.compile(fn)
    for x, y in data:
        np.testing.assert_allclose(compiled(x, y).item(), eager(x, y).item(), rtol=1e-5)
    for a, b in zip(me.parameters(), mc.parameters()):
        np.testing.assert_allclose(labkit_np(a), labkit_np(b), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_onnx_export_computes_the_loss(reduction, tmp_path):
    onnx = pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")

    class Loss(labkit.nn.Module):
        def forward(self, x, y):
            return F.mse_loss(x, y, reduction=reduction)
    rng = np.random.default_rng(5)
    x, y = (labkit.from_numpy(rng.standard_normal((3, 2)).astype(np.float32)) for _ in "xy")
    path = tmp_path / "mse.onnx"
    labkit.onnx.export(Loss(), (x, y), path, input_names=["x", "y"], output_names=["loss"])
    onnx.checker.check_model(onnx.load(str(path)), full_check=True)
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (got,) = sess.run(None, {"x": x.numpy(), "y": y.numpy()})
    np.testing.assert_allclose(got, labkit_np(F.mse_loss(x, y, reduction=reduction)),
                               rtol=1e-6)
