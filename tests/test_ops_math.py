"""The elementwise math of ops/math.py and ops/inplace_unary.py against torch: values, dtypes,
gradients (random upstream grad), second derivatives, edge shapes, int/bool inputs, errors."""
import numpy as np
import pytest

import labkit
from op_checks import arr, check_second, positive, run

torch = pytest.importorskip("torch")

UNARY = {
    "sinh": (lambda M, x: M.sinh(x), arr),
    "cosh": (lambda M, x: x.cosh(), arr),
    "log1p": (lambda M, x: M.log1p(x), positive),
    "expm1": (lambda M, x: x.expm1(), arr),
    "log2": (lambda M, x: M.log2(x), positive),
    "log10": (lambda M, x: x.log10(), positive),
    "square": (lambda M, x: M.square(x), arr),
    "rsqrt": (lambda M, x: M.rsqrt(x), positive),
    "reciprocal": (lambda M, x: x.reciprocal(), positive),
    "floor": (lambda M, x: M.floor(x), arr),
    "ceil": (lambda M, x: x.ceil(), arr),
    "round": (lambda M, x: M.round(x), arr),
    "round_decimals": (lambda M, x: M.round(x * 10, decimals=1), arr),
    "trunc": (lambda M, x: x.trunc(), arr),
    "frac": (lambda M, x: x.frac(), arr),
}
SHAPES = [(3, 4), (), (1,), (0,), (2, 0, 3)]


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_unary(device, name, shape):
    f, make = UNARY[name]
    run(device, f, make(shape))


@pytest.mark.parametrize("name", ["sinh", "cosh", "log1p", "expm1", "log2", "square", "rsqrt",
                                  "reciprocal", "frac"])
def test_unary_second_derivative(device, name):
    f, make = UNARY[name]
    check_second(device, f, make((2, 3), seed=3))


@pytest.mark.parametrize("name", ["sinh", "log1p", "expm1", "log2", "rsqrt", "reciprocal",
                                  "square", "floor", "ceil", "round", "trunc"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_unary_on_int_and_bool(name, dtype):
    data = np.array([0, 1, 3, 2]).astype(dtype)
    f = UNARY[name][0]
    try:
        want = f(torch, torch.tensor(data))
    except (RuntimeError, NotImplementedError) as e:
        with pytest.raises(type(e)):
            f(labkit, labkit.tensor(data))
        return
    got = f(labkit, labkit.tensor(data))
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_round_half_to_even_and_float32():
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 1.2345], np.float32)
    np.testing.assert_array_equal(labkit.round(labkit.tensor(x)).numpy(),
                                  torch.round(torch.tensor(x)).numpy())
    assert labkit.tensor(x).round().dtype == labkit.float32
    np.testing.assert_allclose(labkit.tensor(x).round(decimals=2).numpy(),
                               torch.tensor(x).round(decimals=2).numpy())


def test_reciprocal_and_rsqrt_of_zero_are_inf_like_torch():
    x = np.array([0.0, -0.0, 4.0])
    for name in ("reciprocal", "rsqrt"):
        np.testing.assert_array_equal(getattr(labkit, name)(labkit.tensor(x)).numpy(),
                                      getattr(torch, name)(torch.tensor(x)).numpy())


@pytest.mark.parametrize("sa,sb", [((3, 4), (3, 4)), ((3, 1), (4,)), ((), (2, 3)), ((0,), (1,))],
                         ids=str)
def test_atan2(device, sa, sb):
    run(device, lambda M, a, b: M.atan2(a, b), arr(sa, 1), arr(sb, 2))
    check_second(device, lambda M, a, b: a.atan2(b), arr((2, 3), 3), arr((2, 3), 4))


def test_atan2_quadrants_and_ints():
    a = np.array([1.0, 1.0, -1.0, -1.0, 0.0, 0.0])
    b = np.array([1.0, -1.0, 1.0, -1.0, -1.0, 1.0])
    np.testing.assert_allclose(labkit.atan2(labkit.tensor(a), labkit.tensor(b)).numpy(),
                               torch.atan2(torch.tensor(a), torch.tensor(b)).numpy())
    got = labkit.atan2(labkit.tensor([1, 2]), labkit.tensor([3, 4]))
    want = torch.atan2(torch.tensor([1, 2]), torch.tensor([3, 4]))
    assert got.dtype == labkit.float32 and str(want.dtype) == "torch.float32"
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


@pytest.mark.parametrize("weight", ["scalar", "tensor", "broadcast"])
def test_lerp(device, weight):
    s, e = arr((3, 4), 1), arr((3, 4), 2)
    if weight == "scalar":
        run(device, lambda M, s, e: M.lerp(s, e, 0.3), s, e)
        check_second(device, lambda M, s, e: M.lerp(s, e, 0.3) ** 2, s, e)
    else:
        w = arr((3, 4) if weight == "tensor" else (4,), 3, 0, 1)
        run(device, lambda M, s, e, w: s.lerp(e, w), s, e, w)
        check_second(device, lambda M, s, e, w: s.lerp(e, w) ** 2, s, e, w)


def test_lerp_dtype_mismatch_is_an_error():
    with pytest.raises(RuntimeError):
        torch.lerp(torch.zeros(2), torch.ones(2, dtype=torch.float64), 0.5)
    with pytest.raises(RuntimeError, match="lerp"):
        labkit.lerp(labkit.zeros(2), labkit.ones(2, dtype=labkit.float64), 0.5)


FLOORDIV = [
    (np.array([-7, 7, -8, 0]), 2), (np.array([-7, 7, 5]), np.array([2, -2, 3])),
    (np.array([-7.5, 7.0, 0.0, -0.0]), -3.0), (np.array([-7.0, 7.5]), np.array([3.0, -2.0])),
    (np.array([5, -5], np.int32), 3), (np.array([5, -5]), 2.5),
]


@pytest.mark.parametrize("a,b", FLOORDIV, ids=range(len(FLOORDIV)))
@pytest.mark.parametrize("op", ["floordiv", "mod", "floor_divide", "remainder", "rfloordiv",
                                "rmod"])
def test_floor_divide_and_remainder_follow_python_signs(a, b, op):
    def f(M, x, y):
        return {"floordiv": lambda: x // y, "mod": lambda: x % y,
                "floor_divide": lambda: M.floor_divide(x, y),
                "remainder": lambda: M.remainder(x, y),
                "rfloordiv": lambda: 7 // x if np.all(a != 0) else x // y,
                "rmod": lambda: -7 % x if np.all(a != 0) else x % y}[op]()
    tb = torch.tensor(b) if isinstance(b, np.ndarray) else b
    lb = labkit.tensor(b) if isinstance(b, np.ndarray) else b
    want, got = f(torch, torch.tensor(a), tb), f(labkit, labkit.tensor(a), lb)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_integer_division_by_zero_is_an_error_like_torch():
    for op in (lambda x: x // 0, lambda x: x % 0):
        with pytest.raises(RuntimeError):
            op(torch.tensor([1, 2]))
        with pytest.raises(RuntimeError, match="division by zero"):
            op(labkit.tensor([1, 2]))
    np.testing.assert_array_equal((labkit.tensor([1.0, -1.0]) // 0).numpy(),
                                  (torch.tensor([1.0, -1.0]) // 0).numpy())


def test_remainder_gradients(device):
    a, b = arr((3, 4), 1, -5, 5), positive((3, 4), 2)
    run(device, lambda M, a, b: a % b, a, b)
    run(device, lambda M, a, b: M.remainder(a, -b), a, b)
    run(device, lambda M, a: a % 1.5, a)


def test_floor_divide_backward_is_an_error_like_torch():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError):
        (x // 2).sum().backward()
    y = labkit.tensor([1.0, 2.0], requires_grad=True)
    out = y // 2
    assert out.requires_grad
    with pytest.raises(RuntimeError, match="floor_divide"):
        out.sum().backward()


def test_floor_divide_on_bools_is_an_error():
    with pytest.raises(RuntimeError, match="bool"):
        labkit.tensor([True]) // labkit.tensor([True])


INPLACE = ["exp_", "log_", "sqrt_", "sin_", "cos_", "tanh_", "sigmoid_", "abs_", "sign_",
           "sinh_", "cosh_", "log1p_", "expm1_", "log2_", "square_", "rsqrt_", "reciprocal_",
           "floor_", "ceil_", "trunc_", "round_"]


@pytest.mark.parametrize("name", INPLACE)
def test_inplace_unary_values_version_and_result(device, name):
    data = positive((2, 3), 5)
    x = labkit.tensor(data, device=device)
    v = x._version
    out = getattr(x, name)()
    assert out is x and x._version == v + 1
    np.testing.assert_allclose(x.cpu().numpy(), getattr(torch.tensor(data), name)().numpy(),
                               rtol=1e-12)


@pytest.mark.parametrize("name", ["exp_", "sigmoid_", "tanh_", "sqrt_", "abs_", "square_",
                                  "reciprocal_", "floor_"])
def test_inplace_unary_records_the_graph_like_torch(device, name):
    """On a non-leaf (and on a view of one) the in-place op is differentiated as torch does."""
    def f(M, a):
        y = a * 1.5
        getattr(y, name)()
        z = a * 2.0
        getattr(z[1:], name)()
        return y * z
    run(device, f, positive((3, 4), 6))
    check_second(device, f, positive((3, 4), 7))


def test_inplace_unary_on_a_leaf_that_requires_grad_is_an_error():
    x = labkit.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        x.exp_()
    with labkit.no_grad():
        x.exp_()
    np.testing.assert_allclose(x.detach().numpy(), np.e, rtol=1e-6)


def test_inplace_unary_refuses_a_float_result_in_an_int_tensor():
    with pytest.raises(RuntimeError):
        torch.tensor([1, 2]).exp_()
    with pytest.raises(RuntimeError, match="exp_"):
        labkit.tensor([1, 2]).exp_()
    x = labkit.tensor([-1, 2])
    x.abs_()
    assert x.tolist() == [1, 2] and x.dtype == labkit.int64


def test_saved_tensor_changed_by_an_inplace_unary_is_detected():
    a = labkit.ones(3, requires_grad=True)
    y = a * 2
    z = y * y
    y.exp_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_inplace_floordiv_and_mod():
    for op in ("__ifloordiv__", "__imod__"):
        x, t = labkit.tensor([-7, 7]), torch.tensor([-7, 7])
        getattr(x, op)(3)
        getattr(t, op)(3)
        assert x.tolist() == t.tolist()
    x = labkit.tensor([5.0, -5.0])
    x //= 2
    x %= 2
    assert x.tolist() == ((torch.tensor([5.0, -5.0]) // 2) % 2).tolist()


DTYPES = ["uint8", "int8", "int32", "int64", "float16", "float32", "float64"]


@pytest.mark.parametrize("op", ["floor_divide", "remainder", "atan2"])
@pytest.mark.parametrize("da", DTYPES)
@pytest.mark.parametrize("db", DTYPES + ["int", "float", "0d_float64", "0d_int64"])
def test_result_dtypes_follow_torch_promotion(op, da, db):
    a = np.array([7, 9, 100]).astype(da)

    def other(M):
        if db == "int":
            return 3
        if db == "float":
            return 2.5
        if db.startswith("0d"):
            return M.tensor(np.array(3, db[3:]))
        return M.tensor(np.array([2, 3, 5]).astype(db))
    if op == "atan2" and db in ("int", "float"):
        for M in (torch, labkit):
            with pytest.raises(TypeError):
                M.atan2(M.tensor(a), other(M))
        return
    want = getattr(torch, op)(torch.tensor(a), other(torch))
    got = getattr(labkit, op)(labkit.tensor(a), other(labkit))
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_allclose(got.numpy().astype(np.float64), want.numpy().astype(np.float64),
                               rtol=2e-3)


def test_inplace_pow(device):
    def f(M, a, b):
        y = a * 1.0
        y.pow_(2)
        z = a * 1.0
        z **= b
        return y + z
    run(device, f, positive((2, 3), 1), arr((2, 3), 2))
    x = labkit.tensor([2, 3])
    x.pow_(2)
    assert x.tolist() == [4, 9] and x.dtype == labkit.int64
    with pytest.raises(RuntimeError):
        labkit.tensor([2, 3]).pow_(0.5)
