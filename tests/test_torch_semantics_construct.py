"""block_diag, combinations, vander, diagflat, trapezoid/trapz/cumulative_trapezoid, cov,
corrcoef, dist, hsplit/vsplit/dsplit, split_with_sizes and unique_consecutive against torch:
values, dtypes, gradients with a random upstream grad, size-0/size-1 edges and errors."""
import warnings

import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")


def both(fn, *arrays, **kw):
    return check_op(lambda *a: fn(labkit, *a), lambda *a: fn(torch, *a), list(arrays), **kw)


def _raises_like(call):
    with pytest.raises(Exception) as t:
        call(torch)
    with pytest.raises(type(t.value)):
        call(labkit)


def test_block_diag(device):
    both(lambda L, a, b, c: L.block_diag(a, b, c), rand_array((2, 3), 1), rand_array((), 2),
         rand_array((4,), 3), device=device)
    both(lambda L, a, b: L.block_diag(a, b), rand_array((0, 2), 1), rand_array((1, 0), 2),
         device=device)
    for lib in (labkit, torch):
        out = lib.block_diag(lib.ones(1, 1, dtype=lib.int64), lib.ones(1, dtype=lib.float32))
        assert out.dtype == lib.float32 and tuple(lib.block_diag().shape) == (1, 0)
    _raises_like(lambda lib: lib.block_diag(lib.ones(1, 1, 1)))


@pytest.mark.parametrize("r, rep", [(2, False), (3, False), (2, True), (0, False), (5, False)])
def test_combinations(r, rep, device):
    both(lambda L, a: L.combinations(a, r, rep), rand_array((4,), 1), device=device)
    _raises_like(lambda lib: lib.combinations(lib.ones(2, 2)))


@pytest.mark.parametrize("N, inc", [(None, False), (4, True), (1, False), (0, True)])
def test_vander(N, inc, device):
    # values against torch (torch 2.13's own vander backward fails: an in-place cumprod_ on a
    # view), gradients against central differences
    both(lambda L, a: L.vander(a, N, inc), rand_array((3,), 1, away_from=[0.0]), device=device,
         requires_grad=[False])
    for lib in (labkit, torch):
        assert lib.vander(lib.tensor([1, 2, 3])).dtype == lib.int64
    for x in (rand_array((3,), 1), np.array([0.0, 2.0, -1.5])):   # x = 0 differentiates
        a = labkit.tensor(x, requires_grad=True, device=device)
        assert labkit.autograd.gradcheck(lambda t: labkit.vander(t, N, inc), (a,))


@pytest.mark.parametrize("shape, offset", [((2, 2), 0), ((3,), 1), ((3,), -2), ((), 0), ((0,), 0)])
def test_diagflat(shape, offset, device):
    both(lambda L, a: L.diagflat(a, offset), rand_array(shape, 1), device=device)
    both(lambda L, a: a.diagflat(offset), rand_array(shape, 1), device=device)


@pytest.mark.parametrize("kw", [{}, {"dx": 0.5}, {"dim": 0}, {"dx": 2.0, "dim": -2}])
@pytest.mark.parametrize("fn", ["trapezoid", "trapz", "cumulative_trapezoid"])
def test_trapezoid(fn, kw, device):
    both(lambda L, y: getattr(L, fn)(y, **kw), rand_array((3, 4), 1), device=device)


@pytest.mark.parametrize("fn", ["trapezoid", "cumulative_trapezoid"])
def test_trapezoid_sample_points(fn, device):
    x1 = np.cumsum(rand_array((4,), 2, positive=True))
    both(lambda L, y, x: getattr(L, fn)(y, x), rand_array((3, 4), 1), x1, device=device)
    both(lambda L, y, x: getattr(L, fn)(y, x, dim=0), rand_array((3, 4), 1),
         rand_array((3, 4), 3), device=device)
    both(lambda L, y: getattr(L, fn)(y), rand_array((1,), 1), device=device)
    both(lambda L, y: getattr(L, fn)(y), rand_array((0,), 1), device=device)
    for lib in (labkit, torch):
        assert lib.trapezoid(lib.arange(3)).dtype == lib.float32
    _raises_like(lambda lib: lib.trapezoid(lib.ones(3), lib.ones(4)))


@pytest.mark.parametrize("shape", [(3, 5), (5,), (1, 4), (2, 1)])
@pytest.mark.parametrize("correction", [1, 0, 2])
def test_cov(shape, correction, device):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both(lambda L, a: L.cov(a, correction=correction), rand_array(shape, 1), device=device)


def test_cov_weights_corrcoef_dist(device):
    fw = np.array([1, 2, 0, 3, 1])
    aw = rand_array((5,), 4, positive=True)
    both(lambda L, a, f, w: L.cov(a, fweights=f, aweights=w), rand_array((3, 5), 1), fw, aw,
         device=device, requires_grad=[True, False, True])
    both(lambda L, a, f: L.cov(a, correction=0, fweights=f), rand_array((3, 5), 1), fw, device=device)
    both(lambda L, a: L.corrcoef(a), rand_array((3, 5), 1), device=device)
    both(lambda L, a: a.corrcoef(), rand_array((5,), 1), device=device)
    for p in (2, 1, 3.5, float("inf")):
        both(lambda L, a, b: L.dist(a, b, p), rand_array((3, 4), 1), rand_array((4,), 2),
             device=device)
    _raises_like(lambda lib: lib.cov(lib.ones(2, 2, 2)))
    _raises_like(lambda lib: lib.cov(lib.ones(2, 3), fweights=lib.ones(3)))
    _raises_like(lambda lib: lib.cov(lib.ones(2, 3), aweights=lib.ones(2)))
    _raises_like(lambda lib: lib.cov(lib.ones(2, 3), fweights=-lib.ones(3, dtype=lib.int64)))


def test_splits(device):
    x = rand_array((4, 6, 2), 1)
    for fn in (lambda L, a: L.hsplit(a, 3), lambda L, a: L.hsplit(a, [1, 4]),
               lambda L, a: L.vsplit(a, 2), lambda L, a: a.vsplit([3]),
               lambda L, a: L.dsplit(a, 2), lambda L, a: L.split_with_sizes(a, [1, 5], 1),
               lambda L, a: a.split_with_sizes([3, 1])):
        both(lambda L, a: tuple(fn(L, a)), x, device=device)
    both(lambda L, a: tuple(L.hsplit(a, 2)), rand_array((4,), 1), device=device)
    _raises_like(lambda lib: lib.hsplit(lib.ones(2, 5), 2))
    _raises_like(lambda lib: lib.vsplit(lib.ones(5), 1))
    _raises_like(lambda lib: lib.dsplit(lib.ones(2, 2), 1))
    _raises_like(lambda lib: lib.ones(2, 5).split_with_sizes([1, 2], 1))


@pytest.mark.parametrize("data, dim", [
    ([1, 1, 2, 2, 3, 1, 1], None), ([[1, 1], [1, 1], [2, 3], [1, 1]], 0),
    ([[1, 1, 2], [1, 1, 3]], 1), ([], None), ([[1, 1], [2, 2]], None), ([5], None),
])
def test_unique_consecutive(data, dim, device):
    a, t = labkit.tensor(data, device=device), torch.tensor(data)
    for inv in (False, True):
        for cnt in (False, True):
            kw = dict(return_inverse=inv, return_counts=cnt, dim=dim)
            mine, ref = labkit.unique_consecutive(a, **kw), torch.unique_consecutive(t, **kw)
            mine = mine if isinstance(mine, tuple) else (mine,)
            ref = ref if isinstance(ref, tuple) else (ref,)
            for m, r in zip(mine, ref):
                assert m.tolist() == r.tolist() and tuple(m.shape) == tuple(r.shape)
                assert str(m.dtype).split(".")[-1] == str(r.dtype).split(".")[-1]
    check_op(lambda x: x.unique_consecutive(), lambda x: x.unique_consecutive(),
             [np.array([1.0, 1.0, 2.0, 3.0, 3.0])], device=device, requires_grad=[False])
