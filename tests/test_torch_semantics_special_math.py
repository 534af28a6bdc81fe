"""exp2, hypot, fmod, copysign, logit, xlogy, deg2rad/rad2deg, sinc, float_power, fmax/fmin,
heaviside, signbit, sgn, cummax/cummin, logcumsumexp against torch: values, dtypes, gradients,
integer inputs, nan/inf and 0-d/size-0 edges."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")
SHAPES = [(3, 4), (), (0, 2)]


def both(name, *arrays, **kw):
    check_op(lambda *a: getattr(labkit, name)(*a, **kw), lambda *a: getattr(torch, name)(*a, **kw),
             list(arrays))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", ["exp2", "deg2rad", "rad2deg", "sinc", "sgn"])
def test_unary(name, shape, device):
    # sgn's gradient is a ZeroTensor in torch (not comparable): values only there
    check_op(lambda a: getattr(labkit, name)(a), lambda a: getattr(torch, name)(a),
             [rand_array(shape, 1, -3, 3, away_from=[0.0] if name == "sgn" else None)], device=device,
             requires_grad=[name != "sgn"])


@pytest.mark.parametrize("eps", [None, 0.1])
def test_logit(eps):
    check_op(lambda a: labkit.logit(a, eps), lambda a: torch.logit(a, eps),
             [rand_array((3, 4), 1, -0.2, 1.2, away_from=[0.0, 0.1, 0.9, 1.0])])


@pytest.mark.parametrize("name", ["hypot", "fmod", "copysign", "xlogy", "fmax", "fmin", "float_power"])
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((), (2,))])
def test_binary(name, shapes):
    a = rand_array(shapes[0], 1, -3, 3, away_from=[0.0])
    b = rand_array(shapes[1], 2, 0.5 if name in ("xlogy", "float_power") else -3, 3, away_from=[0.0])
    if name == "float_power":
        a = np.abs(a)
    both(name, a, b)


def test_special_values_like_torch():
    nan, inf = float("nan"), float("inf")
    a = [0.0, -0.0, 1.5, -2.5, nan, inf, -inf, 7.0]
    b = [2.0, -3.0, -0.0, nan, 1.0, 2.0, 0.0, -2.0]
    for name in ("hypot", "fmod", "copysign", "xlogy", "fmax", "fmin", "heaviside", "float_power"):
        mine = getattr(labkit, name)(labkit.tensor(a), labkit.tensor(b)).numpy()
        theirs = getattr(torch, name)(torch.tensor(a), torch.tensor(b)).numpy()
        np.testing.assert_array_equal(mine, theirs, err_msg=name)
    for name in ("signbit", "exp2", "sinc", "sgn"):
        np.testing.assert_array_equal(getattr(labkit, name)(labkit.tensor(a)).numpy(),
                                      getattr(torch, name)(torch.tensor(a)).numpy(), err_msg=name)
    for x, y in [([-7, 7, 5], [3, -3, 2]), ([-7, 7], 3)]:
        tx = torch.tensor(x)
        ty = torch.tensor(y) if isinstance(y, list) else y
        mx = labkit.tensor(x)
        my = labkit.tensor(y) if isinstance(y, list) else y
        assert labkit.fmod(mx, my).tolist() == torch.fmod(tx, ty).tolist()
        assert labkit.fmod(mx, my).dtype == labkit.int64
    assert labkit.fmod(labkit.tensor([5.0]), 2).tolist() == [1.0]
    assert labkit.exp2(labkit.tensor([3])).dtype == labkit.float32
    assert labkit.float_power(labkit.tensor([2]), 2).dtype == labkit.float64
    for lib in (torch, labkit):
        with pytest.raises(RuntimeError):
            lib.fmod(lib.tensor([1, 2]), lib.tensor([0, 1]))
        with pytest.raises(RuntimeError):
            lib.heaviside(lib.tensor([1.0]), lib.tensor([1.0], dtype=lib.float64))


@pytest.mark.parametrize("name", ["cummax", "cummin"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cummax_cummin(name, dim):
    check_op(lambda a: tuple(getattr(labkit, name)(a, dim)), lambda a: tuple(getattr(torch, name)(a, dim)),
             [rand_array((4, 5))])
    x = [[1.0, 3.0, 3.0, 2.0, float("nan"), 5.0], [2.0, 2.0, 1.0, 2.0, 0.0, 2.0]]
    mine, theirs = getattr(labkit, name)(labkit.tensor(x), 1), getattr(torch, name)(torch.tensor(x), 1)
    np.testing.assert_array_equal(mine.values.numpy(), theirs.values.numpy())
    assert mine.indices.tolist() == theirs.indices.tolist()
    ints = getattr(labkit, name)(labkit.tensor([3, 1, 3, 5]), 0)
    assert ints.indices.tolist() == getattr(torch, name)(torch.tensor([3, 1, 3, 5]), 0).indices.tolist()


@pytest.mark.parametrize("dim", [0, 1])
def test_logcumsumexp(dim):
    check_op(lambda a: labkit.logcumsumexp(a, dim), lambda a: torch.logcumsumexp(a, dim),
             [rand_array((4, 5), 1, -30, 30)], rtol=1e-6)
    inf = float("inf")
    x = [[-inf, -inf, 0.0], [100.0, -inf, 100.0]]
    np.testing.assert_allclose(labkit.logcumsumexp(labkit.tensor(x), 1).numpy(),
                               torch.logcumsumexp(torch.tensor(x), 1).numpy(), rtol=1e-6)
