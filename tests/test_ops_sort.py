"""sort, argsort, topk against torch: values, indices, gradients, second derivatives, ties
(stable), nan, edge shapes, int/bool dtypes, errors."""
import numpy as np
import pytest

import labkit
from op_checks import arr, check_second, run

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("shape,dim", [((3, 5), -1), ((3, 5), 0), ((7,), 0), ((), 0), ((0, 3), 0),
                                       ((2, 0), 1), ((1, 1), 0)], ids=str)
@pytest.mark.parametrize("descending", [False, True])
def test_sort(device, shape, dim, descending):
    run(device, lambda M, x: M.sort(x, dim=dim, descending=descending), arr(shape))
    run(device, lambda M, x: tuple(x.sort(dim, descending)), arr(shape))
    run(device, lambda M, x: M.argsort(x, dim=dim, descending=descending), arr(shape),
        requires_grad=[False])
    if 0 not in shape:
        check_second(device, lambda M, x: x.sort(dim, descending).values ** 2, arr(shape, 1))


@pytest.mark.parametrize("descending", [False, True])
def test_sort_ties_are_stable_and_nan_is_largest(descending):
    data = np.array([2.0, 1.0, np.nan, 1.0, 2.0, -np.inf, 1.0])
    v, i = labkit.sort(labkit.tensor(data), descending=descending, stable=True)
    tv, ti = torch.sort(torch.tensor(data), descending=descending, stable=True)
    np.testing.assert_array_equal(v.numpy(), tv.numpy())
    assert i.tolist() == ti.tolist() and i.dtype == labkit.int64


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool", "uint8"])
def test_sort_ints_and_bools(dtype):
    data = np.array([[3, 0, 1, 1], [0, 2, 2, 1]]).astype(dtype)
    for desc in (False, True):
        v, i = labkit.tensor(data).sort(dim=1, descending=desc, stable=True)
        tv, ti = torch.tensor(data).sort(dim=1, descending=desc, stable=True)
        assert str(v.dtype).split(".")[-1] == str(tv.dtype).split(".")[-1]
        assert v.tolist() == tv.tolist() and i.tolist() == ti.tolist()


@pytest.mark.parametrize("k,dim,largest", [(2, -1, True), (1, 0, True), (3, -1, False),
                                           (0, 1, True), (5, 1, False)])
def test_topk(device, k, dim, largest):
    run(device, lambda M, x: M.topk(x, k, dim=dim, largest=largest), arr((3, 5)))
    run(device, lambda M, x: tuple(x.topk(k, dim, largest)), arr((3, 5), 2))
    if k:
        check_second(device, lambda M, x: x.topk(k, dim, largest).values ** 2, arr((3, 5), 3))


def test_topk_gradient_goes_to_the_chosen_elements(device):
    x = labkit.tensor([1.0, 5.0, 3.0, 4.0], device=device, requires_grad=True)
    x.topk(2).values.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0, 1.0]


def test_topk_on_a_0d_tensor():
    run("cpu", lambda M, x: M.topk(x, 1), np.array(2.5))


def test_topk_k_too_large_is_an_error_like_torch():
    with pytest.raises(RuntimeError):
        torch.zeros(3).topk(4)
    with pytest.raises(RuntimeError, match="topk"):
        labkit.zeros(3).topk(4)


def test_sort_bad_dim():
    with pytest.raises(IndexError):
        torch.zeros(3).sort(1)
    with pytest.raises(IndexError, match="sort"):
        labkit.zeros(3).sort(1)


def test_sort_results_are_named():
    out = labkit.tensor([3.0, 1.0]).sort()
    assert out.values.tolist() == [1.0, 3.0] and out.indices.tolist() == [1, 0]
    assert labkit.tensor([3.0, 1.0]).gather(0, out.indices).tolist() == out.values.tolist()
