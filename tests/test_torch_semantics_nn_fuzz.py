"""Regression tests for what the nn fuzzer (tests/fuzz/test_fuzz_nn.py) found: each test is the
smallest deterministic call that showed one bug, compared with torch (values, dtypes, the
gradient for a random upstream gradient)."""
import math

import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")


def both(fn, arrays, dtype="float64", device="cpu", grad=True, rtol=None):
    """fn(L, *tensors) on torch and labkit, inputs cast to `dtype` (float arrays require grad);
    compares every output's value and dtype, then every input's gradient."""
    tol = rtol or {"float64": 1e-9, "float32": 1e-5, "float16": 2e-3, "bfloat16": 1e-2}[dtype]
    outs, gs = [], []
    for L in (torch, labkit):
        kw = {} if L is torch else {"device": device}
        ts = [L.tensor(a, **kw).to(getattr(L, dtype)).requires_grad_(grad)
              if a.dtype.kind == "f" else L.tensor(a, **kw) for a in arrays]
        out = fn(L, *ts)
        out = list(out) if isinstance(out, (tuple, list)) else [out]
        outs.append(out)
        diff = [o for o in out if o.requires_grad]
        want = [t for t in ts if t.requires_grad]
        if diff and want:
            ups = [L.tensor(np.random.default_rng(k).standard_normal(tuple(o.shape)), **kw)
                   .to(o.dtype) for k, o in enumerate(diff)]
            g = L.autograd.grad(diff, want, ups, allow_unused=True)
            gs.append([np.zeros(tuple(w.shape)) if x is None else x.detach().cpu().double().numpy()
                       for x, w in zip(g, want)])
    for k, (r, m) in enumerate(zip(*outs)):
        assert str(m.dtype).split(".")[-1] == str(r.dtype).split(".")[-1], \
            f"output {k}: labkit {m.dtype}, torch {r.dtype}"
        assert tuple(m.shape) == tuple(r.shape), f"output {k}: {tuple(m.shape)} {tuple(r.shape)}"
        np.testing.assert_allclose(m.detach().cpu().double().numpy(), r.detach().double().numpy(),
                                   rtol=tol, atol=tol, err_msg=f"output {k}")
    if gs:
        assert len(gs) == 2
        for k, (r, m) in enumerate(zip(*gs)):
            np.testing.assert_allclose(m, r, rtol=tol, atol=tol, err_msg=f"gradient {k}")


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32"])
def test_leaky_relu_keeps_half_dtypes(dtype, device):
    """bfloat16 * slope is float32 in numpy: leaky_relu returned float32 for bfloat16."""
    both(lambda L, x: L.nn.functional.leaky_relu(x, 0.2), [np.array([-1.0, 2.0, 0.0, -3.5])],
         dtype, device)


def test_batch_norm_momentum_none_is_a_type_error():
    """F.batch_norm takes a float momentum; labkit accepted None when training."""
    for L in (torch, labkit):
        with pytest.raises(TypeError):
            L.nn.functional.batch_norm(L.ones(2, 1), None, None, training=True, momentum=None)
    m = labkit.nn.BatchNorm1d(1, momentum=None)     # the module's cumulative average still works
    m(labkit.tensor([[1.0], [3.0]]))
    assert m.running_mean.tolist() == [2.0]


@pytest.mark.parametrize("p", [math.inf, -math.inf, 0.0, -1.0, 0.5, 3.0])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_normalize_any_p(p, dtype, device):
    """torch takes every p (inf: the largest |x|, ties share the gradient; 0: the count of
    nonzeros); labkit refused p = inf and p <= 0."""
    x = np.array([[1.0, -3.0, 3.0], [0.0, 0.0, 0.0], [0.5, 0.0, -2.0]])
    both(lambda L, a: L.nn.functional.normalize(a, p, 1), [x], dtype, device)
    both(lambda L, a: L.nn.functional.normalize(a, p, 0, eps=0.5), [x], dtype, device)


@pytest.mark.parametrize("use_input_stats", [True, False])
@pytest.mark.parametrize("shape", [(2, 3, 4), (1, 2, 3, 2), (0, 3, 2), (2, 3, 0)])
def test_instance_norm_running_stats(use_input_stats, shape, device):
    """labkit refused running statistics; torch updates them with the mean over the examples
    of each instance's statistics (unbiased variance), or normalises with them."""
    x = np.random.default_rng(1).standard_normal(shape)
    rm, rv = np.array([0.5, -1.0, 2.0])[:shape[1]], np.array([1.5, 0.25, 2.0])[:shape[1]]
    w, b = np.array([1.5, -0.5, 2.0])[:shape[1]], np.array([0.1, 0.2, 0.3])[:shape[1]]

    def f(L, x, w=None, b=None):
        m, v = L.tensor(rm).to(x.device), L.tensor(rv).to(x.device)
        out = L.nn.functional.instance_norm(x, m, v, w, b, use_input_stats, 0.3)
        return out, m, v
    both(f, [x, w, b] if shape[0] else [x], "float64", device)   # N = 0: see the errors


@pytest.mark.parametrize("call, exc", [
    (lambda L: L.nn.functional.instance_norm(L.ones(2, 3, 1)), ValueError),
    (lambda L: L.nn.functional.instance_norm(L.ones(2, 3, 4), use_input_stats=False),
     RuntimeError),
    (lambda L: L.nn.functional.instance_norm(L.ones(2, 3, 4), L.zeros(3)), ValueError),
    (lambda L: L.nn.functional.instance_norm(L.ones(0, 3, 4), L.zeros(3), L.ones(3),
                                             L.ones(3)), IndexError),
    (lambda L: L.nn.functional.batch_norm(L.ones(1, 3), None, None, training=True,
                                          momentum=None), ValueError),
    (lambda L: L.nn.functional.batch_norm(L.ones(2, 3), None, None), RuntimeError),
])
def test_norm_errors_like_torch(call, exc):
    """torch's checks, in torch's order (its size check comes before the momentum's type)."""
    for L in (torch, labkit):
        with pytest.raises(exc):
            call(L)


@pytest.mark.parametrize("shapes", [((3,), (3,), None), ((2, 3), (3,), None), ((0, 3), (3,), None),
                                    ((3,), (3,), ()), ((2, 2, 3), (3,), ()), ((0, 0, 3), (3,), ())])
def test_linear_with_a_vector_weight(shapes, device):
    """torch's F.linear takes a 1-D weight (a dot product; a 0-d bias, except for a 2-D input
    where torch's addmm refuses it); labkit refused it."""
    xs, ws, bs = shapes
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal(s) for s in (xs, ws) + ((bs,) if bs is not None else ())]
    both(lambda L, *a: L.nn.functional.linear(*a), arrays, "float64", device)
    for L in (torch, labkit):
        with pytest.raises(RuntimeError):
            L.nn.functional.linear(L.ones(2, 3), L.ones(3), L.ones(()))


def test_layer_norm_shape_is_not_an_int():
    """torch's F.layer_norm wants a tuple (a TypeError for an int), nn.LayerNorm takes an int."""
    for L in (torch, labkit):
        with pytest.raises(TypeError):
            L.nn.functional.layer_norm(L.ones(2, 3), 3)
        assert tuple(L.nn.LayerNorm(3)(L.ones(2, 3)).shape) == (2, 3)


@pytest.mark.parametrize("dist", [None, "cosine"])
@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_with_distance_loss(dist, swap, device):
    """New in labkit (torch's F.triplet_margin_with_distance_loss and its module)."""
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal((4, 3)) for _ in range(3)]

    def f(L, a, p, n):
        fn = None if dist is None else (
            lambda x, y: 1 - L.nn.functional.cosine_similarity(x, y, dim=-1))
        m = L.nn.TripletMarginWithDistanceLoss(distance_function=fn, margin=0.7, swap=swap,
                                               reduction="none")
        return m(a, p, n), L.nn.functional.triplet_margin_with_distance_loss(
            a, p, n, distance_function=fn, swap=swap)
    both(f, arrays, "float64", device)


@pytest.mark.parametrize("call, exc", [
    (lambda L: L.nn.functional.triplet_margin_loss(L.ones(2), L.ones(2), L.ones(2), margin=0.0),
     ValueError),
    (lambda L: L.nn.TripletMarginWithDistanceLoss(margin=-1.0), ValueError),
    (lambda L: L.nn.functional.normalize(L.ones(0, 2), math.inf, 0), RuntimeError),
    (lambda L: L.nn.functional.normalize(L.ones(0, 2), -1.0, 0), RuntimeError),
])
def test_loss_and_normalize_errors_like_torch(call, exc):
    """torch refuses a margin <= 0 for the triplet losses, and an inf or negative norm over an
    empty dim (no identity); labkit accepted both."""
    for L in (torch, labkit):
        with pytest.raises(exc):
            call(L)


@pytest.mark.parametrize("shape, target", [((0,), -100), ((2, 0), [-100, -100])])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_without_classes(shape, target, reduction, device):
    """C = 0 with every target ignored: torch gives nan (mean) or 0; labkit indexed class 0."""
    t = np.array(target)
    both(lambda L, x, t: L.nn.functional.nll_loss(x, t, reduction=reduction),
         [np.zeros(shape), t], "float64", device)
    for L in (torch, labkit):
        with pytest.raises(IndexError):
            L.nn.functional.nll_loss(L.ones(0), L.tensor(0))


@pytest.mark.parametrize("fn, shape, ok", [
    ("fold", (0, 4, 1), True), ("fold", (1, 4, 0), False), ("fold", (4, 0), False),
    ("fold", (0, 4), False), ("unfold", (0, 1, 2, 2), True), ("unfold", (1, 1, 0, 2), False),
    ("unfold", (0, 2, 2), False)])
def test_fold_unfold_empty_dims(fn, shape, ok, device):
    """Only the batch dim may be empty (torch's RuntimeError); labkit folded (4, 0) columns."""
    call = (lambda L, x: L.nn.functional.fold(x, (1, 1), 1)) if fn == "fold" else \
        (lambda L, x: L.nn.functional.unfold(x, 1))
    if ok:
        both(call, [np.zeros(shape)], "float64", device)
        return
    for L in (torch, labkit):
        with pytest.raises(RuntimeError):
            call(L, L.ones(shape))


@pytest.mark.parametrize("name", ["smooth_l1_loss", "huber_loss"])
def test_smooth_l1_gradient_at_nan(name, device):
    """A nan difference has a nan gradient in torch (labkit's slope took sign(nan) = 0), and
    that slope's own derivative there is 0 (the second derivative)."""
    both(lambda L, x, t: getattr(L.nn.functional, name)(x, t), [np.array(-2.0),
                                                                np.array([-2.0, math.nan])],
         "float64", device)
    res = []
    for L in (torch, labkit):
        x = L.tensor(-2.0, dtype=L.float64, requires_grad=True)
        loss = getattr(L.nn.functional, name)(x, L.tensor([-2.0, math.nan, 0.5, -2.5],
                                                           dtype=L.float64))
        (g,) = L.autograd.grad(loss, x, create_graph=True)
        (h,) = L.autograd.grad(g * 3.0, x)
        res.append(float(h))
    assert res[0] == res[1]


@pytest.mark.parametrize("call", [
    lambda L: L.nn.functional.conv2d(L.ones(1, 1, 3, 3), L.ones(1, 1, 1, 1), stride=0),
    lambda L: L.nn.functional.conv3d(L.ones(1, 1, 0, 0, 0), L.ones(1, 1, 1, 1, 1), stride=0),
    lambda L: L.nn.functional.conv2d(L.ones(1, 1, 3, 3), L.ones(1, 1, 1, 1), dilation=0),
    lambda L: L.nn.functional.conv_transpose2d(L.ones(1, 1, 3, 3), L.ones(1, 1, 1, 1),
                                               padding=-1),
    lambda L: L.nn.functional.conv2d(L.ones(1, 0, 0), L.ones(1, 1, 1, 1), padding=1),
    lambda L: L.nn.functional.conv_transpose2d(L.ones(1, 1, 0, 3), L.ones(1, 1, 1, 1)),
])
def test_conv_argument_errors(call):
    """torch's RuntimeErrors: non-positive stride or dilation, negative padding, an empty
    spatial dim (unless N or C is 0); labkit divided by zero or accepted them."""
    for L in (torch, labkit):
        with pytest.raises(RuntimeError):
            call(L)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_grouped_conv_of_an_empty_batch(nd, device):
    """groups > 1 with N = 0: labkit's reshape(n, groups, -1, L) could not infer -1."""
    f = [None, "conv1d", "conv2d", "conv3d"][nd]
    both(lambda L, x, w: getattr(L.nn.functional, f)(x, w, groups=2),
         [np.zeros((0, 2) + (3,) * nd), np.ones((4, 1) + (2,) * nd)], "float64", device)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("norm", ["instance", "batch", "layer", "group"])
def test_norm_backward_in_float32_for_half_dtypes(norm, dtype, device):
    """Near-equal inputs (std 0.01 around 2): labkit's backward ran its tensor ops in bfloat16
    and lost every digit (5.3 where float32 gives 10.6). The reference is torch in float32 on
    the inputs rounded to the half dtype (torch's own bfloat16 kernel rounds its mean)."""
    x0 = np.array([[[-1.9863, -1.9726, -1.9589]], [[-1.9863, -1.97, -1.95]]])
    w0, g0 = np.array([1.5]), np.random.default_rng(0).standard_normal(x0.shape)
    F = {"instance": lambda L, a, w: L.nn.functional.instance_norm(a, weight=w, bias=w),
         "batch": lambda L, a, w: L.nn.functional.batch_norm(a, None, None, w, w, True),
         "layer": lambda L, a, w: L.nn.functional.layer_norm(a, (1, 3)) * w,
         "group": lambda L, a, w: L.nn.functional.group_norm(a, 1, w, w)}[norm]
    res = []
    for L, kind in ((torch, "float32"), (labkit, dtype)):
        low = getattr(L, dtype)
        x, w = (L.tensor(a).to(low).to(getattr(L, kind)).requires_grad_() for a in (x0, w0))
        if L is labkit:
            x, w = x.to(device).detach().requires_grad_(), w.to(device).detach().requires_grad_()
        y = F(L, x, w)
        assert y.dtype == getattr(L, kind)
        gx, gw = L.autograd.grad(y, (x, w), L.tensor(g0).to(y.dtype).to(y.device))
        res.append([t.detach().to(low).cpu().double().numpy() for t in (y, gx, gw)])
    for what, r, m in zip(("output", "input gradient", "weight gradient"), *res):
        np.testing.assert_allclose(m, r, rtol=2e-2, atol=2e-2, err_msg=what)


@pytest.mark.parametrize("k, shape", [(1, (1, 0)), (1, (2, 1, 0)), (2, (1, 0, 3)), (2, (2, 3, 4)),
                                      (3, (1, 0, 1, 1)), (1, (0, 3))])
def test_adaptive_avg_pool_to_one_is_a_mean(k, shape, device):
    """Output size 1: torch takes the mean (nan over an empty dim), where labkit refused empty
    spatial dims."""
    both(lambda L, x: getattr(L.nn.functional, f"adaptive_avg_pool{k}d")(x, 1),
         [np.arange(math.prod(shape), dtype=float).reshape(shape)], "float64", device)
    if 0 in shape[1:]:
        for L in (torch, labkit):
            with pytest.raises(RuntimeError):
                getattr(L.nn.functional, f"adaptive_avg_pool{k}d")(L.ones(shape), 2)


@pytest.mark.parametrize("k, shape, out", [(1, (0, 1, 1), 0), (2, (2, 1, 3, 3), (0, 2)),
                                           (1, (2, 3), 0), (1, (0, 1, 1), 1),
                                           (2, (0, 2, 3, 3), 2)])
def test_adaptive_max_pool_to_size_0(k, shape, out, device):
    """output_size 0: an empty output and indices, as torch; labkit stacked no windows. An
    empty batch: labkit's reshape(..., -1) could not infer the window size."""
    both(lambda L, x: getattr(L.nn.functional, f"adaptive_max_pool{k}d")(x, out, True),
         [np.ones(shape)], "float64", device, grad=False)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32"])
def test_rms_norm_default_eps_of_half_inputs(dtype, device):
    """eps=None is float32's eps for half inputs (torch computes them in float32); labkit took
    bfloat16's 0.0078, which changed the gradient of a small vector 50000-fold."""
    both(lambda L, x: L.nn.functional.rms_norm(x, (1,)), [np.array([[-0.4863], [0.01]])],
         dtype, device)


@pytest.mark.parametrize("eq, shapes", [("ij,jk->ik", ((0, 0), (1, 0))),
                                        ("ij,jk->ik", ((2, 1), (0, 3))),
                                        ("ij,ij->", ((1, 2), (0, 2)))])
def test_einsum_broadcast_against_size_0(eq, shapes, device):
    """A size-1 dim broadcast against a size-0 one: labkit took the size as max(1, 0) = 1 and
    its backward returned a (0, 1) gradient for a (1, 0) operand."""
    both(lambda L, a, b: L.einsum(eq, a, b), [np.ones(s) for s in shapes], "float64", device)


@pytest.mark.parametrize("xs, ws", [((), (1,)), ((), ()), ((3,), (1,)), ((2, 3), (3,))])
def test_prelu_of_a_0d_input(xs, ws, device):
    """A 0-d input with a (1,) weight gives a 0-d output in torch; labkit's was (1,)."""
    rng = np.random.default_rng(4)
    both(lambda L, x, w: L.nn.functional.prelu(x, w), [rng.standard_normal(xs),
                                                       rng.standard_normal(ws)], "float64", device)


def test_interpolate_area_to_an_empty_size(device):
    """mode='area' is adaptive_avg_pool: torch accepts a size-0 output (scale 0.5 of 1)."""
    both(lambda L, x: L.nn.functional.interpolate(x, scale_factor=0.5, mode="area"),
         [np.ones((1, 1, 1, 3))], "float64", device, grad=False)
    for L in (torch, labkit):
        with pytest.raises(RuntimeError):
            L.nn.functional.interpolate(L.ones(1, 1, 1), scale_factor=0.5, mode="nearest")


def test_cross_entropy_probabilities_with_a_wrong_weight():
    """Probability targets with a weight of another length: torch's RuntimeError; labkit
    broadcast the (1,) scores against the (2,) weight."""
    for L in (torch, labkit):
        with pytest.raises(RuntimeError):
            L.nn.functional.cross_entropy(L.ones(1), L.ones(1), L.ones(2))
        with pytest.raises(RuntimeError):
            L.nn.functional.cross_entropy(L.ones(2, 3), L.ones(2, 3), L.ones(1))


def test_embedding_scale_grad_by_freq_on_the_device(device):
    """scale_grad_by_freq built its counts with the legacy constructor, which refuses cuda."""
    both(lambda L, w, i: L.nn.functional.embedding(i, w, scale_grad_by_freq=True),
         [np.arange(6.0).reshape(3, 2), np.array([0, 2, 0])], "float64", device)


@pytest.mark.parametrize("xs, ws", [((0, 1, 0), (1, 1, 1)), ((0, 1, 3), (1, 2, 2))])
def test_conv_transpose_of_an_empty_input(xs, ws, device):
    """N = 0: torch gives the empty output, even of size 0; labkit refused the size-0 one."""
    both(lambda L, x, w, b: L.nn.functional.conv_transpose1d(x, w, b),
         [np.ones(xs), np.ones(ws), np.ones(ws[1])], "float64", device)
    both(lambda L, x, w: L.nn.functional.conv_transpose1d(x, w, output_padding=1),
         [np.ones(xs), np.ones(ws)], "float64", device)     # (not checked for N = 0)


@pytest.mark.parametrize("xs, ys, dims", [((0, 0), (0, 0), 1), ((2, 0), (0, 3), 1),
                                          ((0, 2), (2, 0), 1), ((0, 2), (0, 2), 2)])
def test_tensordot_with_size_0_dims(xs, ys, dims, device):
    """labkit's reshape(-1, k) could not infer -1 when k was 0."""
    both(lambda L, x, y: L.tensordot(x, y, dims=dims), [np.ones(xs), np.ones(ys)], "float64",
         device)
