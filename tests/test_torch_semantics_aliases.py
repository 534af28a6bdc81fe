"""torch's other names and small Tensor methods (aliases.py, hyperbolic.py, products_vec.py,
labkit/_torch_functions.py) against torch: values, dtypes, gradients with a random upstream
grad, second derivatives, in-place forms, 0-d / size-0 edges and torch's errors."""
import warnings

import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")
SHAPES = [(3, 4), (), (0, 2), (1, 1)]


def _raises_like(call):
    """call(lib) raises the same exception type on torch and on labkit."""
    with pytest.raises(Exception) as t:
        call(torch)
    with pytest.raises(type(t.value)):
        call(labkit)


@pytest.mark.parametrize("name", ["absolute", "negative", "positive", "fix", "ravel", "asinh",
                                  "arcsinh", "acosh", "arccosh", "atanh", "arctanh"])
@pytest.mark.parametrize("shape", SHAPES)
def test_unary_functions_and_methods(name, shape, device):
    lo, hi = {"acosh": (1.2, 3), "arccosh": (1.2, 3), "atanh": (-0.9, 0.9),
              "arctanh": (-0.9, 0.9)}.get(name, (-3, 3))
    x = rand_array(shape, 1, lo, hi, away_from=[0.0])
    check_op(lambda a: getattr(labkit, name)(a), lambda a: getattr(torch, name)(a), [x],
             device=device)
    check_op(lambda a: getattr(a, name)(), lambda a: getattr(a, name)(), [x], device=device)


@pytest.mark.parametrize("name", ["asinh", "acosh", "atanh"])
def test_inverse_hyperbolic_second_derivative_and_ints(name):
    x = rand_array((5,), 2, 1.1, 1.9) if name == "acosh" else rand_array((5,), 2, -0.8, 0.8)
    out = []
    for lib in (labkit, torch):
        a = lib.tensor(x, requires_grad=True)
        (g,) = lib.autograd.grad(getattr(lib, name)(a).sum(), a, create_graph=True)
        (h,) = lib.autograd.grad((g * g).sum(), a)
        out.append((g.detach().numpy(), h.numpy()))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-10)
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-10)
    ints = [-2, 0, 1, 3]
    mine, ref = getattr(labkit, name)(labkit.tensor(ints)), getattr(torch, name)(torch.tensor(ints))
    assert mine.dtype == labkit.float32 and ref.dtype == torch.float32
    np.testing.assert_array_equal(mine.numpy(), ref.numpy())   # nan and inf where torch has them


@pytest.mark.parametrize("name", ["multiply", "subtract", "greater", "greater_equal", "less",
                                  "less_equal", "not_equal"])
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((), (2,)), ((0, 2), (2,))])
def test_binary_aliases(name, shapes, device):
    a, b = rand_array(shapes[0], 1), rand_array(shapes[1], 2)
    check_op(lambda x, y: getattr(labkit, name)(x, y), lambda x, y: getattr(torch, name)(x, y),
             [a, b], device=device)
    assert getattr(labkit.Tensor, name) is getattr(labkit.Tensor, {
        "multiply": "mul", "subtract": "sub", "greater": "gt", "greater_equal": "ge",
        "less": "lt", "less_equal": "le", "not_equal": "ne"}[name])


def test_rsub_and_fill():
    check_op(lambda a, b: labkit.rsub(a, b, alpha=2), lambda a, b: torch.rsub(a, b, alpha=2),
             [rand_array((2, 3), 1), rand_array((3,), 2)])
    check_op(lambda a: labkit.fill(a, 2.5), lambda a: torch.fill(a, 2.5), [rand_array((2, 3), 1)])


@pytest.mark.parametrize("name, args", [
    ("gt_", (0.1,)), ("eq_", (0.0,)), ("logical_not_", ()), ("exp2_", ()), ("erf_", ()),
    ("log10_", ()), ("sinc_", ()), ("deg2rad_", ()), ("rad2deg_", ()), ("frac_", ()),
    ("logit_", ()), ("sgn_", ()), ("cumsum_", (1,)), ("cumprod_", (0,)), ("hypot_", (2.0,)),
    ("copysign_", (-1.0,)), ("fmod_", (0.7,)), ("xlogy_", (2.0,)), ("clamp_min_", (0.2,)),
    ("clamp_max_", (0.2,)), ("absolute_", ()), ("negative_", ()), ("fix_", ()),
    ("multiply_", (3.0,)), ("subtract_", (1.0,)), ("greater_", (0.3,)), ("less_equal_", (0.3,)),
    ("asinh_", ()), ("atanh_", ()), ("logical_and_", (0.5,)), ("logical_xor_", (0.0,)),
])
def test_inplace_forms(name, args):
    x = rand_array((3, 4), 3, 0.05, 0.95)
    lk, t = labkit.tensor(x), torch.tensor(x)
    tensors = ("hypot_", "copysign_", "xlogy_", "logical_and_", "logical_xor_")
    args_t = tuple(torch.tensor(a, dtype=torch.float64) if name in tensors else a for a in args)
    args_l = tuple(labkit.tensor(a, dtype=labkit.float64) if name in tensors else a for a in args)
    assert getattr(lk, name)(*args_l) is lk
    getattr(t, name)(*args_t)
    np.testing.assert_allclose(lk.numpy(), t.numpy(), rtol=1e-12)
    # the gradient flows through the in-place op applied to a non-leaf
    # (torch has no derivative for asinh_ / atanh_; labkit's is asinh's / atanh's)
    if name not in ("gt_", "eq_", "logical_not_", "greater_", "less_equal_", "sgn_", "fix_",
                    "frac_", "asinh_", "atanh_", "logical_and_", "logical_xor_"):
        grads = []
        for lib, a in ((labkit, args_l), (torch, args_t)):
            leaf = lib.tensor(x, requires_grad=True)
            y = leaf * 1
            getattr(y, name)(*a)
            (g,) = lib.autograd.grad((y * y).sum(), leaf)
            grads.append(g.numpy())
        np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10)


def test_inplace_errors_like_torch():
    _raises_like(lambda lib: lib.arange(3).exp2_())
    _raises_like(lambda lib: lib.ones(3).hypot_(lib.ones(2, 3)))
    _raises_like(lambda lib: lib.ones(3, dtype=lib.float32).float_power_(2))
    _raises_like(lambda lib: lib.ones(3, requires_grad=True).exp2_())
    x, y = labkit.ones(3, dtype=labkit.float64), torch.ones(3, dtype=torch.float64)
    np.testing.assert_array_equal(x.float_power_(3).numpy(), y.float_power_(3).numpy())


@pytest.mark.parametrize("dim, index", [(0, 1), (1, -1), (-1, 0), (2, 2)])
def test_select(dim, index, device):
    check_op(lambda a: a.select(dim, index), lambda a: a.select(dim, index),
             [rand_array((2, 3, 4), 1)], device=device)
    check_op(lambda a: labkit.select(a, dim, index), lambda a: torch.select(a, dim, index),
             [rand_array((2, 3, 4), 1)], device=device)


def test_select_errors():
    _raises_like(lambda lib: lib.zeros(2, 3).select(0, 5))
    _raises_like(lambda lib: lib.zeros(2, 3).select(3, 0))
    _raises_like(lambda lib: lib.tensor(1.0).select(0, 0))


def test_take_put(device):
    idx = np.array([[0, 5, -1], [2, 2, 7]])
    check_op(lambda a, i: a.take(i), lambda a, i: a.take(i), [rand_array((2, 4), 1), idx],
             device=device)
    check_op(lambda a, i: labkit.take(a, i), lambda a, i: torch.take(a, i),
             [rand_array((2, 4), 1), np.zeros((0,), np.int64)], device=device)
    for acc in (False, True):
        check_op(lambda a, i, s: a.put(i, s, accumulate=acc),
                 lambda a, i, s: a.put(i, s, accumulate=acc),
                 [rand_array((2, 4), 1), np.array([[0, 3], [3, 7]]), rand_array((2, 2), 2)],
                 device=device, requires_grad=[True, False, True])
    for lib in (labkit, torch):
        x = lib.zeros(2, 3)
        assert x.put_(lib.tensor([1, 1, 4]), lib.tensor([1.0, 2.0, 3.0]), accumulate=True) is x
        assert x.tolist() == [[0.0, 3.0, 0.0], [0.0, 3.0, 0.0]]
    _raises_like(lambda lib: lib.zeros(2, 3).take(lib.tensor([6])))
    _raises_like(lambda lib: lib.zeros(2, 3).take(lib.tensor([0.0])))
    _raises_like(lambda lib: lib.zeros(2, 3).put_(lib.tensor([9]), lib.tensor([1.0])))
    _raises_like(lambda lib: lib.zeros(2, 3).put_(lib.tensor([1, 2]), lib.tensor([1.0])))


def test_new_legacy_constructor():
    for lib in (labkit, torch):
        x = lib.ones(2, dtype=lib.float64)
        assert tuple(x.new().shape) == (0,) and x.new().dtype == lib.float64
        assert tuple(x.new(2, 3).shape) == (2, 3) and x.new(2, 3).dtype == lib.float64
        assert tuple(x.new(lib.Size([4])).shape) == (4,)
        assert x.new([1, 2]).tolist() == [1.0, 2.0] and x.new((2, 3)).tolist() == [2.0, 3.0]
        assert x.new([1, 2]).dtype == lib.float64


def test_detach_inplace():
    for lib in (labkit, torch):
        a = lib.ones(3, requires_grad=True)
        b = a * 2
        assert b.detach_() is b
        assert b.grad_fn is None and not b.requires_grad and b.is_leaf
    _raises_like(lambda lib: (lib.ones(3, requires_grad=True) * 2)[1:].detach_())


def test_predicates_and_casts():
    for lib in (labkit, torch):
        assert lib.tensor([1.5]).is_nonzero() and not lib.tensor([0]).is_nonzero()
        assert lib.zeros(2, 3).is_same_size(lib.ones(2, 3))
        assert not lib.zeros(2, 3).is_same_size(lib.ones(3, 2))
        assert [lib.zeros(1, dtype=d).is_signed() for d in (lib.uint8, lib.int8, lib.float32, lib.bool)] == \
            [False, True, True, False]
        t = lib.ones(2)
        assert not t.is_complex() and not t.is_conj() and not t.is_neg() and t.is_cpu
        assert t.get_device() == -1 and t.ndimension() == 1
        assert t.short().dtype == lib.int16 and t.char().dtype == lib.int8
    _raises_like(lambda lib: lib.zeros(2).is_nonzero())
    _raises_like(lambda lib: lib.zeros(0).is_nonzero())
    _raises_like(lambda lib: lib.tensor(True).positive())


@pytest.mark.parametrize("fn", [
    lambda L, m, v: L.mv(m, v),
    lambda L, m, v: m.mv(v),
    lambda L, m, v: L.addmv(v[:2] * 0 + 1, m, v, beta=0.5, alpha=2),
    lambda L, m, v: L.addr(m, v[:2], v, alpha=-1),
    lambda L, m, v: L.inner(m, v),
    lambda L, m, v: L.inner(m, m),
    lambda L, m, v: L.vdot(v, v),
    lambda L, m, v: L.ger(v, v[:2]),
    lambda L, m, v: L.matrix_power(m[:, :2], 3),
    lambda L, m, v: L.matrix_power(m[:, :2], -2),
    lambda L, m, v: L.matrix_power(m[:, :2], 0),
    lambda L, m, v: L.cross(m, m.flip(0), dim=1),
    lambda L, m, v: L.addbmm(m, m.unsqueeze(0).expand(4, 2, 3) * 1, v.reshape(3, 1).expand(4, 3, 3) * 1),
])
def test_products(fn, device):
    check_op(lambda m, v: fn(labkit, m, v), lambda m, v: fn(torch, m, v),
             [rand_array((2, 3), 1), rand_array((3,), 2)], device=device)


def test_products_second_derivative():
    m0, v0 = rand_array((3, 3), 1), rand_array((3,), 2)
    res = []
    for lib in (labkit, torch):
        m, v = lib.tensor(m0, requires_grad=True), lib.tensor(v0, requires_grad=True)
        y = lib.matrix_power(m, 2).mv(v).sum() + lib.cross(m, m.t(), dim=0).pow(2).sum()
        gm, gv = lib.autograd.grad(y, (m, v), create_graph=True)
        (h,) = lib.autograd.grad((gm * gm).sum() + gv.sum(), m)
        res.append((gm.detach().numpy(), gv.detach().numpy(), h.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def test_cross_default_dim_and_broadcast():
    with pytest.warns(UserWarning, match="without specifying the dim"):
        check_op(lambda a, b: labkit.cross(a, b), lambda a, b: torch.cross(a, b),
                 [rand_array((3, 2), 1), rand_array((3, 2), 2)])
    check_op(lambda a, b: labkit.cross(a, b, dim=1), lambda a, b: torch.cross(a, b, dim=1),
             [rand_array((4, 3, 2), 1), rand_array((1, 3, 1), 2)])


def test_chain_matmul_warns():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_op(lambda a, b, c: labkit.chain_matmul(a, b, c),
                 lambda a, b, c: torch.chain_matmul(a, b, c),
                 [rand_array((2, 3), 1), rand_array((3, 4), 2), rand_array((4, 1), 3)])
    with pytest.warns(UserWarning, match="chain_matmul is deprecated"):
        labkit.chain_matmul(labkit.ones(2, 2))


def test_product_errors_like_torch():
    _raises_like(lambda lib: lib.mv(lib.ones(2, 3), lib.ones(2)))
    _raises_like(lambda lib: lib.mv(lib.ones(2, 3), lib.ones(3, 1)))
    _raises_like(lambda lib: lib.mv(lib.ones(2, 3, dtype=lib.float64), lib.ones(3)))
    _raises_like(lambda lib: lib.addr(lib.ones(2, 3), lib.ones(2, 1), lib.ones(3)))
    _raises_like(lambda lib: lib.addbmm(lib.ones(2, 4), lib.ones(3, 2, 5), lib.ones(2, 5, 4)))
    _raises_like(lambda lib: lib.matrix_power(lib.ones(2, 3), 2))
    _raises_like(lambda lib: lib.cross(lib.ones(2, 3), lib.ones(2, 4), dim=1))
    _raises_like(lambda lib: lib.cross(lib.ones(2, 3), lib.ones(2, 3), dim=0))
    _raises_like(lambda lib: lib.inner(lib.ones(2, 3), lib.ones(2, 2)))
    _raises_like(lambda lib: lib.vdot(lib.ones(2, 1), lib.ones(2, 1)))
