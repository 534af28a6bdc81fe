"""What a student sees in the graph, against torch 2.13: `y.grad_fn`'s name and the names along
`next_functions` for the composite ops torch computes as one node (NativeLayerNormBackward0,
SiluBackward0, BinaryCrossEntropyBackward0 ...), plus the values, gradients (random upstream
gradient) and second derivatives (create_graph) of each of those ops, with size-0, size-1 and
0-d inputs where the op takes them."""
import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")

DEPTH = 3


def chain(fn, depth=DEPTH):
    """grad_fn's name, then its next_functions' names, `depth` levels down (None: no edge)."""
    if fn is None:
        return None
    if depth == 0:
        return type(fn).__name__
    return (type(fn).__name__, tuple(chain(n, depth - 1) for n, _ in fn.next_functions))


def _inputs(mod, spec, device="cpu"):
    """spec: arrays (float64 arrays require grad; ('c', array) is a constant tensor; an int
    array is an index tensor) or plain values, passed as they are."""
    out = []
    for s in spec:
        if isinstance(s, tuple) and s and s[0] == "c":
            out.append(_tensor(mod, s[1], False, device))
        elif isinstance(s, np.ndarray):
            out.append(_tensor(mod, s, s.dtype.kind == "f", device))
        else:
            out.append(s)
    return out


def _tensor(mod, a, rg, device):
    if mod is torch:
        return torch.tensor(a, requires_grad=rg)
    return labkit.tensor(a, requires_grad=rg, device=device)


def _np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy(force=True)      # force: torch's ZeroTensor gradients too
    return np.asarray(t.detach().cpu().numpy()) if hasattr(t, "detach") else np.asarray(t)


def _close(a, b, what, rtol=1e-6, atol=1e-9):
    a, b = _np(a), _np(b)
    assert a.shape == b.shape, f"{what}: labkit shape {a.shape}, torch {b.shape}"
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=what)


def compare(f, spec, names=True, second=True, device="cpu", seed=0, rtol=1e-6, atol=1e-9):
    """Run f(mod, *inputs) on torch and labkit; compare grad_fn chains, values, gradients and
    second derivatives w.r.t. every input that requires grad."""
    tin, lin = _inputs(torch, spec), _inputs(labkit, spec, device)
    t, m = f(torch, *tin), f(labkit, *lin)
    if names:
        assert chain(m.grad_fn) == chain(t.grad_fn)
        if t.grad_fn is not None:
            assert m.grad_fn.name() == t.grad_fn.name()
    _close(m, t, "value", rtol, atol)
    assert str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    treq = [x for x in tin if isinstance(x, torch.Tensor) and x.requires_grad]
    lreq = [x for x in lin if isinstance(x, labkit.Tensor) and x.requires_grad]
    if not t.requires_grad:
        return
    rng = np.random.default_rng(seed)
    u = rng.standard_normal(tuple(t.shape))
    tg = torch.autograd.grad(t, treq, torch.tensor(u), create_graph=True, allow_unused=True)
    lg = labkit.autograd.grad(m, lreq, labkit.tensor(u, device=device), create_graph=True,
                              allow_unused=True)
    for i, (a, b, x) in enumerate(zip(lg, tg, treq)):
        _close(np.zeros(tuple(x.shape)) if a is None else a,
               torch.zeros_like(x) if b is None else b, f"gradient {i}", rtol, atol)
    if not second:
        return
    vs = [rng.standard_normal(tuple(x.shape)) for x in treq]
    ts = sum((g * torch.tensor(v)).sum() for g, v in zip(tg, vs) if g is not None and
             g.requires_grad)
    ls = sum((g * labkit.tensor(v, device=device)).sum() for g, v in zip(lg, vs)
             if g is not None and g.requires_grad)
    if not isinstance(ts, torch.Tensor):
        return
    tgg = torch.autograd.grad(ts, treq, allow_unused=True)
    # a piecewise-linear op: labkit's gradient may not depend on x at all (zero curvature)
    lgg = (labkit.autograd.grad(ls, lreq, allow_unused=True) if isinstance(ls, labkit.Tensor)
           else [None] * len(lreq))
    for i, (a, b, x) in enumerate(zip(lgg, tgg, treq)):
        _close(np.zeros(tuple(x.shape)) if a is None else a,
               torch.zeros_like(x) if b is None else b, f"second derivative {i}", rtol, atol)


def r(*shape, seed=1, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, size=shape)


def prob(*shape, seed=2):
    return np.random.default_rng(seed).uniform(0.05, 0.95, size=shape)


F = "nn.functional"


def fn(name):
    """f(mod, *args) calling mod.nn.functional.<name>."""
    def call(mod, *args, **kw):
        return getattr(mod.nn.functional, name)(*args, **kw)
    return call


# --- activations ---------------------------------------------------------------------------
ACTIVATIONS = {
    "silu": lambda m, x: m.nn.functional.silu(x),
    "mish": lambda m, x: m.nn.functional.mish(x),
    "hardsigmoid": lambda m, x: m.nn.functional.hardsigmoid(x),
    "hardswish": lambda m, x: m.nn.functional.hardswish(x),
    "celu": lambda m, x: m.nn.functional.celu(x, alpha=0.7),
    "hardshrink": lambda m, x: m.nn.functional.hardshrink(x, 0.3),
    "softshrink": lambda m, x: m.nn.functional.softshrink(x, 0.3),
    "threshold": lambda m, x: m.nn.functional.threshold(x, 0.1, 2.0),
    "glu": lambda m, x: m.nn.functional.glu(x, 0),
    "glu_last": lambda m, x: m.nn.functional.glu(x),
    "gelu": lambda m, x: m.nn.functional.gelu(x),
    "gelu_tanh": lambda m, x: m.nn.functional.gelu(x, approximate="tanh"),
    "elu": lambda m, x: m.nn.functional.elu(x),
    "softplus": lambda m, x: m.nn.functional.softplus(x),
    "leaky_relu": lambda m, x: m.nn.functional.leaky_relu(x, 0.2),
    "hardtanh": lambda m, x: m.nn.functional.hardtanh(x),
    "relu6": lambda m, x: m.nn.functional.relu6(x),
    "log_softmax": lambda m, x: m.nn.functional.log_softmax(x, 0),
    "softmax": lambda m, x: m.nn.functional.softmax(x, 0),
}


@pytest.mark.parametrize("name", ACTIVATIONS)
@pytest.mark.parametrize("shape", [(4, 6), (2, 1), (0, 4), ()])
def test_activation(name, shape):
    if name.startswith("glu") and (shape == () or shape == (2, 1) and name == "glu_last"):
        pytest.skip("glu halves a dim: it needs an even one")
    if name in ("log_softmax", "softmax") and shape == ():
        shape = (1,)
    # torch has no second derivative for hardsigmoid (labkit's is zero, as it is a.e.)
    compare(ACTIVATIONS[name], [r(*shape, low=-4, high=4)], second=name != "hardsigmoid")


@pytest.mark.parametrize("name", ["hardsigmoid", "hardswish", "hardshrink", "softshrink",
                                  "threshold", "relu6", "hardtanh"])
def test_activation_kinks(name):
    """The gradient at the kinks is torch's choice, not a half-way value."""
    x = np.array([-3.0, 3.0, -0.3, 0.3, 0.1, 0.0, 6.0, -1.0, 1.0])
    compare(ACTIVATIONS[name], [x], second=name != "hardsigmoid")


def test_activation_float32_and_module():
    x = r(3, 4).astype(np.float32)
    compare(lambda m, x: m.nn.SiLU()(x), [x], rtol=1e-5, atol=1e-6)
    compare(lambda m, x: m.nn.Hardswish()(x), [x], rtol=1e-5, atol=1e-6)
    compare(lambda m, x: m.nn.Mish()(x), [x], rtol=1e-5, atol=1e-6)


# --- normalisation: NativeLayerNorm / NativeBatchNorm / NativeGroupNorm ----------------------
def top(fn):
    return None if fn is None else fn.name()


def compare_top(f, spec, **kw):
    """As compare, but only grad_fn's own name is compared: labkit lists no edge for an
    absent optional tensor (torch: (None, 0)), see the report of this file's change."""
    t, m = f(torch, *_inputs(torch, spec)), f(labkit, *_inputs(labkit, spec))
    assert top(m.grad_fn) == top(t.grad_fn)
    compare(f, spec, names=False, **kw)


LN = lambda m, x, w, b, k: m.nn.functional.layer_norm(x, tuple(x.shape[x.ndim - k:]), w, b)  # noqa


@pytest.mark.parametrize("shape,k", [((2, 3, 4), 1), ((2, 3, 4), 2), ((5,), 1), ((2, 1), 1),
                                     ((1, 3), 1), ((3, 2), 2)])
def test_layer_norm(shape, k):
    p = shape[len(shape) - k:]
    compare(LN, [r(*shape), r(*p, seed=3), r(*p, seed=4), k])
    compare_top(lambda m, x, k: LN(m, x, None, None, k), [r(*shape), k])
    compare_top(lambda m, x, w, k: LN(m, x, w, None, k), [r(*shape), r(*p, seed=3), k])


@pytest.mark.parametrize("shape", [(0, 3), (3, 0)])
def test_layer_norm_empty(shape):
    compare_top(lambda m, x, w, b: m.nn.functional.layer_norm(x, shape[1:], w, b),
                [r(*shape), r(*shape[1:], seed=3), r(*shape[1:], seed=4)], second=False)


def test_layer_norm_module_float32():
    x = r(4, 6).astype(np.float32)
    compare(lambda m, x: _seeded(m, m.nn.LayerNorm, 6, dtype=m.float32)(x), [x], rtol=1e-5,
            atol=1e-6)


def _seeded(mod, cls, *args, dtype=None, **kw):
    """A module whose parameters (float64 by default) are the same random values in labkit
    and torch."""
    layer = cls(*args, **kw).to(dtype or mod.float64)
    for i, (_, p) in enumerate(sorted(layer.named_parameters())):
        with mod.no_grad():
            p.copy_(mod.tensor(r(*p.shape, seed=10 + i)))
    return layer


BN = lambda m, x, rm, rv, w, b, t: m.nn.functional.batch_norm(x, rm, rv, w, b, t)  # noqa


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (2, 3, 2, 2), (3, 1), (2, 1, 1, 1)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm(shape, training):
    c = shape[1]
    stats = [("c", r(c, seed=5)), ("c", r(c, seed=6, low=0.5, high=2))]
    compare(BN, [r(*shape)] + stats + [r(c, seed=3), r(c, seed=4), training])
    compare_top(lambda m, x, t: m.nn.functional.batch_norm(x, None, None, training=t),
                [r(*shape), True])
    if not training:
        compare_top(lambda m, x, rm, rv: m.nn.functional.batch_norm(x, rm, rv), [r(*shape)] + stats)


def test_batch_norm_empty_batch_is_a_copy():
    """torch: an empty input gives input.clone() (* weight[0] + bias[0]), stats unchanged."""
    compare(BN, [r(0, 3), ("c", r(3, seed=5)), ("c", r(3, seed=6, high=2, low=0.5)),
                 r(3, seed=3), r(3, seed=4), True])


@pytest.mark.parametrize("cls,shape", [("BatchNorm1d", (4, 3)), ("BatchNorm1d", (2, 3, 5)),
                                       ("BatchNorm2d", (2, 3, 2, 2))])
def test_batch_norm_module_running_stats(cls, shape):
    """Train then eval: grad_fn, values, gradients and the running statistics as torch's."""
    layers = {m: _seeded(m, getattr(m.nn, cls), 3) for m in (torch, labkit)}
    for mode in ("train", "eval"):
        compare(lambda m, x: getattr(layers[m], mode)()(x), [r(*shape)])
        for name in ("running_mean", "running_var", "num_batches_tracked"):
            _close(getattr(layers[labkit], name), getattr(layers[torch], name), name)


GN = lambda m, x, g, w, b: m.nn.functional.group_norm(x, g, w, b)  # noqa


@pytest.mark.parametrize("shape,groups", [((2, 4, 3), 2), ((2, 4), 4), ((3, 6, 2, 2), 3),
                                          ((1, 4, 5), 1), ((2, 2, 1), 2)])
def test_group_norm(shape, groups):
    c = shape[1]
    compare(GN, [r(*shape), groups, r(c, seed=3), r(c, seed=4)])
    compare_top(lambda m, x, g: m.nn.functional.group_norm(x, g), [r(*shape), groups])


def test_group_norm_empty_batch_and_module():
    compare_top(lambda m, x: m.nn.functional.group_norm(x, 2), [r(0, 4)], second=False)
    compare(lambda m, x: _seeded(m, m.nn.GroupNorm, 2, 4)(x), [r(3, 4, 5)])


@pytest.mark.parametrize("affine", [True, False])
def test_instance_norm(affine):
    spec = [r(2, 3, 4)] + ([r(3, seed=3), r(3, seed=4)] if affine else [None, None])
    f = lambda m, x, w, b: m.nn.functional.instance_norm(x, weight=w, bias=b)  # noqa
    (compare if affine else compare_top)(f, spec)


def test_norm_mixed_dtype_is_torchs_error():
    x = np.ones((2, 3), np.float32)
    for m in (torch, labkit):
        with pytest.raises(RuntimeError, match="mixed dtype"):
            m.nn.functional.layer_norm(m.tensor(x), (3,), m.ones(3, dtype=m.float64))


# --- the transforms and backends of the fused ops ------------------------------------------
TRANSFORMED = {
    "layer_norm": (lambda m, x, w, b: m.nn.functional.layer_norm(x, (4,), w, b), (4,)),
    "group_norm": (lambda m, x, w, b: m.nn.functional.group_norm(x, 3, w, b), (3,)),
    "batch_norm": (lambda m, x, w, b: m.nn.functional.batch_norm(x, None, None, w, b, True),
                   (3,)),
    "batch_norm_eval": (lambda m, x, w, b: m.nn.functional.batch_norm(
        x, m.linspace(-1, 1, 3, dtype=m.float64), m.linspace(0.5, 2, 3, dtype=m.float64), w, b),
        (3,)),
    "celu": (lambda m, x, w, b: m.nn.functional.celu(x, 0.5) * w[0], (1,)),
    "silu": (lambda m, x, w, b: m.nn.functional.silu(x) * w[0] + b[0], (1,)),
    "hardswish": (lambda m, x, w, b: m.nn.functional.hardswish(x) * w[0], (1,)),
    "glu": (lambda m, x, w, b: m.nn.functional.glu(x, 2) * w[0], (1,)),
    "mish": (lambda m, x, w, b: m.nn.functional.mish(x) + b[0], (1,)),
}


def _funcs(mod):
    return mod.func if mod is labkit else torch.func


@pytest.mark.parametrize("name", TRANSFORMED)
def test_jvp_and_vmap_match_torch_func(name):
    f, p = TRANSFORMED[name]
    shape = (5, 3, 4)
    args = [r(*shape), r(*p, seed=3), r(*p, seed=4)]
    tans = [r(*shape, seed=7), r(*p, seed=8), r(*p, seed=9)]
    out = {}
    for m in (torch, labkit):
        prim = tuple(m.tensor(a) for a in args)
        tan = tuple(m.tensor(a) for a in tans)
        fx = (lambda *a, m=m: f(m, *a))
        _, jt = _funcs(m).jvp(fx, prim, tan)
        vm = _funcs(m).vmap(fx, in_dims=(0, None, None))(m.stack([prim[0], prim[0] * 2]),
                                                         *prim[1:])
        vw = _funcs(m).vmap(fx, in_dims=(None, 0, 0))(prim[0], m.stack([prim[1], prim[1] + 1]),
                                                     m.stack([prim[2], prim[2] - 1]))
        out[m] = (jt, vm, vw)
    for what, a, b in zip(("jvp", "vmap over x", "vmap over weight"), out[labkit], out[torch]):
        _close(a, b, what)


@pytest.mark.parametrize("make", ["LayerNorm", "BatchNorm1d", "SiLU", "Hardswish",
                                  "Hardsigmoid", "Mish", "Hardshrink", "Softshrink", "GLU",
                                  "CELU"])
def test_onnx_export_matches(make, tmp_path):
    onnx_ = pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    layer = {"LayerNorm": lambda: labkit.nn.LayerNorm(6), "BatchNorm1d":
             lambda: labkit.nn.BatchNorm1d(6)}.get(make, lambda: getattr(labkit.nn, make)())()
    model = labkit.nn.Sequential(labkit.nn.Linear(6, 6), layer)
    if make == "BatchNorm1d":
        model(labkit.randn(8, 6))
        model.eval()
    x = labkit.tensor(r(5, 6).astype(np.float32) * 3)
    path = tmp_path / "m.onnx"
    labkit.onnx.export(model, x, path, input_names=["x"])
    onnx_.checker.check_model(onnx_.load(str(path)), full_check=True)
    (got,) = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(
        None, {"x": x.numpy()})
    with labkit.no_grad():
        want = model(x).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


# --- losses: BinaryCrossEntropy(WithLogits), SmoothL1Loss, HuberLoss ----------------------
REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(3, 4), (1,), (), (0, 2)])
def test_binary_cross_entropy(reduction, shape):
    f = lambda m, x, t, w: m.nn.functional.binary_cross_entropy(x, t, w, reduction=reduction)  # noqa
    second = bool(np.prod(shape, dtype=int))
    compare(f, [prob(*shape), prob(*shape, seed=5), None], second=second)
    compare(f, [prob(*shape), ("c", prob(*shape, seed=5)), ("c", prob(*shape, seed=6))],
            second=second)
    if len(shape) == 2:              # a weight broadcast to the input, a target with a grad
        compare(f, [prob(*shape), prob(*shape, seed=5), ("c", prob(shape[1], seed=6))])


def test_binary_cross_entropy_at_0_and_1():
    """torch clamps each log at -100 and the gradient's denominator at 1e-12."""
    x = np.array([0.0, 1.0, 0.0, 1.0, 0.5])
    t = np.array([0.0, 1.0, 1.0, 0.0, 0.3])
    compare(lambda m, x, t: m.nn.functional.binary_cross_entropy(x, t, reduction="none"),
            [x, ("c", t)], second=False)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(3, 4), (1,), (), (0, 4)])
def test_binary_cross_entropy_with_logits(reduction, shape):
    def f(m, x, t, w, pw):
        return m.nn.functional.binary_cross_entropy_with_logits(x, t, w, reduction=reduction,
                                                                pos_weight=pw)
    c = shape[-1:] if shape else ()
    compare(f, [r(*shape, low=-5, high=5), prob(*shape), None, None])
    compare(f, [r(*shape, low=-5, high=5), prob(*shape), ("c", prob(*shape, seed=6)),
                ("c", 3 * prob(*c, seed=7))])
    compare(f, [r(*shape, low=-5, high=5), ("c", prob(*shape)), None, ("c", 3 * prob(*c))])


def test_bce_weights_are_constants_as_in_torch():
    for m in (torch, labkit):
        x, t = m.full((3,), 0.5, requires_grad=True), m.ones(3)
        w = m.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="not differentiable with respect to argument"):
            m.nn.functional.binary_cross_entropy(x, t, weight=w)
        with pytest.raises(RuntimeError, match="not differentiable with respect to argument"):
            m.nn.functional.binary_cross_entropy_with_logits(x, t, pos_weight=w)


def test_bce_modules():
    x, t = r(4, 3), prob(4, 3)
    w = prob(3, seed=9)
    compare(lambda m, x, t: m.nn.BCEWithLogitsLoss(pos_weight=m.tensor(w))(x, t),
            [x, ("c", t)])
    compare(lambda m, x, t: m.nn.BCELoss(weight=m.tensor(w))(m.sigmoid(x), t), [x, ("c", t)],
            names=False)


@pytest.mark.parametrize("name,param", [("smooth_l1_loss", "beta"), ("huber_loss", "delta")])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("value", [1.0, 0.3, 2.5])
@pytest.mark.parametrize("shape", [(3, 4), (1,), (), (0,)])
def test_smooth_l1_and_huber(name, param, reduction, value, shape):
    def f(m, x, t):
        return getattr(m.nn.functional, name)(x, t, reduction=reduction, **{param: value})
    compare(f, [r(*shape, low=-3, high=3), r(*shape, seed=5)])
    compare(f, [r(*shape, low=-3, high=3), ("c", r(*shape, seed=5))])


def test_smooth_l1_kinks_broadcast_and_beta_0():
    x = np.array([-1.0, 1.0, 0.0, 0.5, -0.5, 2.0])
    t = np.zeros(6)
    for name, kw in (("smooth_l1_loss", {"beta": 1.0}), ("huber_loss", {"delta": 0.5})):
        compare(lambda m, x, t: getattr(m.nn.functional, name)(x, t, reduction="none", **kw),
                [x, ("c", t)])
    compare(lambda m, x: m.nn.functional.smooth_l1_loss(x, x.detach() * 0, beta=0.0), [x])
    with pytest.warns(UserWarning, match="target size"):
        compare(lambda m, x, t: m.nn.functional.smooth_l1_loss(x, t), [r(3, 1), r(3, seed=4)])
    compare(lambda m, x, t, w: m.nn.functional.huber_loss(x, t, weight=w),
            [r(3, 2), r(3, 2, seed=4), ("c", prob(3, 2))])


# --- xlogy, xlog1py, entr: torch's grad_fn and its gradients at the boundary ------------------
EDGE_X = np.array([0.0, 0.0, 1.0, 2.0, 0.0, np.nan, 0.0, 0.5, 0.0, -1.5])
EDGE_Y = np.array([2.0, 0.0, 0.0, 3.0, np.nan, 1.0, -1.0, -1.0, -2.0, 0.5])


def _nan_close(a, b, what):
    a, b = _np(a), _np(b)
    assert a.shape == b.shape, what
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True, err_msg=what)


@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_xlogy_gradients_at_zero_are_torchs(name):
    """d/dx xlogy(x, y) is log(y) even at x = 0 (0 only where y <= 0 too); d/dy is x / y
    (nan at 0 / 0); the same for xlog1py with log1p and y <= -1. Second derivatives too."""
    fns = {m: (m.xlogy if name == "xlogy" else m.special.xlog1py) for m in (torch, labkit)}
    res = {}
    for m in (torch, labkit):
        x, y = (m.tensor(a, requires_grad=True) for a in (EDGE_X, EDGE_Y))
        z = fns[m](x, y)
        u = m.tensor(np.linspace(0.5, 1.5, EDGE_X.size))
        gx, gy = (m.autograd.grad(z, (x, y), u, create_graph=True))
        second = [m.autograd.grad(g.sum(), (x, y), allow_unused=True) for g in (gx, gy)]
        res[m] = [z, gx, gy] + [s if s is not None else m.zeros(EDGE_X.size) for pair in second
                               for s in pair], chain(z.grad_fn)
    assert res[labkit][1] == res[torch][1]
    for i, (a, b) in enumerate(zip(res[labkit][0], res[torch][0])):
        _nan_close(a, b, f"{name}: item {i}")


@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_xlogy_with_a_number(name):
    fns = {m: (m.xlogy if name == "xlogy" else m.special.xlog1py) for m in (torch, labkit)}
    compare(lambda m, y: fns[m](2.0, y), [r(4, low=0.1, high=3)])
    compare(lambda m, x: fns[m](x, 3.0), [np.array([0.0, 1.0, -2.0, 0.5])])
    compare(lambda m, x: fns[m](x, 0.0), [np.array([0.0, 1.0, -2.0, 0.5])], second=False)
    compare(lambda m, x, y: fns[m](x, y), [r(3, 1), r(4, low=0.1, high=3)])   # broadcast
    for m in (torch, labkit):                                                  # integers
        assert str(fns[m](m.tensor([1, 2]), m.tensor([3, 4])).dtype).endswith("float32")


def test_entr():
    x = np.array([0.0, 1.0, -1.0, 0.5, np.inf, 2.0])
    res = {}
    for m in (torch, labkit):
        t = m.tensor(x, requires_grad=True)
        z = m.special.entr(t)
        (g,) = m.autograd.grad(z.sum(), t, create_graph=True)
        (gg,) = m.autograd.grad(g.sum(), t)
        res[m] = (z, g, gg), chain(z.grad_fn)
    assert res[labkit][1] == res[torch][1]
    for a, b in zip(res[labkit][0], res[torch][0]):
        _nan_close(a, b, "entr")
    compare(lambda m, x: m.special.entr(x), [r(2, 3, low=0.1, high=3)])


@pytest.mark.parametrize("reduction", ["batchmean", "sum", "mean", "none"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target):
    t = np.log(prob(3, 4, seed=4)) if log_target else prob(3, 4, seed=4)
    t[0, 0] = -np.inf if log_target else 0.0          # a zero probability: 0 log 0 = 0
    f = lambda m, x, t: m.nn.functional.kl_div(x, t, reduction=reduction,  # noqa
                                               log_target=log_target)
    with np.errstate(invalid="ignore"):
        compare(f, [np.log(prob(3, 4)), t])


# --- nll_loss and cross_entropy: NllLossBackward0 / NllLoss2DBackward0 after LogSoftmax -------
def _targets(shape, classes, seed=0, ignore=None):
    t = np.random.default_rng(seed).integers(0, classes, size=shape)
    if ignore is not None and t.size:
        t.flat[0] = ignore
    return t


LAYOUTS = [((4, 3), (4,)), ((3,), ()), ((2, 3, 4), (2, 4)), ((2, 3, 2, 2), (2, 2, 2)),
           ((2, 3, 2, 1, 2), (2, 2, 1, 2)), ((1, 1), (1,)), ((0, 3), (0,))]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore", [None, 1])
def test_nll_loss(layout, reduction, weighted, ignore):
    shape, tshape = layout
    c = shape[1] if len(shape) > 1 else shape[0]
    w = ("c", prob(c, seed=3)) if weighted else None
    kw = {} if ignore is None else {"ignore_index": ignore}
    t = _targets(tshape, c, ignore=ignore)
    f = lambda m, x, t, w: m.nn.functional.nll_loss(x, t, w, reduction=reduction, **kw)  # noqa
    compare(f, [np.log(prob(*shape)), t, w])


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy(layout, reduction, weighted, smoothing):
    """Class weights, label smoothing, ignore_index and scores per position end in
    NllLoss(2D)Backward0 after LogSoftmaxBackward0, as torch; the plain (N, C) case is one
    fused op (NllLossBackward0 at the top, not LogSoftmax below it: see the report)."""
    shape, tshape = layout
    c = shape[1] if len(shape) > 1 else shape[0]
    w = ("c", prob(c, seed=3)) if weighted else None
    plain = not weighted and not smoothing and len(shape) == 2
    for ignore in (None, 2):
        kw = {} if ignore is None else {"ignore_index": ignore}
        t = _targets(tshape, c, ignore=ignore)
        f = lambda m, x, t, w: m.nn.functional.cross_entropy(  # noqa
            x, t, w, reduction=reduction, label_smoothing=smoothing, **kw)
        if plain and not (t == ignore).any():
            compare_top(f, [r(*shape), t, w])
        else:
            compare(f, [r(*shape), t, w], names=not smoothing, second=c > 0)
            if smoothing:          # the names above torch's masked_fill (labkit: where)
                tin, lin = _inputs(torch, [r(*shape), t, w]), _inputs(labkit, [r(*shape), t, w])
                assert chain(f(labkit, *lin).grad_fn, 1) == chain(f(torch, *tin).grad_fn, 1)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
@pytest.mark.parametrize("shape", [(4, 3), (3,), (2, 3, 2)])
def test_cross_entropy_probabilities(reduction, weighted, smoothing, shape):
    c = shape[1] if len(shape) > 1 else shape[0]
    w = ("c", prob(c, seed=3)) if weighted else None
    p = prob(*shape, seed=8)
    p = p / p.sum(axis=1 if len(shape) > 1 else 0, keepdims=True)
    f = lambda m, x, t, w: m.nn.functional.cross_entropy(  # noqa
        x, t, w, reduction=reduction, label_smoothing=smoothing)
    compare(f, [r(*shape), ("c", p), w], names=not smoothing)


def test_nll_errors_as_torch():
    x = np.log(prob(2, 3))
    for m in (torch, labkit):
        with pytest.raises(IndexError):
            m.nn.functional.nll_loss(m.tensor(x), m.tensor([0, 3]))
        with pytest.raises(RuntimeError, match="weight"):
            m.nn.functional.nll_loss(m.tensor(x), m.tensor([0, 1]), m.ones(4, dtype=m.float64))


@pytest.mark.parametrize("eps", [None, 1e-3])
@pytest.mark.parametrize("shape,k", [((2, 3), 1), ((2, 3, 4), 2), ((1,), 1), ((0, 3), 1)])
def test_rms_norm(eps, shape, k):
    p = shape[len(shape) - k:]
    f = lambda m, x, w: m.nn.functional.rms_norm(x, p, w, eps)  # noqa
    compare(f, [r(*shape), r(*p, seed=3)])
    compare(f, [r(*shape), None])


# --- basic indexing: one view op per item, as torch records it -----------------------------
INDEXES = {
    "[:, 0]": lambda x: x[:, 0], "[0]": lambda x: x[0], "[1:3]": lambda x: x[1:3],
    "[..., None]": lambda x: x[..., None], "[None]": lambda x: x[None],
    "[0, 1]": lambda x: x[0, 1], "[0, :, 1]": lambda x: x[0, :, 1],
    "[1:3, 0]": lambda x: x[1:3, 0], "[:, None, 0]": lambda x: x[:, None, 0],
    "[0, None]": lambda x: x[0, None], "[::2, 1]": lambda x: x[::2, 1],
    "[1:3, :, 0:1]": lambda x: x[1:3, :, 0:1], "[..., 0]": lambda x: x[..., 0],
    "[-1, ..., None, 1]": lambda x: x[-1, ..., None, 1], "[:]": lambda x: x[:],
    "[0, 0, 0]": lambda x: x[0, 0, 0], "[None, 1:, None]": lambda x: x[None, 1:, None],
}


@pytest.mark.parametrize("name", INDEXES)
def test_basic_index_graph(name):
    compare(lambda m, x: INDEXES[name](x), [r(4, 3, 2)])


@pytest.mark.parametrize("name", ["[0, 1]", "[:, None, 0]", "[1:3, 0]", "[0, None]"])
def test_basic_index_views_write_through(name):
    """The chain of views still writes through to the base, as torch's."""
    res = {}
    for m in (torch, labkit):
        x = m.tensor(r(4, 3, 2), requires_grad=True)
        y = x * 1
        v = INDEXES[name](y)
        v.mul_(3)
        (g,) = m.autograd.grad((y * y).sum(), x)
        res[m] = (y, g, v._version if hasattr(v, "_version") else 0)
    _close(res[labkit][0], res[torch][0], "base after the write")
    _close(res[labkit][1], res[torch][1], "gradient")
