"""The rest of torch's max pools, against torch: max_pool1d/2d/3d_with_indices (F and torch.X),
adaptive_max_pool3d (F, its _with_indices form, nn.AdaptiveMaxPool3d), torch.adaptive_max_pool1d
(a pair), torch.max_pool3d, fractional_max_pool2d/3d (torch's windows from the same seed, or
from _random_samples given), the modules, gradients, nan winners, errors, assert_int_or_pair."""
import numpy as np
import pytest

import labkit as lk
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")


def _same(mine, ref, exact=True):
    mine = mine if isinstance(mine, (tuple, list)) else (mine,)
    ref = ref if isinstance(ref, (tuple, list)) else (ref,)
    assert len(mine) == len(ref)
    for m, r in zip(mine, ref):
        assert tuple(m.shape) == tuple(r.shape)
        assert str(m.dtype).split(".")[-1] == str(r.dtype).split(".")[-1]
        if exact:
            np.testing.assert_array_equal(m.detach().numpy(), r.detach().numpy())
        else:
            np.testing.assert_allclose(m.detach().numpy(), r.detach().numpy(), rtol=1e-6)


@pytest.mark.parametrize("k,shape,kw", [
    (1, (2, 3, 9), dict(kernel_size=3)), (1, (3, 8), dict(kernel_size=2, stride=1, padding=1)),
    (2, (2, 2, 6, 7), dict(kernel_size=3, stride=2, ceil_mode=True)),
    (2, (1, 5, 5), dict(kernel_size=(2, 3), dilation=(1, 2))),
    (3, (1, 2, 5, 6, 4), dict(kernel_size=2)), (3, (2, 4, 4, 4), dict(kernel_size=3, padding=1)),
])
def test_max_pool_with_indices_as_torch(k, shape, kw):
    name = f"max_pool{k}d_with_indices"
    x = rand_array(shape, seed=k)
    out = check_op(lambda a: getattr(lk.nn.functional, name)(a, **kw),
                   lambda a: getattr(torch.nn.functional, name)(a, **kw), [x])
    assert isinstance(out[0], (tuple, list)) and len(out[0]) == 2
    # return_indices=False still gives the pair, as in torch
    mine = getattr(lk.nn.functional, name)(lk.tensor(x), **kw, return_indices=False)
    assert isinstance(mine, tuple) and len(mine) == 2


def test_torch_dot_max_pools_as_torch():
    x = rand_array((2, 3, 8), seed=3)
    check_op(lambda a: lk.max_pool1d_with_indices(a, 3, (), 1),
             lambda a: torch.max_pool1d_with_indices(a, 3, (), 1), [x])
    v = rand_array((1, 2, 4, 5, 6), seed=4)
    check_op(lambda a: lk.max_pool3d(a, 2), lambda a: torch.max_pool3d(a, 2), [v])
    check_op(lambda a: lk.max_pool3d(a, (2, 1, 3), (1, 1, 2), 0, 1, True),
             lambda a: torch.max_pool3d(a, (2, 1, 3), (1, 1, 2), 0, 1, True), [v])
    check_op(lambda a: lk.adaptive_max_pool1d(a, 3), lambda a: torch.adaptive_max_pool1d(a, 3),
             [x])


@pytest.mark.parametrize("shape,out", [((2, 3, 5, 7, 6), (2, 3, 4)), ((2, 4, 4, 4), 2),
                                       ((1, 1, 3, 3, 3), (3, None, 1)), ((1, 2, 6, 5, 7), 1),
                                       ((2, 1, 4, 5, 6), (8, 2, 7))])
def test_adaptive_max_pool3d_as_torch(shape, out, device):
    x = rand_array(shape, seed=5)
    check_op(lambda a: lk.nn.functional.adaptive_max_pool3d(a, out, True),
             lambda a: torch.nn.functional.adaptive_max_pool3d(a, out, True), [x], device=device)
    check_op(lambda a: lk.nn.functional.adaptive_max_pool3d_with_indices(a, out),
             lambda a: torch.nn.functional.adaptive_max_pool3d_with_indices(a, out), [x],
             device=device)
    check_op(lambda a: lk.nn.AdaptiveMaxPool3d(out)(a),
             lambda a: torch.nn.AdaptiveMaxPool3d(out)(a), [x], device=device)


def test_adaptive_max_pool3d_to_size_0_as_torch():
    # torch's backward refuses an empty output, so only the forward is compared
    check_op(lambda a: lk.nn.functional.adaptive_max_pool3d(a, (0, 2, 1), True),
             lambda a: torch.nn.functional.adaptive_max_pool3d(a, (0, 2, 1), True),
             [rand_array((1, 2, 3, 3, 3))], requires_grad=[False])


def test_adaptive_max_pool3d_ties_nan_and_ints_as_torch():
    x = np.zeros((1, 1, 4, 4, 4))
    x[0, 0, 1, 2, 3] = np.nan
    x[0, 0, 0, 1, 1] = x[0, 0, 1, 0, 0] = np.nan
    for arr in (x, np.ones((1, 2, 3, 4, 5)), np.arange(60.).reshape(1, 3, 4, 5) % 7):
        _same(lk.nn.functional.adaptive_max_pool3d(lk.tensor(arr), 2, True),
              torch.nn.functional.adaptive_max_pool3d(torch.tensor(arr), 2, True))
    assert repr(lk.nn.AdaptiveMaxPool3d((2, 3, 4))) == repr(torch.nn.AdaptiveMaxPool3d((2, 3, 4)))
    for L in (lk, torch):
        with pytest.raises(NotImplementedError, match="Long"):
            L.nn.functional.adaptive_max_pool3d(L.ones(1, 2, 2, 2, dtype=L.int64), 1)


@pytest.mark.parametrize("shape", [(1, 2, 3), (2, 0, 2, 2, 2), (2, 2, 0, 2, 2)])
def test_adaptive_max_pool3d_refuses_what_torch_refuses(shape):
    for L in (lk, torch):
        with pytest.raises(RuntimeError):
            L.nn.functional.adaptive_max_pool3d(L.zeros(shape), 2)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("shape,kernel,kw", [
    ((2, 3, 7, 9), 3, dict(output_size=(4, 5))), ((3, 8, 8), (2, 3), dict(output_ratio=(0.5, 0.5))),
    ((1, 1, 5, 5), 2, dict(output_size=4)), ((2, 2, 10, 6), 2, dict(output_ratio=(0.7, 0.5))),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fractional_max_pool2d_draws_torchs_windows(seed, shape, kernel, kw, dtype):
    x = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    lk.manual_seed(seed)
    torch.manual_seed(seed)
    mine = lk.nn.functional.fractional_max_pool2d(lk.tensor(x), kernel, **kw,
                                                  return_indices=True)
    ref = torch.nn.functional.fractional_max_pool2d(torch.tensor(x), kernel, **kw,
                                                    return_indices=True)
    _same(mine, ref)
    assert lk.rand(3).tolist() == pytest.approx(torch.rand(3).tolist())   # same draws used


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("shape,kernel,kw", [
    ((2, 2, 6, 7, 8), (2, 3, 2), dict(output_ratio=0.5)), ((1, 5, 5, 5), 2, dict(output_size=3)),
    ((1, 1, 5, 6, 5), (1, 2, 3), dict(output_size=(4, 3, 2))),
])
def test_fractional_max_pool3d_draws_torchs_windows(seed, shape, kernel, kw):
    x = np.random.default_rng(seed).standard_normal(shape)
    lk.manual_seed(seed)
    torch.manual_seed(seed)
    _same(lk.nn.functional.fractional_max_pool3d(lk.tensor(x), kernel, **kw, return_indices=True),
          torch.nn.functional.fractional_max_pool3d(torch.tensor(x), kernel, **kw,
                                                    return_indices=True))


@pytest.mark.parametrize("k", [2, 3])
def test_fractional_max_pool_given_samples_values_and_gradients_as_torch(k, device):
    shape = (2, 3, 9, 8) if k == 2 else (2, 2, 7, 6, 8)
    x = rand_array(shape, seed=11)
    u = np.random.default_rng(1).random((2, shape[1], k))
    name = f"fractional_max_pool{k}d"

    def run(L):
        return lambda a: getattr(L.nn.functional, name)(
            a, 2, output_size=(4,) * k, return_indices=True,
            _random_samples=L.tensor(u, device=a.device) if L is lk else torch.tensor(u))
    check_op(run(lk), run(torch), [x], device=device)
    modname = f"FractionalMaxPool{k}d"
    check_op(lambda a: getattr(lk.nn, modname)(3, output_ratio=0.5, _random_samples=lk.tensor(
                 u, device=a.device))(a),
             lambda a: getattr(torch.nn, modname)(3, output_ratio=0.5,
                                                 _random_samples=torch.tensor(u))(a),
             [x], device=device)


def test_fractional_max_pool_unbatched_overlapping_windows_and_nan_as_torch():
    x = np.random.default_rng(0).standard_normal((2, 6, 6))
    x[0, 2, 3] = np.nan
    u = np.random.default_rng(1).random((1, 2, 2))
    for kw in (dict(output_size=5), dict(output_size=(2, 3))):
        _same(lk.nn.functional.fractional_max_pool2d(lk.tensor(x), 2, **kw, return_indices=True,
                                                     _random_samples=lk.tensor(u)),
              torch.nn.functional.fractional_max_pool2d(torch.tensor(x), 2, **kw,
                                                        return_indices=True,
                                                        _random_samples=torch.tensor(u)))
    x = rand_array((1, 1, 5, 5), seed=2)
    u = np.array([[[0.3, 0.8]]])
    check_op(lambda a: lk.nn.functional.fractional_max_pool2d(   # windows overlap: grads add
                 a, 3, output_size=3, _random_samples=lk.tensor(u)),
             lambda a: torch.nn.functional.fractional_max_pool2d(
                 a, 3, output_size=3, _random_samples=torch.tensor(u)), [x])


def _raises(fn):
    try:
        fn()
    except Exception as e:   # noqa: BLE001
        return type(e).__name__
    return None


@pytest.mark.parametrize("call", [
    "F.fractional_max_pool2d(x4, 2)",                                   # neither size nor ratio
    "F.fractional_max_pool2d(x4, 4, output_size=4)",                   # pool too large
    "F.fractional_max_pool2d(x4, 2, output_ratio=(0.5, 0.5, 0.5))",
    "F.fractional_max_pool2d(x4, 2, output_ratio=0.5)",                # torch's F: len(0.5)
    "F.fractional_max_pool2d(x4, 2, output_ratio=[0.5])",
    "F.fractional_max_pool3d(x5, 2, output_size=4)",                   # 3-D: strictly smaller
    "F.fractional_max_pool3d(x5, 2, output_size=3)",
    "F.fractional_max_pool2d(x2, 2, output_size=2)",                   # 2-D input
    "F.fractional_max_pool3d(x4, 2, output_size=2)",                   # 4-D is unbatched: ok
    "F.fractional_max_pool3d(x2, 2, output_size=2)",
    "L.nn.FractionalMaxPool2d(2)", "L.nn.FractionalMaxPool2d(2, 3, 0.5)",
    "L.nn.FractionalMaxPool2d(2, output_ratio=1.5)", "L.nn.FractionalMaxPool3d(0, 3)",
    "L.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 1.0))",
])
def test_fractional_errors_as_torch(call):
    got = []
    for L in (lk, torch):
        env = {"L": L, "F": L.nn.functional, "x4": L.ones(1, 2, 5, 5), "x2": L.ones(5, 5),
               "x5": L.ones(1, 1, 5, 5, 5)}
        got.append(_raises(lambda: eval(call, env)))
    assert got[0] == got[1]


def test_assert_int_or_pair_as_torch():
    for L in (lk, torch):
        f = L.nn.functional.assert_int_or_pair
        assert f(3, "k", "{} bad") is None and f((1, 2), "k", "{} bad") is None
        with pytest.raises(AssertionError, match="kernel bad"):
            f((1, 2, 3), "kernel", "{} bad")
