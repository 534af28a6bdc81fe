"""Triangular solves and the _ex forms against torch: solve_triangular (upper/lower, left/right,
unitriangular, broadcast batches, size-0) with gradients and second derivatives,
cholesky_ex / inv_ex / solve_ex info codes, cholesky_inverse, cholesky_solve,
triangular_solve, the deprecated torch.cholesky, det's gradient at singular matrices, and the
errors (LinAlgError a RuntimeError, as torch)."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")


def tri(shape, upper, seed):
    a = rand_array(shape, seed) + 3 * np.eye(shape[-1])
    return np.triu(a) if upper else np.tril(a)


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [False, True])
@pytest.mark.parametrize("a_shape,b_shape", [((3, 3), (3, 2)), ((2, 3, 3), (3, 3)),
                                             ((3, 3), (4, 3, 3)), ((0, 2, 2), (0, 2, 2))])
def test_solve_triangular(upper, left, unit, a_shape, b_shape, device):
    A = rand_array(a_shape, 1) + 3 * np.eye(a_shape[-1])     # the other triangle is ignored
    B = rand_array(b_shape, 2)
    if not left:                                             # X A = B: B is (..., k, n)
        B = np.swapaxes(B, -1, -2).copy()
    check_op(lambda a, b: labkit.linalg.solve_triangular(a, b, upper=upper, left=left,
                                                         unitriangular=unit),
             lambda a, b: torch.linalg.solve_triangular(a, b, upper=upper, left=left,
                                                        unitriangular=unit),
             [A, B], rtol=1e-9, atol=1e-10, device=device)


def test_solve_triangular_second_derivative():
    def f(lib, a, b):
        x = lib.linalg.solve_triangular(a, b, upper=False)
        (g,) = lib.autograd.grad((x ** 3).sum(), a, create_graph=True)
        return g
    check_op(lambda a, b: f(labkit, a, b), lambda a, b: f(torch, a, b),
             [tri((3, 3), False, 3), rand_array((3, 2), 4)], rtol=1e-8, atol=1e-10)


def test_cholesky_inverse_solve_and_legacy_names():
    S = rand_array((2, 3, 3), 5)
    S = S @ np.swapaxes(S, -1, -2) + 3 * np.eye(3)
    for upper in (False, True):
        check_op(lambda s: labkit.cholesky_inverse(labkit.linalg.cholesky(s, upper=upper), upper),
                 lambda s: torch.cholesky_inverse(torch.linalg.cholesky(s, upper=upper), upper),
                 [S], rtol=1e-9, atol=1e-10)
        check_op(lambda s, b: labkit.cholesky_solve(b, labkit.linalg.cholesky(s, upper=upper), upper),
                 lambda s, b: torch.cholesky_solve(b, torch.linalg.cholesky(s, upper=upper), upper),
                 [S, rand_array((2, 3, 2), 6)], rtol=1e-9, atol=1e-10)
    for kw in ({}, {"upper": False}, {"transpose": True}, {"unitriangular": True}):
        with pytest.warns(UserWarning, match="deprecated"):
            got = labkit.triangular_solve(labkit.tensor(rand_array((3, 2), 7)),
                                          labkit.tensor(tri((3, 3), kw.get("upper", True), 8)), **kw)
        ref = torch.triangular_solve(torch.tensor(rand_array((3, 2), 7)),
                                     torch.tensor(tri((3, 3), kw.get("upper", True), 8)), **kw)
        np.testing.assert_allclose(got.solution.numpy(), ref.solution.numpy(), rtol=1e-10)
        np.testing.assert_allclose(got.cloned_coefficient.numpy(), ref.cloned_coefficient.numpy())
    with pytest.warns(UserWarning, match="deprecated"):
        L = labkit.cholesky(labkit.tensor(S[0]))
    np.testing.assert_allclose(L.numpy(), np.linalg.cholesky(S[0]))


def test_ex_forms_report_failures_in_info():
    spd = np.eye(3) * 2
    bad = np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    neg = np.diag([1.0, 1.0, -1.0])
    sing = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]])
    batch = np.stack([spd, bad, neg, sing])
    got = labkit.linalg.cholesky_ex(labkit.tensor(batch))
    ref = torch.linalg.cholesky_ex(torch.tensor(batch))
    assert got.info.dtype == labkit.int32
    np.testing.assert_array_equal(got.info.numpy(), ref.info.numpy())
    np.testing.assert_allclose(got.L.numpy()[0], ref.L.numpy()[0])
    got = labkit.linalg.inv_ex(labkit.tensor(batch))
    ref = torch.linalg.inv_ex(torch.tensor(batch))
    np.testing.assert_array_equal(got.info.numpy(), ref.info.numpy())
    np.testing.assert_allclose(got.inverse.numpy()[:3], ref.inverse.numpy()[:3], rtol=1e-12)
    b = np.ones((4, 3))
    got = labkit.linalg.solve_ex(labkit.tensor(batch), labkit.tensor(b))
    ref = torch.linalg.solve_ex(torch.tensor(batch), torch.tensor(b))
    np.testing.assert_array_equal(got.info.numpy(), ref.info.numpy())
    np.testing.assert_allclose(got.result.numpy()[:3], ref.result.numpy()[:3], rtol=1e-12)
    for name in ("cholesky_ex", "inv_ex"):
        with pytest.raises(RuntimeError):
            getattr(labkit.linalg, name)(labkit.tensor(batch), check_errors=True)
    empty = labkit.linalg.cholesky_ex(labkit.zeros(0, 2, 2))
    assert tuple(empty.info.shape) == (0,) and tuple(empty.L.shape) == (0, 2, 2)


def test_cholesky_ex_and_inv_ex_gradients():
    S = rand_array((3, 3), 9)
    S = S @ S.T + 3 * np.eye(3)
    check_op(lambda s: labkit.linalg.cholesky_ex(s).L, lambda s: torch.linalg.cholesky_ex(s).L,
             [S], rtol=1e-9, atol=1e-10)
    check_op(lambda s: labkit.linalg.inv_ex(s).inverse, lambda s: torch.linalg.inv_ex(s).inverse,
             [S], rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("A", [np.array([[1.0, 2.0], [2.0, 4.0]]),
                               np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [1.0, 0.0, 1.0]]),
                               np.zeros((3, 3))])
def test_det_gradient_at_singular_matrices(A):
    """d det / dA = adj(A)^T. torch 2.13 gives that with create_graph=True, but zeros on its
    create_graph=False path; labkit gives adj(A)^T either way, so compare with the former."""
    a = labkit.tensor(A, requires_grad=True)
    (g,) = labkit.autograd.grad(labkit.linalg.det(a), a)
    t = torch.tensor(A, requires_grad=True)
    (gt,) = torch.autograd.grad(torch.linalg.det(t), t, create_graph=True)
    np.testing.assert_allclose(g.numpy(), gt.detach().numpy(), atol=1e-12)


@pytest.mark.parametrize("make", [
    lambda lib: lib.linalg.solve_triangular(lib.ones(3, 2), lib.ones(3, 2), upper=False),
    lambda lib: lib.linalg.solve_triangular(lib.eye(3), lib.ones(3), upper=False),
    lambda lib: lib.linalg.solve_triangular(lib.eye(3), lib.ones(2, 2), upper=False),
    lambda lib: lib.linalg.solve(lib.eye(3), lib.ones(3, 2, dtype=lib.float64)),
])
def test_errors(make):
    msgs = []
    for lib in (labkit, torch):
        with pytest.raises(RuntimeError) as info:
            make(lib)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


def test_mixed_dtypes_solve_in_a_dtype():
    got = labkit.linalg.solve_triangular(labkit.eye(3), labkit.ones(3, 2, dtype=labkit.float64),
                                         upper=False)
    ref = torch.linalg.solve_triangular(torch.eye(3), torch.ones(3, 2, dtype=torch.float64),
                                        upper=False)
    assert str(got.dtype)[7:] == str(ref.dtype)[6:]


def test_singular_inverse_raises_linalg_error():
    for lib in (labkit, torch):
        with pytest.raises(lib.linalg.LinAlgError):
            lib.linalg.inv(lib.zeros(2, 2))
        assert issubclass(lib.linalg.LinAlgError, RuntimeError)
