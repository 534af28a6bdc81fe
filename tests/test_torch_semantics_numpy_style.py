"""The numpy-style helpers torch also has, against torch: hstack/vstack/dstack/column_stack,
atleast_*d, tensor_split, searchsorted/bucketize/isin, kron/tensordot/cartesian_prod,
nan_to_num, logaddexp(2), diff, rot90 -- values, dtypes, gradients, 0-d and size-0 edges, errors."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")


def both(f, *arrays):
    return check_op(lambda *a: f(labkit, *a), lambda *a: f(torch, *a), list(arrays))


@pytest.mark.parametrize("name", ["hstack", "vstack", "row_stack", "dstack", "column_stack"])
@pytest.mark.parametrize("shapes", [[(3,), (3,)], [(2, 3), (2, 3)], [(), ()], [(2, 3, 4), (2, 3, 4)],
                                    [(0,), (0,)]])
def test_stacking(name, shapes):
    if name == "column_stack" and len(shapes[0]) > 2:
        return
    both(lambda lib, a, b: getattr(lib, name)([a, b]), rand_array(shapes[0], 1), rand_array(shapes[1], 2))


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("shape", [(), (4,), (2, 3), (1, 2, 3, 4)])
def test_atleast(n, shape):
    both(lambda lib, a: getattr(lib, f"atleast_{n}d")(a), rand_array(shape))
    mine = getattr(labkit, f"atleast_{n}d")(labkit.ones(shape), labkit.ones(3))
    theirs = getattr(torch, f"atleast_{n}d")(torch.ones(shape), torch.ones(3))
    assert [tuple(t.shape) for t in mine] == [tuple(t.shape) for t in theirs]


@pytest.mark.parametrize("how", [3, 4, 7, [1, 4], [2, 2, -1], [0, 9], (5, 1)])
@pytest.mark.parametrize("dim", [0, -1])
def test_tensor_split(how, dim):
    both(lambda lib, a: lib.tensor_split(a, how, dim=dim), rand_array((7, 5)))
    mine = labkit.tensor_split(labkit.arange(7), labkit.tensor(3))
    assert [t.tolist() for t in mine] == [t.tolist() for t in torch.tensor_split(torch.arange(7), torch.tensor(3))]


@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_bucketize(right):
    seq = [1.0, 3.0, 3.0, 5.0, 7.0]
    vals = [[0.0, 3.0, 6.0], [7.0, 8.0, 1.0]]
    for lib_args in [(seq, vals), ([[1.0, 2.0, 3.0], [2.0, 4.0, 8.0]], [[2.0, 9.0], [2.0, 4.0]])]:
        mine = labkit.searchsorted(labkit.tensor(lib_args[0]), labkit.tensor(lib_args[1]), right=right)
        theirs = torch.searchsorted(torch.tensor(lib_args[0]), torch.tensor(lib_args[1]), right=right)
        assert mine.tolist() == theirs.tolist() and mine.dtype == labkit.int64
    mine = labkit.bucketize(labkit.tensor(vals), labkit.tensor(seq), right=right, out_int32=True)
    theirs = torch.bucketize(torch.tensor(vals), torch.tensor(seq), right=right, out_int32=True)
    assert mine.tolist() == theirs.tolist() and mine.dtype == labkit.int32
    assert labkit.searchsorted(labkit.tensor(seq), 4.0).tolist() == torch.searchsorted(torch.tensor(seq), 4.0).tolist()
    assert labkit.searchsorted(labkit.tensor(seq), labkit.tensor([3.0]), side="right").tolist() == [3]


def test_isin():
    for e, t in [([1, 2, 3, 4], [2, 4]), ([[1, 5], [7, 2]], [2, 7, 9]), ([], [1])]:
        for invert in (False, True):
            mine = labkit.isin(labkit.tensor(e, dtype=labkit.int64), labkit.tensor(t), invert=invert)
            theirs = torch.isin(torch.tensor(e, dtype=torch.int64), torch.tensor(t), invert=invert)
            assert mine.tolist() == theirs.tolist() and mine.dtype == labkit.bool


@pytest.mark.parametrize("sa,sb", [((2, 3), (3, 2)), ((2,), (3,)), ((2, 2), (3,)), ((1, 2, 2), (2, 1))])
def test_kron(sa, sb):
    both(lambda lib, a, b: lib.kron(a, b), rand_array(sa, 1), rand_array(sb, 2))


@pytest.mark.parametrize("dims", [2, 1, 0, ([1, 0], [0, 1]), ([2], [0])])
def test_tensordot(dims):
    both(lambda lib, a, b: lib.tensordot(a, b, dims=dims), rand_array((3, 4, 2), 1),
         rand_array((4, 3, 5) if dims == ([1, 0], [0, 1]) else (2, 5) if dims == ([2], [0])
                    else (4, 2, 5) if dims == 2 else (2, 5) if dims == 1 else (2, 2), 2))


def test_cartesian_prod():
    both(lambda lib, a, b: lib.cartesian_prod(a, b), rand_array((3,), 1), rand_array((2,), 2))
    both(lambda lib, a: lib.cartesian_prod(a), rand_array((3,), 1))
    assert labkit.cartesian_prod(labkit.arange(2), labkit.arange(3)).tolist() == \
        torch.cartesian_prod(torch.arange(2), torch.arange(3)).tolist()


@pytest.mark.parametrize("kwargs", [{}, dict(nan=1.5), dict(nan=-1.0, posinf=9.0, neginf=-9.0)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_nan_to_num(kwargs, dtype):
    x = [float("nan"), float("inf"), -float("inf"), 1.5, -2.0]
    mine = labkit.nan_to_num(labkit.tensor(x, dtype=getattr(labkit, dtype)), **kwargs)
    theirs = torch.nan_to_num(torch.tensor(x, dtype=getattr(torch, dtype)), **kwargs)
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())
    a = np.array([np.nan, 1.0, np.inf, -3.0])
    both(lambda lib, t: lib.nan_to_num(t * 2, **kwargs), a)
    assert labkit.nan_to_num(labkit.tensor([1, 2])).tolist() == [1, 2]


def test_logaddexp():
    both(lambda lib, a, b: lib.logaddexp(a, b), rand_array((3, 4), 1, -50, 50), rand_array((4,), 2))
    both(lambda lib, a, b: lib.logaddexp2(a, b), rand_array((3, 4), 1), rand_array((3, 4), 2))
    inf = float("inf")
    vals = ([-inf, inf, -inf, 0.0, 1e30], [-inf, inf, 2.0, inf, 1e30])
    for name in ("logaddexp", "logaddexp2"):
        mine = getattr(labkit, name)(labkit.tensor(vals[0]), labkit.tensor(vals[1]))
        theirs = getattr(torch, name)(torch.tensor(vals[0]), torch.tensor(vals[1]))
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-6)


@pytest.mark.parametrize("n,dim", [(1, -1), (2, 0), (3, 1), (0, 0)])
def test_diff(n, dim):
    both(lambda lib, a: lib.diff(a, n=n, dim=dim), rand_array((4, 5)))
    both(lambda lib, a, p, q: lib.diff(a, n=n, dim=0, prepend=p, append=q),
         rand_array((4, 5), 1), rand_array((1, 5), 2), rand_array((2, 5), 3))
    mine = labkit.tensor([True, True, False, False, True]).diff()
    assert mine.tolist() == torch.tensor([True, True, False, False, True]).diff().tolist()
    assert labkit.tensor([1, 4, 9]).diff().tolist() == [3, 5]


@pytest.mark.parametrize("k", [-1, 0, 1, 2, 3, 5])
@pytest.mark.parametrize("dims", [(0, 1), (1, 0), (-1, 0)])
def test_rot90(k, dims):
    both(lambda lib, a: lib.rot90(a, k, dims), rand_array((2, 3, 4)))


@pytest.mark.parametrize("call", [
    lambda lib: lib.tensor_split(lib.tensor(1.0), 2),
    lambda lib: lib.tensor_split(lib.ones(3), 0),
    lambda lib: lib.hstack([]),
    lambda lib: lib.tensordot(lib.ones(2, 3), lib.ones(4, 2), dims=1),
    lambda lib: lib.cartesian_prod(lib.ones(2, 2)),
    lambda lib: lib.diff(lib.tensor(1.0)),
    lambda lib: lib.rot90(lib.ones(3), 1),
    lambda lib: lib.rot90(lib.ones(2, 2), 1, (0, 0)),
    lambda lib: lib.searchsorted(lib.ones(2, 3), lib.ones(3, 1)),
    lambda lib: lib.bucketize(lib.ones(2), lib.ones(2, 2)),
])
def test_errors_like_torch(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)):
        call(labkit)
