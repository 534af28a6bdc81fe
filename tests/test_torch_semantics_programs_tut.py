"""Torch semantics that the tutorial/recipe/examples compat programs (tests/compat/programs/tut_*)
exposed: each test compares labkit with torch on the case a program met."""
import importlib
import warnings

import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")
import torch.nn.utils.parametrize  # noqa: E402  (torch does not import these with torch.nn)
import torch.nn.utils.prune  # noqa: E402,F401


def _np(t):
    return t.detach().numpy().copy()


def _same(a, b):
    np.testing.assert_array_equal(np.asarray(a.detach().numpy()), b.detach().numpy())


# --- channel dropout: torch's feature dropout masks (N, C, 1, ...) whatever the rank ----------

@pytest.mark.parametrize("name,shape", [
    ("dropout2d", (4, 6)), ("dropout2d", (2, 3, 4)), ("dropout2d", (2, 3, 4, 5)),
    ("dropout2d", (2, 3, 2, 2, 2)), ("dropout1d", (3, 5)), ("dropout1d", (2, 3, 5)),
    ("dropout3d", (2, 3, 4)), ("dropout3d", (3, 2, 2, 2)), ("dropout3d", (2, 3, 2, 2, 2)),
])
def test_channel_dropout_masks_like_torch(name, shape):
    x = np.ones(shape, dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        labkit.manual_seed(3)
        ours = getattr(labkit.nn.functional, name)(labkit.tensor(x), 0.5)
        torch.manual_seed(3)
        theirs = getattr(torch.nn.functional, name)(torch.tensor(x), 0.5)
    _same(ours, theirs)


def test_dropout2d_of_a_2d_input_warns_and_drops_elements():
    """The 'defining a neural network' recipe applies nn.Dropout2d after a Linear layer."""
    with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d"):
        labkit.nn.Dropout2d(0.5)(labkit.ones(1, 128))


@pytest.mark.parametrize("mod", [labkit, torch])
def test_channel_dropout_errors(mod):
    F = mod.nn.functional
    with pytest.raises(RuntimeError, match="at least 2 dimensions"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        F.dropout2d(mod.ones(5), 0.5)
    with pytest.raises(RuntimeError, match="Expected 2D or 3D input"):
        F.dropout1d(mod.ones(2, 2, 2, 2), 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert F.dropout2d(mod.ones(5), 0.5, training=False).shape == (5,)


# --- matrix_exp (the parametrizations tutorial's MatrixExponential) ---------------------------

@pytest.mark.parametrize("shape,scale,dtype", [
    ((3, 3), 1.0, "float64"), ((2, 4, 4), 0.3, "float64"), ((3, 3), 20.0, "float64"),
    ((1, 1), 2.0, "float32"), ((5, 5), 3.0, "float32"), ((0, 0), 1.0, "float32"),
    ((2, 0, 0), 1.0, "float64")])
def test_matrix_exp_values_and_gradients(shape, scale, dtype):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal(shape) * scale).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    x, y = labkit.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ours, theirs = labkit.matrix_exp(x), torch.matrix_exp(y)
    assert ours.dtype == labkit.float64 if dtype == "float64" else ours.dtype == labkit.float32
    rtol = 1e-10 if dtype == "float64" else 2e-5
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol,
                               atol=rtol * max(1.0, float(np.abs(theirs.detach().numpy()).max(
                                   initial=0))))
    if a.size:
        ours.backward(labkit.tensor(g))
        theirs.backward(torch.tensor(g))
        np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=rtol * 10,
                                   atol=rtol * 10 * float(np.abs(y.grad.numpy()).max()))
    assert labkit.linalg.matrix_exp is labkit.matrix_exp
    np.testing.assert_allclose(x.detach().matrix_exp().numpy(), theirs.detach().numpy(),
                               rtol=rtol, atol=rtol * max(1.0, float(np.abs(
                                   theirs.detach().numpy()).max(initial=0))))


def test_matrix_exp_second_derivative():
    a = np.array([[0.1, 0.5], [-0.3, 0.2]])
    outs = []
    for mod in (labkit, torch):
        x = mod.tensor(a, requires_grad=True)
        (gx,) = mod.autograd.grad(mod.matrix_exp(x).pow(2).sum(), x, create_graph=True)
        (ggx,) = mod.autograd.grad(gx.sin().sum(), x)
        outs.append(ggx.detach().numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-9)


@pytest.mark.parametrize("a,match", [
    (np.ones(3), "at least 2 dimensions"), (np.ones((2, 3)), "2 by 3 matrices"),
    (np.ones((2, 2), dtype=np.int64), "Expected a floating point or complex tensor as input. "
                                      "Got Long")])
def test_matrix_exp_errors(a, match):
    for mod in (labkit, torch):
        with pytest.raises(RuntimeError, match=match):
            mod.matrix_exp(mod.tensor(a))


# --- torch.nn.utils.prune (the pruning tutorial) ----------------------------------------------

def _twin_linear(mod, seed=0, shape=(6, 5)):
    """Linear layers with the same values in labkit and torch."""
    rng = np.random.default_rng(seed)
    layer = mod.nn.Linear(shape[1], shape[0])
    with mod.no_grad():
        layer.weight.copy_(mod.tensor(rng.standard_normal(shape).astype(np.float32)))
        layer.bias.copy_(mod.tensor(rng.standard_normal(shape[0]).astype(np.float32)))
    return layer


@pytest.mark.parametrize("how", ["random_unstructured", "l1_unstructured", "ln_structured",
                                 "random_structured", "repeat", "bias_count"])
def test_prune_masks_like_torch(how):
    masks, names = [], []
    for mod in (labkit, torch):
        prune = mod.nn.utils.prune
        layer = _twin_linear(mod)
        mod.manual_seed(5)
        if how == "random_unstructured":
            prune.random_unstructured(layer, "weight", amount=0.3)
        elif how == "l1_unstructured":
            prune.l1_unstructured(layer, "weight", amount=0.5)
        elif how == "ln_structured":
            prune.ln_structured(layer, "weight", amount=0.5, n=2, dim=0)
        elif how == "random_structured":
            prune.random_structured(layer, "weight", amount=2, dim=1)
        elif how == "repeat":       # a PruningContainer: the second prunes what the first kept
            prune.l1_unstructured(layer, "weight", amount=0.3)
            prune.ln_structured(layer, "weight", amount=1, n=1, dim=0)
            prune.l1_unstructured(layer, "weight", amount=4)
        else:
            prune.l1_unstructured(layer, "bias", amount=3)
        masks.append(_np(layer.weight_mask if how != "bias_count" else layer.bias_mask))
        names.append(([n for n, _ in layer.named_parameters()],
                      [n for n, _ in layer.named_buffers()], list(layer.state_dict())))
    np.testing.assert_array_equal(masks[0], masks[1])
    assert names[0] == names[1]


def test_prune_hook_gradient_and_remove_like_torch():
    res = []
    for mod in (labkit, torch):
        prune = mod.nn.utils.prune
        layer = _twin_linear(mod)
        prune.l1_unstructured(layer, "weight", amount=0.4)
        with mod.no_grad():
            layer.weight_orig.add_(1.0)          # the hook recomputes weight at the next call
        out = layer(mod.ones(2, 5))
        out.sum().backward()
        grad = _np(layer.weight_orig.grad)
        prune.remove(layer, "weight")
        res.append((_np(out.detach()), grad, _np(layer.weight.detach()),
                    type(layer.weight).__name__, [n for n, _ in layer.named_buffers()],
                    len(layer._forward_pre_hooks)))
    for a, b in zip(*res):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-6)
        else:
            assert a == b


def test_prune_global_unstructured_like_torch():
    masks = []
    for mod in (labkit, torch):
        prune = mod.nn.utils.prune
        a, b = _twin_linear(mod, 1, (4, 3)), _twin_linear(mod, 2, (5, 4))
        prune.l1_unstructured(b, "weight", amount=2)      # an existing mask is combined
        prune.global_unstructured([(a, "weight"), (b, "weight"), (a, "bias")],
                                  pruning_method=prune.L1Unstructured, amount=0.3)
        masks.append([_np(m) for m in (a.weight_mask, b.weight_mask, a.bias_mask)])
        assert type(b._forward_pre_hooks[next(iter(b._forward_pre_hooks))]).__name__ == \
            "PruningContainer"
    for x, y in zip(*masks):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("call,exc,match", [
    (lambda p, l: p.l1_unstructured(l, "bias", amount=10), ValueError, "should be smaller"),
    (lambda p, l: p.l1_unstructured(l, "bias", amount=1.5), ValueError, "float in the range"),
    (lambda p, l: p.ln_structured(l, "bias", amount=1, n=2, dim=0), ValueError,
     "multidimensional"),
    (lambda p, l: p.ln_structured(l, "weight", amount=1, n=2, dim=2), IndexError,
     "Invalid index 2"),
    (lambda p, l: p.remove(l, "weight"), ValueError, "has to be pruned before"),
])
def test_prune_errors_like_torch(call, exc, match):
    names = []
    for mod in (labkit, torch):
        layer = _twin_linear(mod)
        with pytest.raises(exc, match=match):
            call(mod.nn.utils.prune, layer)
        names.append([n for n, _ in layer.named_parameters()])   # restored, as torch does
    assert names[0] == names[1]


# --- parametrizations -------------------------------------------------------------------------

def _skew(mod):
    class Skew(mod.nn.Module):
        def forward(self, X):
            A = X.triu(1)
            return A - A.transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu(1)
    return Skew()


def test_parametrize_names_values_gradients_like_torch():
    res = []
    g = np.random.default_rng(3).standard_normal((2, 3)).astype(np.float32)
    for mod in (labkit, torch):
        P = mod.nn.utils.parametrize
        layer = _twin_linear(mod, 4, (3, 3))
        P.register_parametrization(layer, "weight", _skew(mod))
        out = layer(mod.ones(2, 3) * 0.5)
        out.backward(mod.tensor(g))
        orig = layer.parametrizations.weight.original
        res.append((type(layer).__name__, sorted(n for n, _ in layer.named_parameters()),
                    sorted(layer.state_dict()), _np(layer.weight.detach()),
                    _np(orig.grad), _np(orig.detach())))
        X = mod.tensor([[0.0, 1.0, 2.0], [-1.0, 0.0, 3.0], [-2.0, -3.0, 0.0]])
        layer.weight = X
        res.append((_np(layer.weight.detach()),))
        P.remove_parametrizations(layer, "weight")
        res.append((type(layer).__name__, type(layer.weight).__name__,
                    _np(layer.weight.detach())))
    n = len(res) // 2
    for a, b in zip(res[:n], res[n:]):
        for x, y in zip(a, b):
            if isinstance(x, np.ndarray):
                np.testing.assert_allclose(x, y, rtol=1e-6)
            else:
                assert x == y


@pytest.mark.parametrize("mod", [labkit, torch])
def test_parametrize_errors(mod):
    P = mod.nn.utils.parametrize

    class Shrink(mod.nn.Module):
        def forward(self, X):
            return X[:1]

    layer = mod.nn.Linear(2, 2)
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a "
                                         "parametrized element with name 'nope'"):
        P.register_parametrization(layer, "nope", Shrink())
    with pytest.raises(ValueError, match="may not change the shape"):
        P.register_parametrization(layer, "weight", Shrink())
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        P.remove_parametrizations(layer, "weight")
    P.register_parametrization(layer, "bias", Shrink(), unsafe=True)
    assert layer.bias.shape == (1,)


def test_weight_norm_and_spectral_norm_like_torch():
    res = []
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    for mod in (labkit, torch):
        a = mod.nn.utils.parametrizations.weight_norm(_twin_linear(mod), dim=0)
        b = mod.nn.utils.parametrizations.weight_norm(_twin_linear(mod), dim=None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            c = mod.nn.utils.weight_norm(_twin_linear(mod), dim=1)
        mod.manual_seed(0)
        s = mod.nn.utils.parametrizations.spectral_norm(_twin_linear(mod))
        outs = [m(mod.tensor(x)) for m in (a, b, c, s, s)]
        sum(o.sum() for o in outs).backward()
        res.append([_np(o.detach()) for o in outs] + [
            _np(a.parametrizations.weight.original0.grad),
            _np(b.parametrizations.weight.original1.grad),
            _np(c.weight_g.grad), _np(s.parametrizations.weight.original.grad),
            _np(s.parametrizations.weight[0]._u)])
    for x, y in zip(*res):
        np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)


# --- torch.autograd.forward_ad (the forward-mode AD tutorial) ---------------------------------

import torch.autograd.forward_ad  # noqa: E402


def test_forward_ad_dual_tensors_like_torch():
    rng = np.random.default_rng(1)
    p, t, w = (rng.standard_normal((3, 4)) for _ in range(3))
    res = []
    for mod in (labkit, torch):
        fwAD = mod.autograd.forward_ad
        with fwAD.dual_level():
            x = fwAD.make_dual(mod.tensor(p), mod.tensor(t))
            y = (x.sin() * mod.tensor(w)).softmax(-1) @ x.T + x.sum()
            primal, tangent = fwAD.unpack_dual(y)
            none = fwAD.unpack_dual(mod.tensor(w)).tangent
        res.append((_np(primal), _np(tangent), none, fwAD.unpack_dual(y).tangent))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-12)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-10)
    assert res[0][2:] == res[1][2:] == (None, None)


@pytest.mark.parametrize("mod", [labkit, torch])
def test_forward_ad_errors(mod):
    fwAD = mod.autograd.forward_ad
    with pytest.raises(RuntimeError, match="no level exists"):
        fwAD.make_dual(mod.ones(2), mod.ones(2))
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match="different size"):
            fwAD.make_dual(mod.ones(2), mod.ones(3))
        with pytest.raises(ValueError, match="Expected primal to be floating point"):
            fwAD.make_dual(mod.ones(2, dtype=mod.int64), mod.ones(2))


def _exp_function(mod, wrong=False):
    class Fn(mod.autograd.Function):
        @staticmethod
        def forward(ctx, foo, k):
            ctx.result = mod.exp(foo) * k
            return ctx.result

        @staticmethod
        def jvp(ctx, gI, gk):
            assert gk is None            # a non-tensor argument gets None, as in torch
            return gI * ctx.result * (2 if wrong else 1)

        @staticmethod
        def backward(ctx, g):
            return g * ctx.result, None
    return Fn


@pytest.mark.parametrize("requires_grad", [False, True])
def test_custom_function_jvp_protocol_like_torch(requires_grad):
    res = []
    for mod in (labkit, torch):
        fwAD = mod.autograd.forward_ad
        primal = mod.tensor([0.5, -1.0, 2.0], dtype=mod.float64, requires_grad=requires_grad)
        with fwAD.dual_level():
            out = _exp_function(mod).apply(fwAD.make_dual(primal, mod.ones(3) * 0.5), 3.0)
            res.append(_np(fwAD.unpack_dual(out).tangent))
    np.testing.assert_allclose(res[0], res[1], rtol=1e-12)


def test_gradcheck_forward_ad_options():
    x = labkit.tensor([0.5, -1.0, 2.0], dtype=labkit.float64, requires_grad=True)
    ok = _exp_function(labkit)
    assert labkit.autograd.gradcheck(lambda t: ok.apply(t, 2.0), (x,), check_forward_ad=True)
    bad = _exp_function(labkit, wrong=True)
    assert labkit.autograd.gradcheck(lambda t: bad.apply(t, 2.0), (x,))   # backward is right
    with pytest.raises(labkit.autograd.GradcheckError, match="forward-mode"):
        labkit.autograd.gradcheck(lambda t: bad.apply(t, 2.0), (x,), check_forward_ad=True,
                                  check_backward_ad=False, check_undefined_grad=False,
                                  check_batched_grad=False)
    y = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError):   # torch.autograd.gradcheck.GradcheckError
        torch.autograd.gradcheck(lambda t: _exp_function(torch, True).apply(t, 2.0), (y,),
                                 check_forward_ad=True, check_backward_ad=False,
                                 check_undefined_grad=False, check_batched_grad=False)


# --- the meta device, load_state_dict(assign=True), load(mmap=True) --------------------------

def test_meta_tensors_like_torch():
    for mod in (labkit, torch):
        a = mod.ones(2, 3, device="meta", requires_grad=True)
        assert repr(a) == "tensor(..., device='meta', size=(2, 3), requires_grad=True)"
        s = (a * 2).sum()
        assert s.device.type == "meta" and tuple(s.shape) == ()
        assert repr(mod.arange(3, device="meta")).startswith(
            "tensor(..., device='meta', size=(3,), dtype=")
        with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):
            a.cpu()
        with pytest.raises(RuntimeError):
            a + mod.ones(2, 3)
        with mod.device("meta"):
            layer = mod.nn.Linear(4, 5)
            inside = mod.zeros(1)
        assert layer.weight.device.type == "meta" and inside.device.type == "meta"
        assert mod.zeros(1).device.type == "cpu"
        assert layer(mod.ones(2, 4, device="meta")).shape == (2, 5)
        assert mod.nn.Linear(2, 2).to("meta").weight.device.type == "meta"


def test_load_state_dict_assign_like_torch():
    res = []
    for mod in (labkit, torch):
        src = _twin_linear(mod)
        src.register_buffer("stat", mod.arange(3.0))
        sd = {k: v.clone() for k, v in src.state_dict().items()}
        with mod.device("meta"):
            dst = mod.nn.Linear(5, 6)
            dst.register_buffer("stat", mod.zeros(3))
        dst.weight.requires_grad_(False)
        with pytest.warns(UserWarning, match="copying from a non-meta parameter"):
            dst.load_state_dict(sd)                    # a no-op on meta, with torch's warning
        assert dst.weight.device.type == "meta"
        dst.load_state_dict(sd, assign=True)
        res.append((type(dst.weight).__name__, dst.weight.requires_grad, dst.bias.requires_grad,
                    dst.weight.device.type, dst.stat is sd["stat"], _np(dst.bias),
                    dst.weight.data_ptr() == sd["weight"].data_ptr()))
    assert res[0][:5] == res[1][:5] and res[0][6] == res[1][6]
    np.testing.assert_array_equal(res[0][5], res[1][5])


def test_load_mmap_maps_the_file(tmp_path):
    path = str(tmp_path / "ck.pt")
    w = labkit.arange(12.0).reshape(3, 4)
    labkit.save({"w": w, "n": 3, "i": labkit.tensor([1, 2])}, path)
    sd = labkit.load(path, mmap=True)
    assert isinstance(sd["w"]._data.base, np.memmap)
    assert labkit.equal(sd["w"], w) and sd["n"] == 3 and sd["i"].dtype == labkit.int64
    sd["w"].add_(1)                                   # copy-on-write: the file keeps its values
    assert labkit.equal(labkit.load(path)["w"], w)
    import io
    with pytest.raises(ValueError, match="must be a file path"):
        labkit.load(io.BytesIO(open(path, "rb").read()), mmap=True)


# --- torch.func: stack_module_state, jacrev over a dict of parameters -------------------------

def test_stack_module_state_and_jacrev_of_params_like_torch():
    res = []
    x = np.random.default_rng(2).standard_normal((3, 5)).astype(np.float32)
    for mod in (labkit, torch):
        models = [_twin_linear(mod, s) for s in range(3)]
        params, buffers = mod.func.stack_module_state(models)
        out = mod.func.vmap(lambda p, xb: mod.func.functional_call(models[0], p, (xb,)),
                            in_dims=(0, None))(params, mod.tensor(x))
        single = {k: v.detach() for k, v in models[1].named_parameters()}
        jac = mod.func.jacrev(lambda p: mod.func.functional_call(models[0], p, (mod.tensor(
            x[0]),)))(single)
        res.append((sorted(params), params["weight"].requires_grad,
                    params["weight"].grad_fn is None, buffers, _np(out),
                    {k: _np(v) for k, v in jac.items()}))
        with pytest.raises(RuntimeError, match="Expected at least one model"):
            mod.func.stack_module_state([])
    assert res[0][:4] == res[1][:4]
    np.testing.assert_allclose(res[0][4], res[1][4], rtol=1e-5, atol=1e-6)
    for k in res[1][5]:
        assert res[0][5][k].shape == res[1][5][k].shape
        np.testing.assert_allclose(res[0][5][k], res[1][5][k], rtol=1e-5, atol=1e-6)


# --- storages (DLWPT chapter 3) ---------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda m: m.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]]),
    lambda m: m.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]])[1],
    lambda m: m.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]]).t(),
    lambda m: m.arange(6).reshape(2, 3)[:, 1:],
    lambda m: m.tensor([True, False]),
    lambda m: m.zeros(0, 3),
])
def test_storages_like_torch(make):
    res = []
    for mod in (labkit, torch):
        x = make(mod)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = x.storage()
        u = x.untyped_storage()
        res.append((s.tolist(), len(s), s.size(), s.element_size(), s.nbytes(), str(s.dtype)
                    .replace("labkit", "torch"), u.nbytes(), len(u), u.tolist(),
                    u.data_ptr() == s.data_ptr(), repr(s).replace("labkit", "torch")))
        if len(s):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                x.storage()[len(s) - 1] = 1
            res.append((make(mod).storage_offset(), x.reshape(-1).tolist()))
    assert res[: len(res) // 2] == res[len(res) // 2:]


def test_typed_storage_warns_and_refuses_slices():
    x = labkit.ones(3)
    import labkit.engine.ops.storage as st
    st._WARNED.clear()
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        x.storage()
    for mod in (labkit, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(RuntimeError, match="slices are only supported"):
                mod.ones(3).storage()[0:2]


# --- torch.optim.swa_utils and optimizer step hooks ------------------------------------------

import torch.optim.swa_utils  # noqa: E402,F401


@pytest.mark.parametrize("strategy,anneal", [("cos", 3), ("linear", 2), ("cos", 0)])
def test_swalr_schedule_like_torch(strategy, anneal):
    lrs = []
    for mod in (labkit, torch):
        p = mod.nn.Parameter(mod.zeros(2))
        opt = mod.optim.SGD([{"params": [p]}, {"params": [mod.nn.Parameter(mod.zeros(1))],
                                                "lr": 0.5}], lr=1.0)
        sched = mod.optim.swa_utils.SWALR(opt, swa_lr=[0.1, 0.2], anneal_epochs=anneal,
                                          anneal_strategy=strategy)
        seq = [[g["lr"] for g in opt.param_groups]]
        for _ in range(5):
            opt.step()
            sched.step()
            seq.append([g["lr"] for g in opt.param_groups])
        lrs.append(seq)
    np.testing.assert_allclose(lrs[0], lrs[1], rtol=1e-12)


def test_averaged_model_and_update_bn_like_torch():
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal((8, 3)).astype(np.float32) for _ in range(3)]
    res = []
    for mod in (labkit, torch):
        mod.manual_seed(0)
        net = mod.nn.Sequential(mod.nn.Linear(3, 4), mod.nn.BatchNorm1d(4))
        swa = mod.optim.swa_utils.AveragedModel(net)
        ema = mod.optim.swa_utils.AveragedModel(
            net, multi_avg_fn=mod.optim.swa_utils.get_ema_multi_avg_fn(0.9), use_buffers=True)
        for i, x in enumerate(xs):
            with mod.no_grad():
                net[0].weight.add_(float(i))
            net(mod.tensor(x))
            swa.update_parameters(net)
            ema.update_parameters(net)
        mod.optim.swa_utils.update_bn([(mod.tensor(x),) for x in xs], swa)
        res.append([_np(t) for t in (swa.module[0].weight, ema.module[0].weight,
                                     swa.module[1].running_mean, swa.module[1].running_var,
                                     ema.module[1].running_var, swa.n_averaged)])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_optimizer_step_hooks_like_torch():
    logs = []
    for mod in (labkit, torch):
        p = mod.nn.Parameter(mod.ones(2))
        opt = mod.optim.SGD([p], lr=0.5)
        log = []

        def pre(o, args, kwargs):
            log.append(("pre", o is opt, len(args), args[0] is opt, kwargs))

        h1 = opt.register_step_pre_hook(pre)
        opt.register_step_post_hook(lambda o, a, k: log.append(("post", len(a), k)))
        g = importlib.import_module(mod.__name__ + ".optim.optimizer").register_optimizer_step_pre_hook(
            lambda o, a, k: log.append("global"))
        p.grad = mod.ones(2)
        opt.step()
        h1.remove()
        g.remove()
        opt.step(closure=None)
        logs.append((log, _np(p)))
    assert logs[0][0] == logs[1][0]
    np.testing.assert_array_equal(logs[0][1], logs[1][1])


# --- torch.autograd.profiler; the in-place-on-a-leaf message ----------------------------------

import torch.autograd.profiler  # noqa: E402,F401


def test_autograd_profiler_like_torch():
    counts = []
    for mod in (labkit, torch):
        x = mod.randn(2, 3, requires_grad=True)
        z = mod.ones(2, 3, requires_grad=True)
        with mod.autograd.profiler.profile() as prf:
            for _ in range(4):
                z = (z / x) * x
            with mod.autograd.profiler.record_function("block"):
                z.sum()
        avg = {e.key: e.count for e in prf.key_averages()}
        counts.append((avg["aten::div"], avg["aten::mul"], avg["block"]))
        assert prf.self_cpu_time_total > 0 and len(prf.function_events) >= 9
        with mod.autograd.profiler.profile(enabled=False) as off:
            z * 2
        assert off is None
    assert counts[0] == counts[1]


@pytest.mark.parametrize("mod", [labkit, torch])
def test_inplace_on_leaf_message_has_torch_words(mod):
    a = mod.linspace(0.0, 1.0, 5, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad is being used in "
                                           "an in-place operation"):
        mod.sin_(a)


# --- share_memory_ (Hogwild) -----------------------------------------------------------------

def test_share_memory_like_torch_and_shared_with_a_forked_process():
    import multiprocessing
    for mod in (labkit, torch):
        x = mod.arange(4.0)
        assert not x.is_shared()
        assert x.share_memory_() is x and x.is_shared()
        assert mod.zeros(0).share_memory_().is_shared()
        m = mod.nn.Linear(2, 2)
        w = m.weight
        assert m.share_memory() is m and m.weight is w and w.is_shared() and m.bias.is_shared()
    x = labkit.zeros(3).share_memory_()
    ctx = multiprocessing.get_context("fork")

    def child(t):
        t.add_(torch_free_value)

    torch_free_value = 2.5
    p = ctx.Process(target=child, args=(x,))
    p.start()
    p.join(timeout=30)
    assert p.exitcode == 0
    np.testing.assert_array_equal(x.numpy(), [2.5, 2.5, 2.5])    # the child's write is seen


# --- factories with out= (tensors_deeper: torch.rand(2, 2, out=c)) ---------------------------

@pytest.mark.parametrize("call", [
    lambda m, o: m.rand(2, 2, out=o), lambda m, o: m.randn(2, 2, out=o),
    lambda m, o: m.zeros(2, 2, out=o), lambda m, o: m.ones(4, out=o),
    lambda m, o: m.full((2, 2), 3.0, out=o), lambda m, o: m.arange(4, out=o),
    lambda m, o: m.linspace(0, 1, 4, out=o), lambda m, o: m.eye(2, out=o),
    lambda m, o: m.randint(0, 9, (2, 2), out=o)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_factories_with_out_like_torch(call, dtype):
    res = []
    for mod in (labkit, torch):
        o = mod.zeros(2, 2, dtype=getattr(mod, dtype))
        mod.manual_seed(4)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = call(mod, o)
        except (RuntimeError, TypeError) as e:
            res.append(type(e))
            continue
        res.append((r is o, str(o.dtype).split(".")[-1], tuple(o.shape), _np(o)))
    if isinstance(res[0], type) or isinstance(res[1], type):
        assert res[0] == res[1]
        return
    assert res[0][:3] == res[1][:3]
    np.testing.assert_array_equal(res[0][3], res[1][3])


@pytest.mark.parametrize("start,end,steps,dtype", [
    (0, 1, 4, "float32"), (0, 1, 4, "float64"), (-3.3, 7.1, 7, "float32"), (2, -5, 3, "float64"),
    (0, 10, 5, "int64"), (1, 1, 1, "float32"), (0, 1, 0, "float32"), (0, 1, 100, "float32"),
    (2.2, -9.1, 33, "float64"), (0, 1, 1000, "float64"), (0.1, 0.9, 5, "float16")])
def test_linspace_like_torch(start, end, steps, dtype):
    """As torch's kernel: counted from start, then back from end, each a fused multiply-add:
    bit-identical values."""
    ours = labkit.linspace(start, end, steps, dtype=getattr(labkit, dtype))
    theirs = torch.linspace(start, end, steps, dtype=getattr(torch, dtype))
    assert ours.dtype == getattr(labkit, dtype) and tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(_np(ours.double()), _np(theirs.double()))
