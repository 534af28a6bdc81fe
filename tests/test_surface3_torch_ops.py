"""More torch.X, against torch: the *_copy ops, the torch.X forms of nn.functional ops with ATen's
signatures (dropout variants, celu_, selu_, rrelu, channel_shuffle, conv_transpose1d, ctc_loss
with an int reduction), the native_* tuples, frobenius_norm / nuclear_norm, resolve_neg,
anomaly mode's check_nan switch, the deterministic debug mode, OutOfMemoryError,
utils.data.ChainDataset."""
import warnings

import numpy as np
import pytest

import labkit as lk
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")


def _name(dtype):
    return str(dtype).split(".")[-1]


X = rand_array((2, 3, 4), seed=1)


@pytest.mark.parametrize("name,args", [
    ("alias_copy", ()), ("diagonal_copy", (1, 1, 2)),
    ("expand_copy", ((3, 2, 3, 4),)), ("permute_copy", ((2, 0, 1),)), ("select_copy", (1, -1)),
    ("slice_copy", (2, 1, None, 2)), ("slice_copy", ()), ("split_copy", (2, 2)),
    ("split_with_sizes_copy", ([1, 2], 1)), ("squeeze_copy", ()), ("squeeze_copy", (0,)),
    ("t_copy", None), ("transpose_copy", (0, 2)), ("unbind_copy", (1,)),
    ("unfold_copy", (2, 2, 1)), ("unsqueeze_copy", (-1,)), ("view_copy", ((4, 6),)),
    ("as_strided_copy", ((2, 2), (1, 2), 1)), ("narrow_copy", (2, 1, 2)),
])
def test_copy_ops_as_torch(name, args, device):
    x = rand_array((3, 4), seed=2) if args is None else X
    args = () if args is None else args
    out = check_op(lambda a: getattr(lk, name)(a, *args), lambda a: getattr(torch, name)(a, *args),
                   [x], device=device)
    for t in out[0]:
        assert t._base is None and t.is_contiguous()        # fresh memory, never a view


def test_detach_copy_as_torch_but_detached():
    x = rand_array((2, 3))
    a, b = lk.detach_copy(lk.tensor(x, requires_grad=True)), \
        torch.detach_copy(torch.tensor(x, requires_grad=True))
    np.testing.assert_array_equal(a.numpy(), b.detach().numpy())
    # torch 2.13 marks its result as requiring grad, with a grad_fn that cannot run backward;
    # labkit's is detached (compat_notes: DIFFERENCES)
    assert not a.requires_grad and a.grad_fn is None and a._base is None


def test_view_copy_of_a_dtype_and_complex_copies_as_torch():
    x = np.arange(6, dtype=np.float32)
    assert lk.view_copy(lk.tensor(x), lk.int32).tolist() == \
        torch.view_copy(torch.tensor(x), torch.int32).tolist()
    z = np.array([1 + 2j, 3 - 1j], np.complex64)
    np.testing.assert_array_equal(lk.view_as_real_copy(lk.tensor(z)).numpy(),
                                  torch.view_as_real_copy(torch.tensor(z)).numpy())
    r = np.arange(4, dtype=np.float32).reshape(2, 2)
    np.testing.assert_array_equal(lk.view_as_complex_copy(lk.tensor(r)).numpy(),
                                  torch.view_as_complex_copy(torch.tensor(r)).numpy())


def test_resolve_neg_and_is_inference_functions_as_torch():
    for L in (lk, torch):
        x = L.ones(2)
        assert L.resolve_neg(x) is x and L.is_inference(x) is False
        with pytest.raises(TypeError):
            L.resolve_neg([1.0])


@pytest.mark.parametrize("name,kw", [
    ("dropout_", {}), ("alpha_dropout", {}), ("alpha_dropout_", {}),
    ("feature_alpha_dropout", {}), ("feature_alpha_dropout_", {}), ("feature_dropout", {}),
    ("feature_dropout_", {}),
])
@pytest.mark.parametrize("train", [True, False])
def test_dropout_variants_are_torchs_numbers(name, kw, train):
    x = np.random.default_rng(0).standard_normal((4, 3, 5)).astype(np.float32)
    lk.manual_seed(7)
    torch.manual_seed(7)
    a, b = lk.tensor(x), torch.tensor(x)
    mine, ref = getattr(lk, name)(a, 0.4, train), getattr(torch, name)(b, 0.4, train)
    np.testing.assert_allclose(mine.numpy(), ref.numpy(), rtol=1e-6)
    assert (mine is a) == (ref is b)                     # in place (or not training): itself
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


def test_feature_dropout_needs_two_dims_as_torch():
    for L in (lk, torch):
        with pytest.raises(RuntimeError, match="at least 2 dimensions"):
            L.feature_dropout(L.ones(3), 0.5, True)


def test_activations_in_place_and_rrelu_as_torch():
    for L in (lk, torch):
        x = L.tensor([-1.0, 0.0, 2.0])
        assert L.celu_(x, 2.0) is x
    a, b = (L.celu_(L.tensor([-1.0, 0.0, 2.0]), 2.0) for L in (lk, torch))
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    a, b = (L.selu_(L.tensor([-1.0, 0.0, 2.0])) for L in (lk, torch))
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    x = rand_array((3, 4), seed=5, away_from=[0])
    check_op(lambda t: lk.rrelu(t), lambda t: torch.rrelu(t), [x])     # training=False
    check_op(lambda t: lk.rrelu(t, 0.1, 0.2), lambda t: torch.rrelu(t, 0.1, 0.2), [x])
    a = lk.tensor(x)
    assert lk.rrelu_(a, training=True) is a                  # in place, slopes in [lower, upper]
    neg = x < 0
    slopes = a.numpy()[neg] / x[neg]
    assert np.all((slopes >= 1 / 8 - 1e-12) & (slopes <= 1 / 3 + 1e-12))
    np.testing.assert_array_equal(a.numpy()[~neg], x[~neg])


def test_channel_shuffle_and_conv_transpose1d_as_torch(device):
    x = rand_array((2, 6, 3), seed=6)
    check_op(lambda t: lk.channel_shuffle(t, 3), lambda t: torch.channel_shuffle(t, 3), [x],
             device=device)
    check_op(lambda t: lk.native_channel_shuffle(t, 2),      # torch has no derivative for it
             lambda t: torch.native_channel_shuffle(t, 2), [x], device=device,
             requires_grad=[False])
    w, bias = rand_array((6, 2, 3), seed=7), rand_array((4,), seed=8)
    check_op(lambda t, u, b: lk.conv_transpose1d(t, u, b, 2, 1, 1, 2),
             lambda t, u, b: torch.conv_transpose1d(t, u, b, 2, 1, 1, 2), [x, w, bias],
             device=device)


@pytest.mark.parametrize("reduction", [None, 0, 1, 2])
@pytest.mark.parametrize("tensor_lengths", [False, True])
def test_ctc_loss_torch_dot_form_as_torch(reduction, tensor_lengths):
    lp = np.log(np.random.default_rng(0).dirichlet(np.ones(5), size=(6, 2)))
    tg = np.array([[1, 2, 2], [3, 1, 0]])

    def run(L):
        def f(a, t):
            il, tl = [6, 5], [3, 2]
            if tensor_lengths:
                il, tl = L.tensor(il), L.tensor(tl)
            extra = () if reduction is None else (0, reduction)
            return L.ctc_loss(a, t, il, tl, *extra)
        return f
    check_op(run(lk), run(torch), [lp, tg], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("train", [True, False, None])
@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
def test_native_dropout_as_torch(train, p):
    x = np.random.default_rng(1).standard_normal((3, 4))
    lk.manual_seed(3)
    torch.manual_seed(3)
    a = lk.tensor(x, requires_grad=True)
    b = torch.tensor(x, requires_grad=True)
    (mo, mm), (ro, rm) = lk.native_dropout(a, p, train), torch.native_dropout(b, p, train)
    np.testing.assert_allclose(mo.detach().numpy(), ro.detach().numpy())
    assert mm.tolist() == rm.tolist() and _name(mm.dtype) == _name(rm.dtype) == "bool"
    assert mo.requires_grad and not mm.requires_grad
    assert mo is not a
    g = np.random.default_rng(2).standard_normal((3, 4))
    mo.backward(lk.tensor(g))
    ro.backward(torch.tensor(g))
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy())


@pytest.mark.parametrize("shape,normalized", [((2, 3, 4), (4,)), ((2, 3, 4), (3, 4)),
                                              ((5, 2), (2,)), ((0, 3), (3,))])
@pytest.mark.parametrize("affine", [True, False])
def test_native_layer_norm_as_torch(shape, normalized, affine, device):
    arrays = [rand_array(shape, seed=3)]
    if affine:
        arrays += [rand_array(normalized, seed=4), rand_array(normalized, seed=5)]

    def run(L):
        return lambda x, *wb: L.native_layer_norm(x, normalized, *(wb or (None, None)), 1e-5)
    out = check_op(run(lk), run(torch), arrays, device=device, rtol=1e-6, atol=1e-9)
    assert not out[0][1].requires_grad and not out[0][2].requires_grad


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (2, 3, 2, 2)])
def test_native_batch_norm_as_torch(training, shape, device):
    rm, rv = rand_array((3,), seed=6), rand_array((3,), seed=7, positive=True)
    x, w, b = rand_array(shape, seed=8), rand_array((3,), seed=9), rand_array((3,), seed=10)
    stats = {}

    def run(L):
        def f(x, w, b):
            m = L.tensor(rm, device=x.device) if L is lk else torch.tensor(rm)
            v = L.tensor(rv, device=x.device) if L is lk else torch.tensor(rv)
            out = L.native_batch_norm(x, w, b, m, v, training, 0.1, 1e-5)
            stats[L.__name__] = (m, v)
            return out
        return f
    check_op(run(lk), run(torch), [x, w, b], device=device, rtol=1e-6, atol=1e-9)
    for mine, ref in zip(stats["labkit"], stats["torch"]):
        np.testing.assert_allclose(mine.cpu().numpy(), ref.numpy(), rtol=1e-12)


@pytest.mark.parametrize("shape,group", [((2, 4, 3), 2), ((3, 6, 2, 2), 3), ((1, 4, 3), 4)])
def test_native_group_norm_as_torch(shape, group, device):
    n, c = shape[:2]
    hw = int(np.prod(shape[2:]))
    arrays = [rand_array(shape, seed=11), rand_array((c,), seed=12), rand_array((c,), seed=13)]
    check_op(lambda x, w, b: lk.native_group_norm(x, w, b, n, c, hw, group, 1e-5),
             lambda x, w, b: torch.native_group_norm(x, w, b, n, c, hw, group, 1e-5), arrays,
             device=device, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("dim,keepdim", [((0, 1), False), (1, True), ((-1,), False),
                                         ((0, 2), True)])
def test_frobenius_norm_as_torch(dim, keepdim):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_op(lambda x: lk.frobenius_norm(x, dim, keepdim),
                 lambda x: torch.frobenius_norm(x, dim, keepdim), [X])
    for L in (lk, torch):      # (torch's deprecation warning comes once a process: so labkit's)
        with warnings.catch_warnings(), pytest.raises(RuntimeError, match="at most 2"):
            warnings.simplefilter("ignore")
            L.frobenius_norm(L.ones(2, 2, 2), (0, 1, 2))


def test_nuclear_norm_as_torch():
    A = rand_array((3, 4), seed=14)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_op(lambda x: lk.nuclear_norm(x), lambda x: torch.nuclear_norm(x), [A])
        check_op(lambda x: lk.nuclear_norm(x, True), lambda x: torch.nuclear_norm(x, True), [A])
        check_op(lambda x: lk.nuclear_norm(x, (0, 2), True),
                 lambda x: torch.nuclear_norm(x, (0, 2), True), [X])
        check_op(lambda x: lk.nuclear_norm(x), lambda x: torch.nuclear_norm(x), [X])  # batched
        for L in (lk, torch):
            with pytest.raises(RuntimeError):
                L.nuclear_norm(L.ones(3))


def _anomaly_states(L):
    out = [(L.is_anomaly_enabled(), L.is_anomaly_check_nan_enabled())]
    with L.autograd.detect_anomaly(check_nan=False):
        out.append((L.is_anomaly_enabled(), L.is_anomaly_check_nan_enabled()))
        x = L.tensor([-1.0], requires_grad=True)
        x.sqrt().backward()                       # nan, but not checked
        out.append(bool(x.grad.isnan().item()))
    L.set_anomaly_enabled(True, False)
    out.append((L.is_anomaly_enabled(), L.is_anomaly_check_nan_enabled()))
    L.set_anomaly_enabled(False)
    out.append((L.is_anomaly_enabled(), L.is_anomaly_check_nan_enabled()))
    with L.autograd.set_detect_anomaly(True, check_nan=False):
        out.append((L.is_anomaly_enabled(), L.is_anomaly_check_nan_enabled()))
    out.append((L.is_anomaly_enabled(), L.is_anomaly_check_nan_enabled()))
    return out


def test_anomaly_switches_as_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _anomaly_states(lk) == _anomaly_states(torch)
    with lk.autograd.detect_anomaly():         # check_nan=True still stops at a nan
        x = lk.tensor([-1.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="nan"):
            x.sqrt().backward()


def _debug_modes(L):
    out = [L.get_deterministic_debug_mode()]
    for mode in ("warn", "error", 0, 1, 2, "default"):
        L.set_deterministic_debug_mode(mode)
        out.append((L.get_deterministic_debug_mode(), L.are_deterministic_algorithms_enabled(),
                    L.is_deterministic_algorithms_warn_only_enabled()))
    for bad in ("x", 3, 1.5):
        try:
            L.set_deterministic_debug_mode(bad)
        except Exception as e:   # noqa: BLE001
            out.append((type(e).__name__, str(e)))
    L.set_deterministic_debug_mode(0)
    return out


def test_deterministic_debug_mode_as_torch():
    assert _debug_modes(lk) == _debug_modes(torch)


def test_out_of_memory_error_as_torch():
    assert issubclass(lk.OutOfMemoryError, RuntimeError)
    assert lk.OutOfMemoryError is lk.cuda.OutOfMemoryError
    assert torch.OutOfMemoryError is torch.cuda.OutOfMemoryError


def test_chain_dataset_as_torch():
    def build(D):
        class Stream(D.IterableDataset):
            def __init__(self, n):
                self.n = n

            def __iter__(self):
                return iter(range(self.n))

            def __len__(self):
                return self.n
        chained = D.ChainDataset([Stream(2), Stream(3)])
        added = Stream(1) + Stream(2)
        out = [list(chained), len(chained), type(added).__name__, list(added)]
        bad = D.ChainDataset([Stream(1), D.TensorDataset(lk.ones(2) if D is lk.utils.data
                                                         else torch.ones(2))])
        for fn in (lambda: list(bad), lambda: len(bad)):
            try:
                fn()
            except AssertionError as e:
                out.append(str(e))
        return out
    assert build(lk.utils.data) == build(torch.utils.data)
