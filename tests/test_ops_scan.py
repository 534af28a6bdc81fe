"""cumsum and prod against torch: values, int dtypes, gradients (with zeros for prod), second
derivatives, edge shapes, errors."""
import numpy as np
import pytest

import labkit
from op_checks import arr, check_second, run

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("shape,dim", [((3, 4), 0), ((3, 4), 1), ((3, 4), -1), ((5,), 0),
                                       ((), 0), ((0, 3), 0), ((2, 0), 1), ((1, 1), 1)], ids=str)
def test_cumsum(device, shape, dim):
    run(device, lambda M, x: M.cumsum(x, dim), arr(shape))
    run(device, lambda M, x: x.cumsum(dim=dim), arr(shape))
    if 0 not in shape:
        check_second(device, lambda M, x: x.cumsum(dim) ** 2, arr(shape, 2))


@pytest.mark.parametrize("dtype", ["int32", "int64", "bool", "uint8"])
def test_cumsum_and_prod_of_ints_give_int64(dtype):
    data = np.array([[1, 0, 1], [1, 1, 0]]).astype(dtype)
    for f in (lambda M, x: M.cumsum(x, 1), lambda M, x: x.prod(), lambda M, x: M.prod(x, 0)):
        want, got = f(torch, torch.tensor(data)), f(labkit, labkit.tensor(data))
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_cumsum_dtype_argument():
    got = labkit.tensor([1, 2, 3]).cumsum(0, dtype=labkit.float64)
    assert got.dtype == labkit.float64 and got.tolist() == [1.0, 3.0, 6.0]


def test_cumsum_bad_dim():
    with pytest.raises(IndexError):
        torch.zeros(2, 3).cumsum(2)
    with pytest.raises(IndexError, match="cumsum"):
        labkit.zeros(2, 3).cumsum(2)


def _with_zeros(shape, where, seed=0):
    signs = np.where(np.random.default_rng(seed).random(shape) < 0.5, 1, -1)
    a = arr(shape, seed, 0.5, 1.5) * signs
    for idx in where:
        a[idx] = 0.0
    return a


PROD_CASES = {
    "no_zero": [],
    "one_zero": [(0, 1)],
    "two_zeros_one_row": [(0, 1), (0, 3)],
    "three_zeros": [(0, 0), (0, 1), (0, 3)],
    "zeros_in_two_rows": [(0, 2), (1, 2)],
}


@pytest.mark.parametrize("case", sorted(PROD_CASES))
@pytest.mark.parametrize("dim", [None, 0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_prod_gradients_with_zeros(device, case, dim, keepdim):
    x = _with_zeros((3, 4), PROD_CASES[case])
    if dim is None:
        f = lambda M, x: x.prod()  # noqa: E731
    else:
        f = lambda M, x: M.prod(x, dim, keepdim=keepdim)  # noqa: E731
    run(device, f, x)
    check_second(device, f, x)


@pytest.mark.parametrize("shape", [(), (1,), (0,), (3, 0), (1, 1)], ids=str)
def test_prod_edge_shapes(device, shape):
    run(device, lambda M, x: x.prod(), arr(shape, 4))
    if len(shape):
        run(device, lambda M, x: x.prod(0), arr(shape, 4))


def test_prod_of_a_0d_tensor_along_dim_0():
    run("cpu", lambda M, x: x.prod(0), np.array(3.0))
    run("cpu", lambda M, x: x.prod(-1, keepdim=True), np.array(0.0))


def test_prod_rejects_a_tuple_of_dims_like_torch():
    with pytest.raises(TypeError):
        torch.ones(2, 3).prod((0, 1))
    with pytest.raises(TypeError, match="prod"):
        labkit.ones(2, 3).prod((0, 1))


CUMPROD_ZEROS = {"none": [], "one": [(0, 1)], "two": [(0, 1), (0, 3)], "rows": [(0, 0), (2, 3)]}


@pytest.mark.parametrize("case", sorted(CUMPROD_ZEROS))
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumprod_with_zeros(device, case, dim):
    x = _with_zeros((3, 4), CUMPROD_ZEROS[case], seed=5)
    run(device, lambda M, x: M.cumprod(x, dim), x)
    run(device, lambda M, x: x.cumprod(dim=dim), x)
    check_second(device, lambda M, x: x.cumprod(dim), x)


@pytest.mark.parametrize("shape", [(), (1,), (0,), (0, 2)], ids=str)
def test_cumprod_edges(device, shape):
    run(device, lambda M, x: x.cumprod(0), arr(shape, 6))


def test_cumprod_of_ints_and_dtype():
    for dtype in ("int32", "bool", "uint8"):
        data = np.array([1, 2, 0, 3]).astype(dtype)
        got, want = labkit.tensor(data).cumprod(0), torch.tensor(data).cumprod(0)
        assert got.tolist() == want.tolist() and got.dtype == labkit.int64
    assert labkit.tensor([1, 2]).cumprod(0, dtype=labkit.float64).dtype == labkit.float64
