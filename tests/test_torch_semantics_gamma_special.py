"""lgamma, digamma, polygamma, mvlgamma, erfc, erfinv (functions, methods, in-place forms) and
labkit.special against torch: values over wide ranges (negative x, poles, inf/nan), dtypes of
int inputs, gradients with a random upstream grad, second derivatives, errors."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")
SPECIAL = [0.0, -0.0, -1.0, -2.5, 0.5, 1e-300, float("inf"), float("-inf"), float("nan")]


@pytest.mark.parametrize("name", ["lgamma", "digamma", "erfc", "erfinv"])
def test_values_wide_range(name):
    if name == "erfinv":
        x = np.concatenate([np.linspace(-0.999999, 0.999999, 801), [-1.0, 1.0, 1.5, -2.0, 0.0]])
    elif name == "erfc":
        x = np.linspace(-10, 30, 801)
    else:
        x = np.concatenate([np.linspace(-30.3, 40, 801), [1e-5, 100.0, 1e5]])
    mine = getattr(labkit, name)(labkit.tensor(x)).numpy()
    ref = getattr(torch, name)(torch.tensor(x)).numpy()
    np.testing.assert_allclose(mine, ref, rtol=1e-11, atol=1e-300 if name == "erfc" else 1e-12)
    if name in ("lgamma", "digamma"):
        np.testing.assert_allclose(     # inf, -inf and nan exactly where torch has them
            getattr(labkit, name)(labkit.tensor(SPECIAL, dtype=labkit.float64)).numpy(),
            getattr(torch, name)(torch.tensor(SPECIAL, dtype=torch.float64)).numpy(), rtol=1e-12)
        np.testing.assert_allclose(getattr(labkit, name)(labkit.tensor(SPECIAL)).numpy(),
                                   getattr(torch, name)(torch.tensor(SPECIAL)).numpy(), rtol=1e-6)


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_polygamma_values(n):
    x = np.concatenate([np.linspace(-4.7, 30, 401), [0.01, 1e3]])
    np.testing.assert_allclose(labkit.polygamma(n, labkit.tensor(x)).numpy(),
                               torch.polygamma(n, torch.tensor(x)).numpy(), rtol=1e-8)
    np.testing.assert_allclose(labkit.tensor(x).polygamma(n).numpy(),
                               torch.tensor(x).polygamma(n).numpy(), rtol=1e-8)


@pytest.mark.parametrize("fn", [
    lambda L, a: L.lgamma(a), lambda L, a: L.digamma(a), lambda L, a: L.polygamma(2, a),
    lambda L, a: L.erfc(a), lambda L, a: L.erfinv(a * 0.4), lambda L, a: L.mvlgamma(a + 2, 3),
    lambda L, a: a.lgamma(), lambda L, a: a.erfinv(),
])
@pytest.mark.parametrize("shape", [(3, 4), (), (0, 2)])
def test_gradients(fn, shape, device):
    check_op(lambda a: fn(labkit, a), lambda a: fn(torch, a),
             [rand_array(shape, 1, -0.9, 2.4, away_from=[0.0])], device=device, rtol=1e-8)


def test_second_derivatives():
    x0 = rand_array((5,), 2, 0.2, 0.9)
    res = []
    for lib in (labkit, torch):
        x = lib.tensor(x0, requires_grad=True)
        y = (lib.lgamma(x) + lib.erfinv(x) + lib.erfc(x) + lib.digamma(x)).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x)
        res.append((g.detach().numpy(), h.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-8)


def test_int_inputs_inplace_and_errors():
    for name in ("lgamma", "digamma", "erfc", "erfinv"):
        assert getattr(labkit, name)(labkit.tensor([1, 2])).dtype == labkit.float32
    for name in ("lgamma_", "digamma_", "erfc_", "erfinv_"):
        a, t = labkit.tensor([0.3, 0.7], dtype=labkit.float64), torch.tensor([0.3, 0.7], dtype=torch.float64)
        assert getattr(a, name)() is a
        getattr(t, name)()
        np.testing.assert_allclose(a.numpy(), t.numpy(), rtol=1e-12)
    a, t = labkit.tensor([2.5, 3.0]), torch.tensor([2.5, 3.0])
    np.testing.assert_allclose(a.mvlgamma(2).numpy(), t.mvlgamma(2).numpy(), rtol=1e-6)
    for lib in (torch, labkit):
        assert lib.mvlgamma(lib.tensor([0.5]), 2).tolist() == [float("inf")]
        with pytest.raises(RuntimeError):
            lib.polygamma(-1, lib.tensor([0.5]))
        with pytest.raises(RuntimeError):
            lib.tensor([1, 2]).lgamma_()


@pytest.mark.parametrize("name, args", [
    ("expit", ()), ("gammaln", ()), ("psi", ()), ("digamma", ()), ("erf", ()), ("erfc", ()),
    ("ndtr", ()), ("log_ndtr", ()), ("entr", ()), ("exp2", ()), ("expm1", ()), ("log1p", ()),
    ("sinc", ()), ("round", ()), ("multigammaln", (2,)), ("softmax", (1,)), ("log_softmax", (0,)),
    ("logsumexp", (1,)), ("polygamma", None),
])
def test_special_namespace(name, args, device):
    x = rand_array((3, 4), 1, 0.6, 2.5)
    if args is None:
        check_op(lambda a: labkit.special.polygamma(1, a), lambda a: torch.special.polygamma(1, a),
                 [x], device=device, rtol=1e-8)
        return
    check_op(lambda a: getattr(labkit.special, name)(a, *args),
             lambda a: getattr(torch.special, name)(a, *args), [x], device=device, rtol=1e-8,
             requires_grad=[name != "round"])


def test_special_binary_and_quantiles(device):
    p = rand_array((5,), 3, 0.05, 0.95)
    check_op(lambda a: labkit.special.ndtri(a), lambda a: torch.special.ndtri(a), [p], device=device, rtol=1e-9)
    check_op(lambda a: labkit.special.logit(a), lambda a: torch.special.logit(a), [p], device=device)
    y = np.array([-1.0, 0.5, 2.0, 3.0])
    # (x = 0 only for xlog1py: labkit's xlogy gives 0, not log(y), as d/dx there)
    for name, x in (("xlogy", np.array([0.5, 1.5, -2.0, 0.1])), ("xlog1py", np.array([0.0, 1.5, -2.0, 0.0]))):
        check_op(lambda a, b: getattr(labkit.special, name)(a, b),
                 lambda a, b: getattr(torch.special, name)(a, b), [x, np.abs(y) + 0.1], device=device)
    e = [-1.0, 0.0, 0.5, 2.0]
    np.testing.assert_array_equal(labkit.special.entr(labkit.tensor(e)).numpy(),
                                  torch.special.entr(torch.tensor(e)).numpy())
    with pytest.raises(AttributeError):        # (torch.special is not in torch_api.txt)
        labkit.special.zeta
