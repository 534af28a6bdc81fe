"""Issue 13: each discrepancy a differential fuzzer found between labkit and torch 2.13, as a
named regression test. Values, dtypes, shapes and gradients are compared with torch; where torch
refuses, labkit must raise the same exception class."""
import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")


def same(mine, ref):
    """Same shape, dtype and values (nan where torch has nan)."""
    assert tuple(mine.shape) == tuple(ref.shape), (tuple(mine.shape), tuple(ref.shape))
    assert str(mine.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1], (mine.dtype, ref.dtype)
    np.testing.assert_allclose(mine.detach().numpy().astype(float),
                               ref.detach().numpy().astype(float), rtol=1e-6, equal_nan=True)


def both(fn, *arrays, grad=False):
    """fn run on labkit and torch tensors made from the same numpy arrays."""
    lk = [labkit.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
    th = [torch.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
    return fn(labkit, *lk), fn(torch, *th), lk, th


def raises_like(fn):
    """fn(torch) raises; fn(labkit) must raise the same exception class."""
    with pytest.raises(Exception) as want:
        fn(torch)
    with pytest.raises(type(want.value)):
        fn(labkit)


# --- silent wrong values ----------------------------------------------------------------------

def test_advanced_index_int_and_array_separated_by_slice_puts_array_dims_first():
    for idx in [(0, slice(None), [0, 1]), (slice(None), 0, [0, 2]), (0, [1, 0], slice(None)),
                ([0, 1], slice(None), 1), (Ellipsis, [0, 1]), (0, slice(None), [[0], [1]])]:
        m, r, _, _ = both(lambda L, x: x[idx], np.arange(24).reshape(2, 3, 4))
        same(m, r)


def test_advanced_index_int_and_array_assignment_writes_torch_layout():
    x, y = labkit.arange(24).reshape(2, 3, 4), torch.arange(24).reshape(2, 3, 4)
    v = np.arange(6).reshape(3, 2) + 100
    x[0, :, [0, 1]] = labkit.tensor(v)
    y[0, :, [0, 1]] = torch.tensor(v)
    same(x, y)


def test_advanced_index_mixed_gradient():
    g = np.random.default_rng(0).standard_normal((3, 2))
    m, r, lk, th = both(lambda L, x: x[0, :, [0, 1]], np.random.default_rng(1).random((2, 3, 4)),
                        grad=True)
    m.backward(labkit.tensor(g))
    r.backward(torch.tensor(g))
    same(lk[0].grad, th[0].grad)


@pytest.mark.parametrize("op,dim", [("sum", ()), ("mean", ()), ("amax", []), ("amin", ()),
                                    ("sum", []), ("nansum", ())])
def test_reduce_over_empty_dim_list_reduces_everything(op, dim):
    a = np.random.default_rng(0).random((2, 3))
    m, r, lk, th = both(lambda L, x: getattr(x, op)(dim=dim) if hasattr(x, op) else None, a,
                        grad=True)
    if m is None:
        pytest.skip(f"labkit has no {op}")
    same(m, r)
    m.backward()
    r.backward()
    same(lk[0].grad, th[0].grad)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("lo,hi", [(0.5, 2.5), (1, 2), (None, 1.5), (0, None), (True, None)])
def test_clamp_promotes_like_torch(dtype, lo, hi):
    a = np.array([0, 1, 2, 3], dtype=dtype)
    def run(L, x):
        return x.clamp(lo, hi)
    try:
        r = run(torch, torch.tensor(a))
    except Exception as e:
        with pytest.raises(type(e)):
            run(labkit, labkit.tensor(a))
        return
    same(run(labkit, labkit.tensor(a)), r)


def test_add_alpha_scales_in_result_dtype_int16_uint8():
    m, r, _, _ = both(lambda L, a, b: a.add(b, alpha=2), np.array([1], "int16"),
                      np.array([200], "uint8"))
    same(m, r)
    assert m.item() == 401


def test_uint8_compared_with_zero_dim_tensor_uses_torch_promotion():
    for op in ["__eq__", "__lt__", "__gt__", "__ne__"]:
        m, r, _, _ = both(lambda L, a: getattr(a, op)(L.tensor(-1)), np.array([0, 255], "uint8"))
        same(m, r)


def test_bool_masked_fill_with_float_keeps_bool():
    m, r, _, _ = both(lambda L, x, k: x.masked_fill(k, 1.5), np.array([True, False, False]),
                      np.array([False, True, False]))
    same(m, r)


def test_masked_fill_int_with_float_value_keeps_int():
    m, r, _, _ = both(lambda L, x, k: x.masked_fill(k, 2.7), np.array([1, 2, 3]),
                      np.array([False, True, False]))
    same(m, r)


@pytest.mark.parametrize("shape,n,dim", [((0, 2), 4, 0), ((0, 2), 1, 0), ((3, 0), 2, 1),
                                         ((5, 2), 3, 0), ((2, 0), 4, 0)])
def test_chunk_of_size_zero_dims(shape, n, dim):
    m, r, _, _ = both(lambda L, x: x.chunk(n, dim), np.zeros(shape, "float32"))
    assert len(m) == len(r)
    for a, b in zip(m, r):
        same(a, b)


@pytest.mark.parametrize("shape,sizes,dim", [((0, 2), [], 0), ((0, 2), [0, 0], 0),
                                             ((3, 2), [1, 0, 2], 0), ((0, 2), 2, 0),
                                             ((4, 2), 3, 0)])
def test_split_with_size_zero(shape, sizes, dim):
    def run(L, x):
        return x.split(sizes, dim)
    try:
        r = run(torch, torch.zeros(shape))
    except Exception as e:
        with pytest.raises(type(e)):
            run(labkit, labkit.zeros(shape))
        return
    m = run(labkit, labkit.zeros(shape))
    assert len(m) == len(r)
    for a, b in zip(m, r):
        same(a, b)


@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_argmax_of_0d_with_keepdim_is_0d(op):
    m, r, _, _ = both(lambda L, x: getattr(x, op)(dim=0, keepdim=True), np.array(3.0, "float32"))
    same(m, r)


@pytest.mark.parametrize("fn", [
    lambda L: L.ones(3).expand(-1, 3),
    lambda L: L.ones(2, 3, 4).flatten(2, 1),
    lambda L: L.ones(4).split(1, dim=-2),
    lambda L: L.ones(2, 3).split(1, dim=3),
    lambda L: L.ones(2, 3).chunk(2, dim=2),
    lambda L: L.ones(2, 3).unsqueeze(3),
    lambda L: L.ones(2, 3).transpose(0, 2),
    lambda L: L.ones(2, 3).squeeze(2),
    lambda L: L.ones(2, 3).sum(dim=2),
    lambda L: L.ones(2, 3).permute(0, 0),
    lambda L: L.ones(2, 3).permute(0, 2),
    lambda L: L.ones(2).expand(3, -1, 2),
    lambda L: L.ones(3)[::-1],
    lambda L: L.ones(3)[::-2],
    lambda L: L.ones(3, 2)[:, ::-1],
], ids=["expand-1-new-dim", "flatten-reversed", "split-dim-2", "split-dim3", "chunk-dim2",
        "unsqueeze3", "transpose2", "squeeze2", "sum-dim2", "permute-repeat", "permute-out",
        "expand-1-leading", "negative-step", "negative-step-2", "negative-step-2d"])
def test_shape_arguments_are_range_checked(fn):
    raises_like(fn)


def test_negative_step_error_points_to_flip():
    with pytest.raises(ValueError, match="flip"):
        labkit.ones(3)[::-1]


# --- Tensor.data --------------------------------------------------------------------------------

def test_data_std_is_torch_std():
    m, r, _, _ = both(lambda L, w: w.data.std(), np.arange(6, dtype="float32").reshape(2, 3))
    same(m, r)
    assert abs(m.item() - 1.8708) < 1e-3


def test_data_max_dim_returns_values_and_indices():
    m, r, _, _ = both(lambda L, o: o.data.max(1), np.array([[1, 5, 2], [7, 0, 3]], "float32"),
                      grad=True)
    same(m.values, r.values)
    same(m.indices, r.indices)
    _, pred = m
    assert pred.tolist() == [1, 0]


def test_data_add_inplace_changes_param_without_version_bump_or_record():
    p = labkit.nn.Parameter(labkit.ones(3))
    tp = torch.nn.Parameter(torch.ones(3))
    v0, tv0 = p._version, tp._version
    p.data.add_(labkit.ones(3), alpha=-0.5)
    tp.data.add_(torch.ones(3), alpha=-0.5)
    same(p, tp)
    assert p._version == v0 and tp._version == tv0
    assert p.grad_fn is None and p.requires_grad and p.is_leaf


def test_data_is_detached_and_shares_memory():
    w = labkit.ones(2, requires_grad=True)
    d = w.data
    assert isinstance(d, labkit.Tensor) and not d.requires_grad and d.grad_fn is None
    d[0] = 5.0
    assert w.tolist() == [5.0, 1.0]


def test_data_change_after_save_is_not_detected_as_torch():
    """torch: changes through .data are invisible to autograd (so no error, a stale gradient).
    labkit does the same, which is why lectures teach no_grad instead."""
    for L in (labkit, torch):
        w = L.ones(2, requires_grad=True)
        y = (w * w).sum()
        w.data.mul_(3)
        y.backward()
        assert w.grad.tolist() == [6.0, 6.0]


# --- silent wrong gradients -------------------------------------------------------------------

@pytest.mark.parametrize("op", [lambda x: x.amax(0), lambda x: x.max(), lambda x: x.amin(),
                                lambda x: x.min(), lambda x: x.amax(1, keepdim=True)],
                         ids=["amax0", "max", "amin", "min", "amax-keepdim"])
def test_inplace_on_amax_output_raises_like_torch(op):
    def run(L):
        x = L.tensor([[1.0, 3.0], [2.0, 0.5]], requires_grad=True)
        y = op(x)
        y.mul_(2)
        y.sum().backward()
    raises_like(run)


@pytest.mark.parametrize("how", ["split", "chunk"])
def test_inplace_on_split_piece_raises_like_torch(how):
    def run(L):
        x = L.arange(6.0).requires_grad_()
        a, b = (x * 1).split(3) if how == "split" else (x * 1).chunk(2)
        a.mul_(2)
        (a.sum() + b.sum()).backward()
    raises_like(run)


def test_split_pieces_share_the_version_counter():
    for L in (labkit, torch):
        x = L.ones(4, requires_grad=True)
        h = x * 2
        a, b = h.split(2)
        y = (h * h).sum()
        with L.no_grad():
            a.mul_(3)
        with pytest.raises(RuntimeError):
            y.backward()


def test_view_of_a_base_without_history_follows_its_inplace_change():
    res = []
    for L in (labkit, torch):
        x = L.zeros(3)
        w = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        v = x[1:]
        x.add_(w * w)
        assert v.requires_grad and v.grad_fn is not None
        v.sum().backward()
        res.append(w.grad)
    same(*res)


@pytest.mark.parametrize("make", [lambda x: x.t(), lambda x: x.T, lambda x: x.expand(3),
                                  lambda x: x.reshape(3), lambda x: x.squeeze(),
                                  lambda x: x.view(3), lambda x: x.expand_as(x)],
                         ids=["t", "T", "expand", "reshape", "squeeze", "view", "expand_as"])
def test_noop_view_ops_return_a_new_view(make):
    names = []
    for L in (labkit, torch):
        x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        v = make(x)
        assert v is not x and not v.is_leaf and v._version == x._version
        names.append(type(v.grad_fn).__name__)
        h = x * 1
        u = make(h)
        u.mul_(2)                   # in place on the view: recorded on h, as torch
        (h * L.tensor([1.0, 10.0, 100.0])).sum().backward()
        assert x.grad.tolist() == [2.0, 20.0, 200.0]
    assert names[0] == names[1]


@pytest.mark.parametrize("case", ["getitem", "cross_entropy", "nll_loss", "embedding"])
def test_index_tensors_used_by_backward_are_version_checked(case):
    def run(L):
        x = L.tensor([[0.1, 0.5, 0.2], [0.3, 0.2, 0.9]], requires_grad=True)
        i = L.tensor([0, 2])
        F = L.nn.functional
        y = {"getitem": lambda: x[i], "cross_entropy": lambda: F.cross_entropy(x, i),
             "nll_loss": lambda: F.nll_loss(x, i),
             "embedding": lambda: F.embedding(i, x)}[case]()
        i.add_(0)   # a version bump, values unchanged: torch still refuses
        y.sum().backward()
    raises_like(run)


def test_autograd_grad_casts_each_gradient_to_its_input_dtype():
    res = []
    for L in (labkit, torch):
        w = L.ones(2, 3, requires_grad=True)
        m = L.ones(3, 2)
        x = L.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=L.float64, requires_grad=True)
        y = ((w @ m) * x).sum()
        gw, gx = L.autograd.grad(y, [w, x], retain_graph=True)
        assert str(gw.dtype).endswith("float32") and str(gx.dtype).endswith("float64")
        y.backward()
        res.append((gw, gx, w.grad))
    for a, b in zip(*res):
        same(a, b)


def test_retain_grad_keeps_the_gradient_after_later_hooks():
    grads = []
    for L in (labkit, torch):
        x = L.ones(3, requires_grad=True)
        h = x * 2
        h.retain_grad()
        h.register_hook(lambda g: g * 10)
        h.sum().backward()
        grads.append((h.grad, x.grad))
    same(grads[0][0], grads[1][0])
    same(grads[0][1], grads[1][1])


# --- valid torch code that labkit rejected -------------------------------------------------------

def test_grad_wrt_a_nonleaf_does_not_run_or_free_its_node():
    res = []
    for L in (labkit, torch):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        h = x * x
        y = (h * 3).sum()
        (g1,) = L.autograd.grad(y, [h], retain_graph=True)
        (g2,) = L.autograd.grad(y, [h])
        h2 = h.exp()
        (g3,) = L.autograd.grad(h2.sum(), [x])     # h's node was not freed
        res.append((g1, g2, g3))
    for a, b in zip(*res):
        same(a, b)


@pytest.mark.parametrize("cast", ["double", "float", "half", "to64"])
def test_double_backward_through_a_dtype_cast(cast):
    res = []
    for L in (labkit, torch):
        x = L.tensor([0.5, 1.5], requires_grad=True)
        c = {"double": lambda t: t.double(), "float": lambda t: t.double().float(),
             "half": lambda t: t.half().float(), "to64": lambda t: t.to(L.float64)}[cast]
        y = (c(x) ** 3).sum()
        (g,) = L.autograd.grad(y, [x], create_graph=True)
        (gg,) = L.autograd.grad(g.sum(), [x])
        res.append((g, gg))
    for a, b in zip(*res):
        same(a, b)


def test_mul_saves_only_what_its_gradient_needs():
    res = []
    for L in (labkit, torch):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        a = x.clone()
        a[0] = a[1] * 2      # a[1] (a view of a) is saved only if d/d(2) were needed
        b = x.clone()
        b[0] = b[1] / 4
        (a.sum() + b.sum()).backward()
        res.append(x.grad)
    same(*res)


# --- nan/inf -----------------------------------------------------------------------------------

NAN_X = [float("nan"), 1.0, -1.0, 0.0]


@pytest.mark.parametrize("fn", [
    lambda L, x: x.sign(), lambda L, x: x.relu(), lambda L, x: x.abs(),
    lambda L, x: L.maximum(x, L.tensor(float("nan"))), lambda L, x: L.maximum(x, L.zeros(4)),
    lambda L, x: L.minimum(x, L.zeros(4)), lambda L, x: x.clamp(0, 1),
    lambda L, x: x[1:3].var(correction=2), lambda L, x: x[1:2].var(), lambda L, x: x[1:2].std(),
    lambda L, x: x[1:].std(correction=3), lambda L, x: x.max(), lambda L, x: x.amax(),
    lambda L, x: x[1:3].var(0, correction=2), lambda L, x: x[1:3].var(0, correction=3),
], ids=["sign", "relu", "abs", "maximum-nan", "maximum", "minimum", "clamp",
        "var-corr-n-whole-is-all-inf-torch-inconsistent",
        "var-n1", "std-n1", "std-corr-n", "max", "amax",
        "var-dim-corr-n-2-over-dof", "var-dim-corr-above-n-negative-dof"])
def test_nan_and_inf_semantics_follow_torch(fn):
    m, r, lk, th = both(fn, np.array(NAN_X), grad=True)
    same(m, r)
    m.backward(labkit.ones_like(m))
    r.backward(torch.ones_like(r))
    same(lk[0].grad, th[0].grad)


@pytest.mark.parametrize("op", ["var", "std"])
@pytest.mark.parametrize("dim", [(), []])
def test_var_std_dim_empty_gives_the_true_gradient_where_torch_has_a_bug(op, dim):
    """torch 2.13: x.var(dim=()) reduces every dim forward but backward counts n = 1 and returns
    inf. labkit's gradient is that of x.var() (its value), which torch itself gives there."""
    a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]])
    m, r, lk, th = both(lambda L, x: getattr(x, op)(dim), a, grad=True)
    same(m, r)
    m.backward()
    ref = torch.tensor(a, requires_grad=True)
    getattr(ref, op)().backward()
    same(lk[0].grad, ref.grad)


# --- more valid torch code that labkit rejected ---------------------------------------------------

@pytest.mark.parametrize("case", ["softmax", "log_softmax", "amax", "conv2d", "nll_loss",
                                  "cross_entropy", "batch_norm", "linear", "sum"])
def test_size_zero_batches_run_as_in_torch(case):
    def run(L):
        F = L.nn.functional
        x = L.zeros(0, 3, requires_grad=True)
        if case == "softmax":
            y = F.softmax(L.zeros(2, 0, requires_grad=True), 1)
        elif case == "log_softmax":
            y = F.log_softmax(x, 0)
        elif case == "amax":
            y = x.amax(1)
        elif case == "conv2d":
            y = F.conv2d(L.zeros(0, 2, 5, 5, requires_grad=True), L.ones(3, 2, 3, 3))
        elif case == "nll_loss":
            y = F.nll_loss(x, L.zeros(0, dtype=L.int64))
        elif case == "cross_entropy":
            y = F.cross_entropy(x, L.zeros(0, dtype=L.int64), reduction="sum")
        elif case == "batch_norm":
            y = F.batch_norm(L.zeros(0, 3, requires_grad=True), None, None, training=True)
        elif case == "linear":
            y = F.linear(x, L.ones(4, 3))
        else:
            y = x.sum(0)
        return y
    try:
        r = run(torch)
    except Exception as e:
        with pytest.raises(type(e)):
            run(labkit)
        return
    m = run(labkit)
    same(m, r)


def test_setitem_with_a_value_that_requires_grad():
    res = []
    for L in (labkit, torch):
        y = L.tensor([1.0, 2.0], requires_grad=True)
        x = L.zeros(2, 2)
        x[...] = y * 3
        (x * L.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
        res.append(y.grad)
    same(*res)


LOSS_OPTIONS = [
    ("cross_entropy", {}), ("cross_entropy", {"ignore_index": 1}),
    ("cross_entropy", {"label_smoothing": 0.1}), ("cross_entropy", {"weight": [1.0, 2.0, 0.5]}),
    ("cross_entropy", {"reduction": "sum", "ignore_index": 0}),
    ("cross_entropy", {"weight": [1.0, 2.0, 0.5], "label_smoothing": 0.2}),
    ("cross_entropy", {"reduction": "none", "weight": [1.0, 2.0, 0.5], "ignore_index": 2}),
    ("nll_loss", {}), ("nll_loss", {"ignore_index": 1}), ("nll_loss", {"weight": [1.0, 2.0, 0.5]}),
    ("nll_loss", {"reduction": "none", "ignore_index": 0}),
]


@pytest.mark.parametrize("loss,kw", LOSS_OPTIONS)
def test_classification_loss_options(loss, kw):
    x = np.random.default_rng(0).standard_normal((4, 3))
    t = np.array([0, 1, 2, kw.get("ignore_index", -100)])   # the last row is ignored
    res = []
    for L in (labkit, torch):
        xi = L.tensor(x, requires_grad=True)
        k = dict(kw)
        if "weight" in k:
            k["weight"] = L.tensor(np.array(k["weight"]))
        y = getattr(L.nn.functional, loss)(xi, L.tensor(t), **k)
        y.backward(L.ones_like(y))
        res.append((y, xi.grad))
    same(res[0][0], res[1][0])
    same(res[0][1], res[1][1])


# --- torch refuses, labkit accepted ----------------------------------------------------------------

@pytest.mark.parametrize("fn", [
    lambda L: L.nn.functional.softmax(L.tensor([1, 2]), 0),
    lambda L: L.nn.functional.relu(L.tensor([True])),
    lambda L: L.nn.functional.gelu(L.tensor([1, 2])),
    lambda L: L.nn.functional.leaky_relu(L.tensor([1, 2])),
    lambda L: L.tensor([True]).argmax(),
    lambda L: L.tensor([True]) ** L.tensor([True]),
    lambda L: L.nn.functional.mse_loss(L.tensor([1, 2]), L.tensor([1, 3])),
    lambda L: L.tensor(1.0).permute(),
    lambda L: L.ones(2).allclose(L.ones(2, dtype=L.float64)),
    lambda L: L.ones(3).copy_(L.ones(2)),
    lambda L: L.zeros(3).index_put_((L.tensor([0]),), L.tensor([1])) if hasattr(L.zeros(1), "index_put_")
    else L.zeros(3).__setitem__(L.tensor([0]), L.tensor([1])),
], ids=["softmax-int", "relu-bool", "gelu-int", "leaky_relu-int", "argmax-bool", "bool-pow-bool",
        "mse_loss-long", "permute-no-dims", "allclose-f32-f64", "copy_-shape", "index_put-dtype"])
def test_torch_refuses_so_does_labkit(fn):
    raises_like(fn)


# --- errors that explain -------------------------------------------------------------------------

@pytest.mark.parametrize("fn,words", [
    (lambda L: L.tensor(1.0).split(1), ["split", "0-d"]),
    (lambda L: L.tensor(1.0).chunk(1), ["chunk", "0-d"]),
    (lambda L: L.cat([L.tensor(1.0)]), ["cat", "zero-dimensional", "stack"]),
    (lambda L: L.ones(3).chunk(0), ["chunk", "greater than 0"]),
    (lambda L: L.ones(3, dtype=L.uint8).add_(-1.5), ["add_", "uint8"]),
    (lambda L: L.ones(3, dtype=L.bool).mul_(2.5), ["mul_", "bool"]),
    (lambda L: L.ones(3, dtype=L.int64).div_(2), ["div_", "int64"]),
    (lambda L: L.ones(3).add(np.ones(3, dtype=np.float32).tolist()), ["add", "list"]),
    (lambda L: L.nn.functional.relu(np.ones(3)), ["relu", "ndarray", "tensor("]),
    (lambda L: L.ones(3)[::-1], ["step", "flip"]),
])
def test_errors_name_the_op_and_the_fix(fn, words):
    with pytest.raises(Exception) as want:
        fn(torch)
    with pytest.raises(type(want.value)) as got:
        fn(labkit)
    for w in words:
        assert w in str(got.value), (w, str(got.value))


def test_second_derivative_through_sign_stays_zero_when_upstream_is_inf():
    """abs's backward multiplies by sign(x); sign's own backward must give zeros, not
    grad * 0 (nan where the upstream gradient is inf, as after a division by zero)."""
    for lib in (labkit, torch):
        x = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            (g,) = lib.autograd.grad((x.abs() / 0).sum(), x, create_graph=True)
            (gg,) = lib.autograd.grad(g.sum(), x)
        assert gg.shape == (3,) and float((gg + 0).abs().sum()) == 0.0   # torch: lazy zeros


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("p", [0.5, -0.5])
def test_pow_half_is_sqrt_as_torch_not_ieee_pow(dtype, p):
    """torch computes x ** 0.5 and x ** -0.5 as sqrt and 1 / sqrt (IEEE pow differs at -0. and
    -inf: (-0.) ** -0.5 is -inf in torch, +inf in pow); the fuzzer found it through a gradient
    of (-x) ** 0.5 at x = 0. float16 is the exception: torch's float16 kernel calls pow."""
    vals = [-0.0, 0.0, 4.0, -4.0, float("inf"), float("-inf"), 2.0, 3.0]
    mine = labkit.tensor(vals, dtype=getattr(labkit, dtype)) ** p
    ref = torch.tensor(vals, dtype=getattr(torch, dtype)) ** p
    np.testing.assert_array_equal(mine.float().numpy(), ref.float().numpy())
    x = labkit.tensor([0.0, 2.0], dtype=getattr(labkit, dtype), requires_grad=True)
    xt = torch.tensor([0.0, 2.0], dtype=getattr(torch, dtype), requires_grad=True)
    (g,) = labkit.autograd.grad(((-x) ** p).sum(), [x])
    (gt,) = torch.autograd.grad(((-xt) ** p).sum(), [xt])
    np.testing.assert_array_equal(g.float().numpy(), gt.float().numpy())


@pytest.mark.parametrize("idx", [5, (0, 0), slice(None, None, -1), [5]], ids=str)
def test_setitem_refuses_an_overflowing_number_before_reading_the_index(idx):
    """x[idx] = 300 on int8: torch reports the overflow first, whatever is wrong with idx."""
    with pytest.raises(RuntimeError, match="overflow"):
        torch.zeros(3, dtype=torch.int8)[idx] = 300
    with pytest.raises(RuntimeError, match="overflow"):
        labkit.zeros(3, dtype=labkit.int8)[idx] = 300


CLONE_LAYOUTS = {
    "expand-of-t": ((2, 3), lambda x: x.t().expand(2, 3, 2)),
    "expand": ((3, 2), lambda x: x.expand(2, 3, 2)),
    "expand-lead": ((2, 3), lambda x: x.t()[None].expand(4, 3, 2)),
    "expand-last": ((3, 1), lambda x: x.expand(3, 4)),
    "t-sliced": ((2, 3), lambda x: x.t()[::2]),
    "permute": ((2, 3, 4), lambda x: x.permute(2, 0, 1)),
    "permute-sliced": ((2, 3, 4), lambda x: x.permute(1, 2, 0)[:, ::2]),
    "size-1": ((4, 1, 3), lambda x: x.permute(2, 1, 0)),
    "mid-expand": ((2, 3), lambda x: x.t().unsqueeze(1).expand(3, 4, 2)),
    "diagonal": ((3, 3), lambda x: x.diagonal()[None].expand(2, 3)),
}


@pytest.mark.parametrize("case", CLONE_LAYOUTS)
def test_clone_strides_as_torch_preserve_format(case):
    """clone() lays memory out as torch's preserve_format (ATen's infer_dense_strides), also for
    expanded inputs, so a later view() succeeds or fails as in torch (fuzzer: t, expand, view)."""
    shape, f = CLONE_LAYOUTS[case]
    n = int(np.prod(shape))
    ref = f(torch.arange(float(n)).reshape(shape)).clone()
    mine = f(labkit.arange(float(n)).reshape(shape)).clone()
    assert mine.stride() == ref.stride()
    assert mine.tolist() == ref.tolist()
    ok = []
    for t in (ref, mine):
        try:
            t.view(-1)
            ok.append(True)
        except RuntimeError:
            ok.append(False)
    assert ok[0] == ok[1]


def test_masked_fill_of_a_transposed_tensor_is_contiguous_as_torch():
    """torch's masked_fill fills a contiguous copy (fuzzer: t, masked_fill, view(-1))."""
    for L in (torch, labkit):
        x = L.arange(4.0).reshape(2, 2).t()
        y = x.masked_fill(L.tensor(False), L.tensor(-2.5))
        assert y.is_contiguous()
        assert y.view(-1).tolist() == [0.0, 2.0, 1.0, 3.0]
