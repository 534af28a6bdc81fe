"""scatter_reduce (every reduction, include_self both ways), index_put(accumulate=) and the
broadcast_* helpers against torch: values, dtypes, gradients (ties of amax, zeros in prod),
a src larger than index, integer dtypes, errors."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")

REDUCE = ["sum", "prod", "mean", "amax", "amin"]


@pytest.mark.parametrize("reduce", REDUCE)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_scatter_reduce_values_and_gradients(reduce, include_self, dim, device):
    index = np.array([[0, 1, 0], [2, 0, 0]], dtype=np.int64)
    check_op(lambda x, s, i: x.scatter_reduce(dim, i, s, reduce, include_self=include_self),
             lambda x, s, i: x.scatter_reduce(dim, i, s, reduce, include_self=include_self),
             [rand_array((3, 4), 1), rand_array((2, 3), 2), index], device=device)


@pytest.mark.parametrize("reduce", ["amax", "amin", "prod", "mean"])
@pytest.mark.parametrize("include_self", [True, False])
def test_ties_and_zeros(reduce, include_self):
    x = np.array([1.0, 0.0, 2.0, 3.0])
    src = np.array([1.0, 2.0, 0.0, 0.0, 2.0, 1.0])
    index = np.array([0, 0, 1, 1, 2, 0], dtype=np.int64)
    check_op(lambda a, s, i: a.scatter_reduce(0, i, s, reduce, include_self=include_self),
             lambda a, s, i: a.scatter_reduce(0, i, s, reduce, include_self=include_self),
             [x, src, index])


@pytest.mark.parametrize("reduce", REDUCE)
def test_integer_dtype_and_in_place(reduce):
    for include_self in (True, False):
        mine = labkit.tensor([[5, 1, 7], [2, 2, 2]]).scatter_reduce(
            1, labkit.tensor([[0, 0, 2], [1, 1, 1]]), labkit.tensor([[3, 4, 9], [6, 8, 1]]),
            reduce, include_self=include_self)
        theirs = torch.tensor([[5, 1, 7], [2, 2, 2]]).scatter_reduce(
            1, torch.tensor([[0, 0, 2], [1, 1, 1]]), torch.tensor([[3, 4, 9], [6, 8, 1]]),
            reduce, include_self=include_self)
        assert mine.tolist() == theirs.tolist() and mine.dtype == labkit.int64
    a, b = labkit.zeros(3), torch.zeros(3)
    a.scatter_reduce_(0, labkit.tensor([0, 0, 2]), labkit.tensor([1.0, 2.0, 3.0]), reduce)
    b.scatter_reduce_(0, torch.tensor([0, 0, 2]), torch.tensor([1.0, 2.0, 3.0]), reduce)
    assert a.tolist() == b.tolist()


def test_scatter_reduce_src_larger_than_index_and_max_min_spellings():
    # values only: torch's own backward fails when src is larger than index
    for reduce in ("amax", "max", "min"):
        check_op(lambda x, s, i: x.scatter_reduce(0, i, s, reduce, include_self=False),
                 lambda x, s, i: x.scatter_reduce(0, i, s, reduce, include_self=False),
                 [rand_array((4, 3), 3), rand_array((5, 4), 4),
                  np.array([[1, 0], [3, 3]], dtype=np.int64)], requires_grad=[False, False, False])


@pytest.mark.parametrize("call", [
    lambda lib: lib.zeros(3).scatter_reduce(0, lib.tensor([0]), lib.ones(1), "add"),
    lambda lib: lib.zeros(3).scatter_reduce(0, lib.tensor([3]), lib.ones(1), "sum"),
    lambda lib: lib.zeros(3).scatter_reduce(0, lib.tensor([0]), lib.ones(1, dtype=lib.float64), "sum"),
    lambda lib: lib.zeros(3).scatter_reduce(0, lib.tensor([0.0]), lib.ones(1), "sum"),
])
def test_scatter_reduce_errors(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)):
        call(labkit)


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_values_and_gradients(accumulate):
    rows, cols = np.array([0, 2, 0], dtype=np.int64), np.array([1, 1, 1], dtype=np.int64)
    if accumulate:
        check_op(lambda x, v, r, c: x.index_put((r, c), v, accumulate=True),
                 lambda x, v, r, c: x.index_put((r, c), v, accumulate=True),
                 [rand_array((3, 2)), rand_array((3,), 5), rows, cols])
    check_op(lambda x, v, r: x.index_put((r,), v, accumulate=accumulate),
             lambda x, v, r: x.index_put((r,), v, accumulate=accumulate),
             [rand_array((3, 2)), rand_array((1, 2), 6), np.array([2, 1], dtype=np.int64)])


def test_index_put_in_place_masks_negative_indices_and_ints():
    for accumulate in (False, True):
        out = []
        for lib in (labkit, torch):
            a = lib.zeros(4, 3, dtype=lib.int64)
            a.index_put_((lib.tensor([0, -1, 0]),), lib.tensor([1, 2, 3]), accumulate=accumulate)
            a.index_put_((lib.tensor([True, False, True, False]), lib.tensor([2, 0])),
                         lib.tensor(7), accumulate=accumulate)
            out.append(a.tolist())
        assert out[0] == out[1]
    for lib in (torch, labkit):
        with pytest.raises(TypeError):
            lib.zeros(3).index_put_(lib.tensor([0]), lib.tensor(1.0))


@pytest.mark.parametrize("shapes", [((3,), (2, 1)), ((2, 1), (0,), 1), ((), (4, 1)), ((5,),), ()])
def test_broadcast_shapes_and_tensors(shapes):
    assert tuple(labkit.broadcast_shapes(*shapes)) == tuple(torch.broadcast_shapes(*shapes))
    mine = labkit.broadcast_tensors(*[labkit.zeros(s) for s in shapes])
    theirs = torch.broadcast_tensors(*[torch.zeros(s) for s in shapes])
    assert [tuple(t.shape) for t in mine] == [tuple(t.shape) for t in theirs]


def test_broadcast_to_gradient_and_errors():
    check_op(lambda x: labkit.broadcast_to(x, (2, 3, 4)), lambda x: torch.broadcast_to(x, (2, 3, 4)),
             [rand_array((3, 1))])
    for call in (lambda lib: lib.broadcast_shapes((3,), (2,)),
                 lambda lib: lib.broadcast_tensors(lib.ones(3), lib.ones(2)),
                 lambda lib: lib.broadcast_to(lib.ones(3), (2,)),
                 lambda lib: lib.broadcast_shapes((-1,))):
        with pytest.raises(Exception) as theirs:
            call(torch)
        with pytest.raises(type(theirs.value)):
            call(labkit)
