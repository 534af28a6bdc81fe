"""gather, scatter, scatter_add, index_select (and the in-place scatter_ / scatter_add_)
against torch: values, gradients to every input, second derivatives, repeated indices, index
smaller than input, edge shapes, errors."""
import numpy as np
import pytest

import labkit
from op_checks import arr, check_second, run

torch = pytest.importorskip("torch")


def idx(shape, high, seed=0):
    return np.random.default_rng(seed).integers(0, high, size=shape)


GATHER = [((3, 4), 0, (2, 4)), ((3, 4), 1, (3, 6)), ((3, 4), 1, (2, 2)), ((2, 3, 4), -1, (2, 3, 5)),
          ((5,), 0, (7,)), ((3, 4), 0, (0, 4)), ((), 0, ())]


@pytest.mark.parametrize("shape,dim,ishape", GATHER, ids=str)
def test_gather(device, shape, dim, ishape):
    n = shape[dim] if shape else 1
    i = idx(ishape, n)
    run(device, lambda M, x, i: M.gather(x, dim, i), arr(shape), i)
    run(device, lambda M, x, i: x.gather(dim, i), arr(shape), i)
    check_second(device, lambda M, x, i: x.gather(dim, i) ** 2, arr(shape, 3), i)


@pytest.mark.parametrize("shape,dim,ishape", GATHER[:5], ids=str)
def test_scatter_add(device, shape, dim, ishape):
    i = idx(ishape, shape[dim])
    run(device, lambda M, x, i, s: M.scatter_add(x, dim, i, s), arr(shape), i, arr(ishape, 1))
    check_second(device, lambda M, x, i, s: (x.scatter_add(dim, i, s) ** 2), arr(shape), i,
                 arr(ishape, 1))


@pytest.mark.parametrize("op", ["scatter", "scatter_add"])
def test_src_larger_than_index(device, op):
    """Only src's leading block takes part. torch computes the values but its backward fails
    on such a src ("invalid gradient"); labkit's gradient is the gathered grad in that block
    and zero elsewhere."""
    x, src = arr((3, 4)), arr((4, 5), 1)
    i = np.array([[0, 1], [2, 0]])
    run(device, lambda M, x, i, s: getattr(x, op)(1, i, s), x, i, src, requires_grad=[False] * 3)
    s = labkit.tensor(src, device=device, requires_grad=True)
    out = getattr(labkit.tensor(x, device=device), op)(1, labkit.tensor(i, device=device), s)
    g = np.random.default_rng(0).standard_normal((3, 4))
    (gs,) = labkit.autograd.grad(out, [s], labkit.tensor(g, device=device))
    want = np.zeros((4, 5))
    want[:2, :2] = np.take_along_axis(g[:2], i, axis=1)
    np.testing.assert_allclose(gs.cpu().numpy(), want)


def test_scatter_with_unique_indices(device):
    x, src = arr((3, 5)), arr((2, 5), 1)
    i = np.array([[0, 1, 2, 0, 1], [2, 0, 1, 1, 0]])
    run(device, lambda M, x, i, s: M.scatter(x, 0, i, s), x, i, src)
    run(device, lambda M, x, i: x.scatter(0, i, 2.5), x, i)
    run(device, lambda M, x, i: x.scatter(1, i[:, :2], value=-1.0), x, i)
    check_second(device, lambda M, x, i, s: x.scatter(0, i, s) ** 2, x, i, src)


def test_inplace_scatter_forms(device):
    i = np.array([[0, 1, 1]])
    for name, args in (("scatter_", (0, i, 5.0)), ("scatter_add_", (0, i, None))):
        data = arr((2, 3))
        src = arr((1, 3), 2)
        x, t = labkit.tensor(data, device=device), torch.tensor(data)
        lk_args = [labkit.tensor(a, device=device) if isinstance(a, np.ndarray) else a
                   for a in args]
        t_args = [torch.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        if args[2] is None:
            lk_args[2], t_args[2] = labkit.tensor(src, device=device), torch.tensor(src)
        v = x._version
        assert getattr(x, name)(*lk_args) is x and x._version == v + 1
        getattr(t, name)(*t_args)
        np.testing.assert_allclose(x.cpu().numpy(), t.numpy())


def test_inplace_scatter_add_records_the_graph(device):
    def f(M, a, s):
        y = a * 2
        y.scatter_add_(0, M.tensor([[0, 1, 1]]) if M is torch else
                       labkit.tensor([[0, 1, 1]], device=a.device), s)
        return y
    run(device, f, arr((2, 3)), arr((1, 3), 1))


@pytest.mark.parametrize("shape,dim,index", [((4, 3), 0, [2, 0, 2]), ((4, 3), 1, [1]),
                                             ((4, 3), -1, []), ((5,), 0, [4, 4, 0]),
                                             ((2, 3, 4), 2, [3, 0])], ids=str)
def test_index_select(device, shape, dim, index):
    i = np.array(index, dtype=np.int64)
    run(device, lambda M, x, i: M.index_select(x, dim, i), arr(shape), i)
    run(device, lambda M, x, i: x.index_select(dim, i), arr(shape), i)
    check_second(device, lambda M, x, i: x.index_select(dim, i) ** 2, arr(shape, 2), i)


def test_index_select_with_a_0d_index():
    run("cpu", lambda M, x, i: x.index_select(0, i), arr((3, 2)), np.array(1))


@pytest.mark.parametrize("call", [
    lambda M, x: x.gather(0, M.tensor([[3, 0, 0, 0]])),             # out of range
    lambda M, x: x.gather(0, M.tensor([0, 1])),                      # wrong number of dims
    lambda M, x: x.gather(0, M.tensor([[0.0, 1.0, 0.0, 0.0]])),      # float index
    lambda M, x: x.scatter_add(0, M.tensor([[3, 0, 0, 0]]), x),      # out of range
    lambda M, x: x.scatter(0, M.tensor([[0, 0, 0, 0]]), x.double()),  # src dtype
])
def test_gather_scatter_errors_like_torch(call):
    with pytest.raises(RuntimeError):
        call(torch, torch.zeros(3, 4))
    with pytest.raises(RuntimeError, match="gather|scatter"):
        call(labkit, labkit.zeros(3, 4))


def test_index_select_errors_like_torch():
    for bad in ([3], [-1]):
        with pytest.raises(IndexError):
            torch.zeros(3, 2).index_select(0, torch.tensor(bad))
        with pytest.raises(IndexError, match="index_select"):
            labkit.zeros(3, 2).index_select(0, labkit.tensor(bad))
    with pytest.raises(IndexError, match="index_select"):
        labkit.zeros(3, 2).index_select(0, labkit.tensor([[0]]))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_fill_and_index_copy(device, dim):
    i = np.array([2, 0])

    def fill(M, x, i):
        y = x * 1.0
        y.index_fill_(dim, i, -1.5)
        return y * x.index_fill(dim, i, 2.0)

    def copy(M, x, i, s):
        y = x * 1.0
        y.index_copy_(dim, i, s)
        return y * x.index_copy(dim, i, s * 2)
    run(device, fill, arr((3, 3)), i)
    s = arr((2, 3) if dim == 0 else (3, 2), 4)
    run(device, copy, arr((3, 3)), i, s)
    check_second(device, copy, arr((3, 3)), i, s)


def test_index_fill_errors_like_torch():
    for M in (torch, labkit):
        with pytest.raises(IndexError):
            M.zeros(3).index_fill_(0, M.tensor([3]), 1.0)
