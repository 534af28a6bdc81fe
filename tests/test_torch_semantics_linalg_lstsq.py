"""Least squares and rank against torch: pinv (tolerances, hermitian, batches, size-0,
rank-deficient), torch.pinverse, lstsq (vector and matrix right-hand sides, each driver's
residuals / rank / singular_values), matrix_rank, cond -- values and gradients -- and errors."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")


def rank_deficient(shape, rank, seed):
    r = np.random.default_rng(seed)
    return r.standard_normal(shape[:-1] + (rank,)) @ r.standard_normal(shape[:-2] + (rank, shape[-1]))


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3), (0, 2, 3), (2, 0)])
def test_pinv_values_and_gradients(shape, device):
    check_op(lambda a: labkit.linalg.pinv(a), lambda a: torch.linalg.pinv(a),
             [rand_array(shape, 1)], rtol=1e-8, atol=1e-10, device=device)
    check_op(lambda a: labkit.pinverse(a), lambda a: torch.pinverse(a), [rand_array(shape, 1)],
             rtol=1e-8, atol=1e-10)


def test_pinv_tolerances_rank_deficient_and_hermitian():
    A = rank_deficient((5, 4), 2, 2)
    for kw in ({}, {"rtol": 1e-3}, {"atol": 0.5}, {"atol": 0.1, "rtol": 0.01}):
        np.testing.assert_allclose(labkit.linalg.pinv(labkit.tensor(A), **kw).numpy(),
                                   torch.linalg.pinv(torch.tensor(A), **kw).numpy(), atol=1e-10)
    H = rand_array((4, 4), 3)
    H = H + H.T
    check_op(lambda a: labkit.linalg.pinv(a + a.mT, hermitian=True),
             lambda a: torch.linalg.pinv(a + a.mT, hermitian=True), [H], rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("a_shape,b_shape", [((5, 3), (5, 2)), ((5, 3), (5,)), ((3, 5), (3, 2)),
                                             ((2, 4, 3), (2, 4, 2)), ((4, 4), (4, 1))])
def test_lstsq_solution_and_gradients(a_shape, b_shape, device):
    check_op(lambda a, b: labkit.linalg.lstsq(a, b).solution,
             lambda a, b: torch.linalg.lstsq(a, b).solution,
             [rand_array(a_shape, 4), rand_array(b_shape, 5)], rtol=1e-8, atol=1e-10,
             device=device)


@pytest.mark.parametrize("driver", [None, "gelsy", "gelsd", "gelss", "gels"])
def test_lstsq_outputs_per_driver(driver):
    A, B = rand_array((5, 3), 6), rand_array((5, 2), 7)
    mine = labkit.linalg.lstsq(labkit.tensor(A), labkit.tensor(B), driver=driver)
    ref = torch.linalg.lstsq(torch.tensor(A), torch.tensor(B), driver=driver)
    for m, r in zip(mine, ref):
        assert tuple(m.shape) == tuple(r.shape) and str(m.dtype)[7:] == str(r.dtype)[6:]
        np.testing.assert_allclose(m.numpy(), r.numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("kw", [{}, {"atol": 1.0}, {"rtol": 0.1}, {"hermitian": True}])
def test_matrix_rank(kw):
    for A in (rank_deficient((4, 4), 2, 8), rank_deficient((3, 5, 5), 3, 9), rand_array((4, 2), 3),
              np.zeros((3, 3))):
        if kw.get("hermitian"):
            A = A @ np.swapaxes(A, -1, -2)
        got = labkit.linalg.matrix_rank(labkit.tensor(A), **kw)
        ref = torch.linalg.matrix_rank(torch.tensor(A), **kw)
        assert got.dtype == labkit.int64
        np.testing.assert_array_equal(got.numpy(), ref.numpy())


@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", 1, -1, float("inf")])
def test_cond(p):
    """Gradients for p in (None, 2, -2); torch 2.13's backward fails for the others (an in-place
    write in its own inv_ex), so those compare values."""
    check_op(lambda a: labkit.linalg.cond(a, p), lambda a: torch.linalg.cond(a, p),
             [rand_array((2, 3, 3), 10) + 2 * np.eye(3)], rtol=1e-8, atol=1e-10,
             requires_grad=[p in (None, 2, -2)])


@pytest.mark.parametrize("make", [
    lambda lib: lib.linalg.lstsq(lib.ones(3, 3), lib.ones(2, 3)),
    lambda lib: lib.linalg.lstsq(lib.ones(3, 3), lib.ones(3, 3, dtype=lib.float64)),
    lambda lib: lib.linalg.matrix_rank(lib.ones(3, 3, dtype=lib.int64)),
    lambda lib: lib.linalg.pinv(lib.ones(2, 2, dtype=lib.int64)),
])
def test_errors(make):
    msgs = []
    for lib in (labkit, torch):
        with pytest.raises(RuntimeError) as info:
            make(lib)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]
