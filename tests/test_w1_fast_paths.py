"""The short paths the W1 training step takes (benchmarks/w1_*.py), each against torch: the
in-place update under no_grad (w -= lr * g), sub of same-dtype floats, x ** 2, x.sum() and the
stride-0 gradient of a 0-d sum or mean, mm/matmul checked once at the entry point with dot
for 2-D floats, and nn.Linear reading its parameters directly. The general paths they skip
must still give torch's values and errors."""
import numpy as np
import pytest

import labkit
from labkit.engine.ops import reduce

torch = pytest.importorskip("torch")

FLOATS = ["float16", "float32", "float64"]


def _np(t):
    return (t.detach().cpu().numpy() if isinstance(t, labkit.Tensor) else t.detach().numpy())


def _twins(shape, dtype, seed, device="cpu"):
    a = np.random.default_rng(seed).uniform(-2, 2, shape).astype(dtype)
    return labkit.tensor(a, device=device), torch.tensor(a)


# --- w -= u under no_grad ------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("ws,us", [((3, 4), (3, 4)), ((3, 4), (4,)), ((), ()), ((0, 2), (2,)),
                                   ((1,), (1,))], ids=str)
def test_in_place_update_under_no_grad(device, dtype, ws, us):
    (w, wt), (u, ut) = _twins(ws, dtype, 1, device), _twins(us, dtype, 2, device)
    w.requires_grad_()
    wt.requires_grad_()
    arr, v0, vt0 = w._data, w._version, wt._version
    with labkit.no_grad():
        w -= 0.5 * u
    with torch.no_grad():
        wt -= 0.5 * ut
    assert w._data is arr, "the update must write into w's memory"
    assert w._version - v0 == wt._version - vt0 == 1
    assert w.dtype == getattr(labkit, dtype) and w.grad_fn is None and w.is_leaf
    np.testing.assert_array_equal(_np(w), _np(wt))


def test_in_place_update_of_views_reaches_the_base(device):
    (b, bt), (u, ut) = _twins((4, 3), "float32", 3, device), _twins((3, 4), "float32", 4, device)
    with labkit.no_grad():
        v = b.t()
        v -= u
        b[1:] -= u.t()[1:]
    vt = bt.t()
    vt -= ut
    bt[1:] -= ut.t()[1:]
    np.testing.assert_array_equal(_np(b), _np(bt))
    assert b._version == v._version == bt._version == vt._version


def test_in_place_update_errors_as_torch(device):
    (w, wt), (u, ut) = _twins((3, 4), "float32", 5, device), _twins((4, 3), "float32", 6, device)
    with pytest.raises(RuntimeError):
        wt -= ut
    with labkit.no_grad(), pytest.raises(RuntimeError, match=r"sub_.*\(3, 4\)"):
        w -= u
    np.testing.assert_array_equal(_np(w), _np(wt))           # nothing was written
    e, et = labkit.ones(4, device=device).expand(3, 4), torch.ones(4).expand(3, 4)
    with pytest.raises(RuntimeError, match="single memory location"):
        et -= torch.ones(3, 4)
    with labkit.no_grad(), pytest.raises(RuntimeError, match="clone|read-only"):
        e -= labkit.ones(3, 4, device=device)
    with labkit.no_grad(), pytest.raises(RuntimeError, match="can't be cast"):
        labkit.ones(2, dtype=labkit.int64, device=device).sub_(labkit.ones(2, device=device))


def test_saved_tensor_changed_by_the_update_is_caught(device):
    w = labkit.ones(3, requires_grad=True, device=device)
    loss = (w * w).sum()
    with labkit.no_grad():
        w -= labkit.ones(3, device=device)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


# --- sub, pow 2, sum -----------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (64, 10)], ids=str)
def test_sub_square_sum_values_grads_and_second_derivatives(device, dtype, shape):
    (a, at), (b, bt) = _twins(shape, dtype, 7, device), _twins(shape, dtype, 8, device)
    a.requires_grad_()
    at.requires_grad_()
    out, ref = ((a - b) ** 2).sum(), ((at - bt) ** 2).sum()
    assert out.dtype == getattr(labkit, dtype) and str(ref.dtype).endswith(dtype)
    tol = dict(rtol=2e-3, atol=2e-3) if dtype == "float16" else dict(rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(_np(out).astype(float), _np(ref).astype(float), **tol)
    (g,), (gt,) = labkit.autograd.grad(out, [a]), torch.autograd.grad(ref, [at])
    np.testing.assert_allclose(_np(g).astype(float), _np(gt).astype(float), **tol)
    (g,) = labkit.autograd.grad(((a - b) ** 2).sum(), [a], create_graph=True)
    (gt,) = torch.autograd.grad(((at - bt) ** 2).sum(), [at], create_graph=True)
    (h,), (ht,) = labkit.autograd.grad((g * g).sum(), [a]), torch.autograd.grad((gt * gt).sum(),
                                                                                [at])
    np.testing.assert_allclose(_np(h).astype(float), _np(ht).astype(float), **tol)


def test_sub_and_pow_keep_their_general_paths():
    x, xt = labkit.tensor([1, 2, 3]), torch.tensor([1, 2, 3])
    for f in (lambda m, t: t - m.tensor([True, False, True]), lambda m, t: 2 - t,
              lambda m, t: t - 1.5, lambda m, t: t ** 2, lambda m, t: t ** 2.0,
              lambda m, t: t.float() - t.double(), lambda m, t: t.float() ** True):
        try:
            ref = f(torch, xt)
        except RuntimeError:
            with pytest.raises(RuntimeError, match="bool"):
                f(labkit, x)
            continue
        out = f(labkit, x)
        assert str(out.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
        np.testing.assert_array_equal(_np(out), _np(ref))


@pytest.mark.parametrize("op", ["sum", "mean"])
@pytest.mark.parametrize("shape", [(), (1,), (5,), (3, 4), (2, 0, 3)], ids=str)
def test_sum_and_mean_gradient_is_a_read_only_stride_0_view(op, shape, spy_expand):
    (x, xt) = _twins(shape, "float32", 9)
    x.requires_grad_()
    xt.requires_grad_()
    y, z = getattr(x, op)(), getattr(xt, op)()
    seen = []
    x.register_hook(lambda g: seen.append(g))
    y.backward()
    z.backward()
    np.testing.assert_allclose(_np(x.grad), _np(xt.grad), rtol=1e-7)
    assert tuple(x.grad.shape) == shape and x.grad.dtype == labkit.float32
    g = seen[0]._data
    if op == "sum" or x.numel():     # (the mean of nothing takes the Tensor form, torch's
        #                              expand-then-divide: an empty array, nothing to share)
        assert all(s == 0 for s in g.strides) and not g.flags.writeable
        assert spy_expand, "the 0-d gradient did not take the direct stride-0 view"


@pytest.fixture
def spy_expand(monkeypatch):
    taken = []
    real = reduce._expand_arrays

    def counting(g, *args):
        if g.ndim == 0:
            taken.append(1)
        return real(g, *args)
    monkeypatch.setattr(reduce, "_expand_arrays", counting)
    return taken


def test_x_grad_from_a_sum_can_be_updated_in_place():
    """.grad must own its memory even though the gradient arrived as a stride-0 view."""
    x = labkit.ones(2, 3, requires_grad=True)
    x.sum().backward()
    x.grad.add_(1)
    x.sum().backward()
    np.testing.assert_array_equal(_np(x.grad), np.full((2, 3), 3.0))


# --- mm / matmul ----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("sa,sb", [((5, 7), (7, 3)), ((1, 1), (1, 1)), ((0, 4), (4, 3)),
                                   ((4, 0), (0, 3)), ((7,), (7, 3)), ((2, 5, 7), (7, 3))], ids=str)
def test_matmul_values_and_grads(device, dtype, sa, sb):
    (a, at), (b, bt) = _twins(sa, dtype, 10, device), _twins(sb, dtype, 11, device)
    for t in (a, at, b, bt):
        t.requires_grad_()
    out, ref = a @ b, at @ bt
    tol = dict(rtol=5e-3, atol=5e-3) if dtype == "float16" else dict(rtol=1e-5, atol=1e-5)
    assert out.dtype == getattr(labkit, dtype) and tuple(out.shape) == tuple(ref.shape)
    np.testing.assert_allclose(_np(out).astype(float), _np(ref).astype(float), **tol)
    g = np.random.default_rng(1).standard_normal(tuple(ref.shape)).astype(dtype)
    got = labkit.autograd.grad(out, [a, b], labkit.tensor(g, device=device))
    want = torch.autograd.grad(ref, [at, bt], torch.tensor(g))
    for m, r in zip(got, want):
        assert m.dtype == getattr(labkit, dtype)
        np.testing.assert_allclose(_np(m).astype(float), _np(r).astype(float), **tol)


@pytest.mark.parametrize("f", [
    lambda m: m.ones(2, 3).mm(m.ones(2, 3)),
    lambda m: m.ones(2, 3).mm(m.ones(3)),
    lambda m: m.ones(2, 3).mm(m.ones(3, 2, dtype=m.float64)),
    lambda m: m.ones(2, 3) @ m.ones(2, 3),
    lambda m: m.ones(2, 3) @ m.ones(3, dtype=m.float64),
    lambda m: m.ones(3) @ m.ones(()),
    lambda m: m.ones(4, 2, 3) @ m.ones(5, 3, 2),
], ids=["mm-inner", "mm-1d", "mm-dtype", "matmul-inner", "matmul-dtype", "matmul-0d",
        "matmul-batch"])
def test_matmul_errors_as_torch(f):
    with pytest.raises(RuntimeError) as ref:
        f(torch)
    with pytest.raises(RuntimeError) as mine:
        f(labkit)
    assert ref.type is mine.type
    assert any(n in str(mine.value) for n in ("mm", "matmul"))


# --- nn.Linear ------------------------------------------------------------------------------
def test_linear_module_with_its_weight_replaced_by_an_attribute():
    labkit.manual_seed(0)
    lin, ref = labkit.nn.Linear(3, 2), torch.nn.Linear(3, 2)
    for m, t in ((lin, labkit), (ref, torch)):
        del m.weight
        m.weight = t.ones(2, 3)
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    with torch.no_grad():
        ref.bias.copy_(torch.tensor(_np(lin.bias)))
    np.testing.assert_allclose(_np(lin(labkit.tensor(x))), _np(ref(torch.tensor(x))), rtol=1e-6)


# --- relu and clamp(min=0) forward ------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS + ["bfloat16", "int64"])
@pytest.mark.parametrize("value", [[-1.5, 0.0, 2.0, float("nan")], 1.5, -1.0, float("nan"), []],
                         ids=["vec", "pos", "neg", "nan", "empty"])
def test_relu_and_clamp_min_values_dtypes_and_grads(device, dtype, value):
    if dtype == "int64" and value != value or (dtype == "int64" and isinstance(value, list)
                                                and any(v != v for v in value)):
        pytest.skip("no int nan")
    x = labkit.tensor(value, dtype=getattr(labkit, dtype), device=device)
    xt = torch.tensor(value, dtype=getattr(torch, dtype))
    for f in (lambda m, t: m.relu(t), lambda m, t: t.clamp(min=0)):
        out, ref = f(labkit, x), f(torch, xt)
        assert str(out.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
        assert tuple(out.shape) == tuple(ref.shape)
        assert not isinstance(out._data, np.generic), "a 0-d result must stay an array"
        np.testing.assert_array_equal(_np(out.float()), _np(ref.float()))
    if dtype in FLOATS:
        a, at = x.detach().requires_grad_(), xt.detach().requires_grad_()
        for f in (lambda m, t: m.relu(t), lambda m, t: t.clamp(min=0)):
            (g,), (gt,) = (labkit.autograd.grad(f(labkit, a).sum(), [a]),
                           torch.autograd.grad(f(torch, at).sum(), [at]))
            np.testing.assert_array_equal(_np(g), _np(gt))


# --- the relu/clamp mask as a bitwise AND (unary.masked) ---------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("layout", ["dense", "transposed", "stride0"])
@pytest.mark.parametrize("cut", [False, True])
def test_masked_is_where_bit_for_bit(dtype, layout, cut):
    """Kept values pass with their bits (nan, inf, -0.0), cut ones become +0.0, as where."""
    from labkit.engine.ops.unary import masked
    rng = np.random.default_rng(3)
    specials = np.array([np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, -2.5], dtype)
    g = rng.standard_normal((6, 8)).astype(dtype)
    g.flat[::5] = np.resize(specials, g.flat[::5].shape)
    if layout == "transposed":
        g = np.ascontiguousarray(g.T).T
    elif layout == "stride0":
        g = np.broadcast_to(np.array(-0.0, dtype), (6, 8))
    mask = rng.random((6, 8)) < 0.5
    got = masked(mask, g, np, cut=cut)
    want = np.where(mask, np.zeros((), dtype), g) if cut else np.where(mask, g, np.zeros((), dtype))
    assert got.dtype == want.dtype and got.shape == want.shape and got.flags.c_contiguous
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("f", [lambda t: t.relu(), lambda t: t.clamp(min=0),
                               lambda t: t.clamp(min=0.25), lambda t: t.clamp(max=0),
                               lambda t: t.clamp(-0.5, 0.5)],
                         ids=["relu", "clamp_min0", "clamp_min", "clamp_max0", "clamp_both"])
@pytest.mark.parametrize("upstream", ["random", "sum", "transposed"])
def test_relu_and_clamp_backward_as_torch(device, dtype, f, upstream):
    """The mask on the array path (float16 too, a stride-0 gradient from sum, a transposed
    one) and on the create_graph path give torch's gradient, bit for bit."""
    arr = np.array([[-1.5, -0.0, 0.0, 0.25, np.nan, 2.0, -np.inf, np.inf],
                    [0.5, -0.5, 1.0, -2.0, 0.1, -0.1, 3.0, -3.0]], dtype)
    g = np.array([[np.nan, np.inf, 1.0, -2.0, np.nan, 3.0, np.inf, -np.inf],
                  [-0.0, 2.0, np.nan, 1.5, -1.0, np.inf, 0.5, -0.25]], dtype)
    for create_graph in (False, True):
        x = labkit.tensor(arr, device=device, requires_grad=True)
        xt = torch.tensor(arr, requires_grad=True)
        out, ref = f(x), f(xt)
        if upstream == "sum":
            (gx,) = labkit.autograd.grad(out.sum(), [x], create_graph=create_graph)
            (gt,) = torch.autograd.grad(ref.sum(), [xt])
        elif upstream == "transposed":
            gl = labkit.tensor(np.ascontiguousarray(g.T), device=device).t()
            (gx,) = labkit.autograd.grad(out, [x], gl, create_graph=create_graph)
            (gt,) = torch.autograd.grad(ref, [xt], torch.tensor(np.ascontiguousarray(g.T)).t())
        else:
            (gx,) = labkit.autograd.grad(out, [x], labkit.tensor(g, device=device),
                                         create_graph=create_graph)
            (gt,) = torch.autograd.grad(ref, [xt], torch.tensor(g))
        assert gx.dtype == getattr(labkit, dtype) and tuple(gx.shape) == tuple(gt.shape)
        assert _np(gx).tobytes() == _np(gt).tobytes(), create_graph


# --- nn.Linear's forward as (w @ x.T).T ---------------------------------------------------------
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("shape", [(64, 1000, 100), (16, 256, 100), (33, 300, 128)], ids=str)
def test_flipped_linear_gives_the_same_bits_row_major(bias, shape):
    """In the range where nn.Linear computes x @ w.T as (w @ x.T).T (float32, small batch, a
    wide layer), the output has the bits of x @ w.T (+ b), is row-major as torch's, and the
    values and gradients are torch's."""
    from labkit.engine.ops import linear
    n, k, m = shape
    rng = np.random.default_rng(4)
    x = rng.standard_normal((n, k)).astype(np.float32)
    w = (rng.standard_normal((m, k)) / np.sqrt(k)).astype(np.float32)
    b = rng.standard_normal(m).astype(np.float32)
    assert linear._flipped(x, w)
    lin, ref = labkit.nn.Linear(k, m, bias=bias), torch.nn.Linear(k, m, bias=bias)
    with labkit.no_grad(), torch.no_grad():
        lin.weight.copy_(labkit.tensor(w))
        ref.weight.copy_(torch.tensor(w))
        if bias:
            lin.bias.copy_(labkit.tensor(b))
            ref.bias.copy_(torch.tensor(b))
    out, want = lin(labkit.tensor(x)), ref(torch.tensor(x))
    plain = x.dot(w.T)
    if bias:
        plain += b
    assert _np(out).tobytes() == plain.tobytes()
    assert out.is_contiguous() and out.stride() == want.stride()
    np.testing.assert_allclose(_np(out), _np(want), rtol=1e-4, atol=1e-4)
    g = rng.standard_normal((n, m)).astype(np.float32)
    out.backward(labkit.tensor(g))
    want.backward(torch.tensor(g))
    for p, q in zip(lin.parameters(), ref.parameters()):
        np.testing.assert_allclose(_np(p.grad), _np(q.grad), rtol=1e-4, atol=1e-4)


def test_flipped_linear_stays_off_outside_its_range():
    from labkit.engine.ops import linear
    x32, w32 = np.ones((64, 1000), np.float32), np.ones((100, 1000), np.float32)
    assert linear._flipped(x32, w32)
    assert not linear._flipped(x32.astype(np.float64), w32.astype(np.float64))   # dgemm rounds
    assert not linear._flipped(np.ones((256, 1000), np.float32), w32)            # differently
    assert not linear._flipped(x32, np.ones((10, 1000), np.float32))
    assert not linear._flipped(np.asfortranarray(x32), w32)


# --- the direct entries: Tensor.mm/.clamp/.pow, nn.Linear ---------------------------------------
def test_direct_methods_take_torch_keywords_and_refuse_others():
    x, xt = _twins((2, 3), "float32", 12)
    w, wt = _twins((3, 2), "float32", 13)
    np.testing.assert_allclose(_np(x.mm(mat2=w)), _np(xt.mm(mat2=wt)), rtol=1e-6)
    np.testing.assert_array_equal(_np(x.pow(exponent=2)), _np(xt.pow(exponent=2)))
    np.testing.assert_array_equal(_np(x.clip(min=0)), _np(xt.clip(min=0)))
    for f in (lambda t, u: t.mm(other=u), lambda t, u: t.clamp(input=t, min=0),
              lambda t, u: t.pow(other=2)):
        with pytest.raises(TypeError):
            f(xt, wt)
        with pytest.raises(TypeError):
            f(x, w)


@pytest.mark.parametrize("f", [lambda t: t.clamp(min=0), lambda t: t.clamp(min=1),
                               lambda t: t.clamp(min=0.5), lambda t: t.clamp(min=True),
                               lambda t: t.clamp(max=0), lambda t: t ** 2, lambda t: t.pow(3),
                               lambda t: t.pow(0.5), lambda t: t ** True, lambda t: t.sum()],
                         ids=["min0", "min1", "min.5", "min-bool", "max0", "sq", "cube", "sqrt",
                              "pow-bool", "sum"])
@pytest.mark.parametrize("dtype", ["int32", "float16", "float64"])
def test_direct_methods_keep_torch_dtypes_and_errors(f, dtype):
    x, xt = _twins((2, 3), dtype, 14)
    if dtype == "int32":
        x, xt = x.abs(), xt.abs()
    try:
        ref = f(xt)
    except (RuntimeError, TypeError) as e:
        with pytest.raises(type(e)):
            f(x)
        return
    out = f(x)
    assert str(out.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    np.testing.assert_allclose(_np(out).astype(float), _np(ref).astype(float), rtol=2e-3,
                               equal_nan=True)


def test_direct_entries_under_autocast_cast_as_torch():
    x, xt = _twins((4, 3), "float32", 15)
    w, wt = _twins((3, 5), "float32", 16)
    labkit.manual_seed(0)
    lin = labkit.nn.Linear(3, 2)
    with labkit.autocast("cpu", dtype=labkit.bfloat16):
        assert x.mm(w).dtype == labkit.bfloat16
        assert lin(x).dtype == labkit.bfloat16
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert xt.mm(wt).dtype == torch.bfloat16


def test_linear_module_errors_as_torch():
    labkit.manual_seed(0)
    lin, ref = labkit.nn.Linear(3, 2), torch.nn.Linear(3, 2)
    for bad in (lambda m, t: m(t.ones(4, 5)), lambda m, t: m(t.ones(4, 3, dtype=t.float64))):
        with pytest.raises(RuntimeError):
            bad(ref, torch)
        with pytest.raises(RuntimeError, match="linear"):
            bad(lin, labkit)
    with pytest.raises(TypeError):
        lin([[1.0, 2.0, 3.0]])


@pytest.mark.parametrize("n", [1, 5, 64])
def test_linear_bias_gradient_for_several_batch_sizes(n):
    """The bias gradient's row of ones is kept per batch size: each size gets torch's sums."""
    labkit.manual_seed(0)
    lin = labkit.nn.Linear(4, 3)
    ref = torch.nn.Linear(4, 3)
    with torch.no_grad():
        ref.weight.copy_(torch.tensor(_np(lin.weight)))
        ref.bias.copy_(torch.tensor(_np(lin.bias)))
    for size in (n, n + 1, n):
        x = np.random.default_rng(size).standard_normal((size, 4)).astype(np.float32)
        lin.zero_grad()
        ref.zero_grad()
        (lin(labkit.tensor(x)) ** 2).sum().backward()
        (ref(torch.tensor(x)) ** 2).sum().backward()
        np.testing.assert_allclose(_np(lin.bias.grad), _np(ref.bias.grad), rtol=1e-5)
        lin.bias.grad.add_(1)      # .grad owns its memory (not the shared row)


# --- optim.SGD's plain step ---------------------------------------------------------------------
def test_plain_sgd_step_updates_in_place_as_torch(device):
    labkit.manual_seed(0)
    lin, ref = labkit.nn.Linear(4, 3).to(device), torch.nn.Linear(4, 3)
    with torch.no_grad():
        ref.weight.copy_(torch.tensor(_np(lin.weight)))
        ref.bias.copy_(torch.tensor(_np(lin.bias)))
    opt, topt = labkit.optim.SGD(lin.parameters(), lr=0.1), torch.optim.SGD(ref.parameters(), lr=0.1)
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    arrays = [p._data for p in lin.parameters()]
    versions = [p._version for p in lin.parameters()]
    (lin(labkit.tensor(x, device=device)) ** 2).sum().backward()
    (ref(torch.tensor(x)) ** 2).sum().backward()
    lin.bias.grad = None                      # a parameter without a gradient is left alone
    ref.bias.grad = None
    opt.step()
    topt.step()
    assert [p._data for p in lin.parameters()] == arrays
    assert [p._version for p in lin.parameters()] == [versions[0] + 1, versions[1]]
    for p, q in zip(lin.parameters(), ref.parameters()):
        np.testing.assert_allclose(_np(p), _np(q), rtol=1e-6, atol=1e-7)


def test_plain_sgd_step_refuses_a_gradient_of_another_shape():
    w = labkit.nn.Parameter(labkit.ones(3))
    with pytest.raises(RuntimeError, match="size"):   # assigning one refuses it, as torch
        w.grad = labkit.ones(2)
    w._grad = labkit.ones(2)                        # one that got there some other way
    with pytest.raises(RuntimeError, match="shape"):
        labkit.optim.SGD([w], lr=0.1).step()
    np.testing.assert_array_equal(_np(w), np.ones(3))


# --- mse_loss's two backward paths with a target of another dtype -------------------------------
@pytest.mark.parametrize("td", ["bool", "int64", "float32"])
def test_mse_loss_gradient_with_another_target_dtype_on_both_paths(td):
    """The array path computes in the forward's result dtype; the Tensor path (create_graph)
    takes a bool target too (x - t refuses bool, torch's mse_loss does not)."""
    rng = np.random.default_rng(5)
    xa = rng.uniform(-2, 2, (3, 2))
    ta = (rng.uniform(-2, 2, (3, 2)) > 0 if td == "bool" else rng.uniform(-2, 2, (3, 2)) * 3
          ).astype(td)
    xt = torch.tensor(xa, requires_grad=True)
    (want,) = torch.autograd.grad(torch.nn.functional.mse_loss(xt, torch.tensor(ta)), [xt])
    for create_graph in (False, True):
        x = labkit.tensor(xa, requires_grad=True)
        (g,) = labkit.autograd.grad(labkit.nn.functional.mse_loss(x, labkit.tensor(ta)), [x],
                                    create_graph=create_graph)
        assert g.dtype == labkit.float64 and g.requires_grad is create_graph
        np.testing.assert_allclose(_np(g), _np(want), rtol=1e-12)
