"""torch.linalg's solvers against torch: inv, solve (vector and matrix right-hand sides,
batches, left=False), det, slogdet, logdet, cholesky (upper too), eigh/eigvalsh -- values,
gradients (and second derivatives for inv/solve/det), and the errors."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")


def well_conditioned(shape, seed=0):
    a = rand_array(shape, seed)
    n = shape[-1]
    return a + 3 * np.eye(n)


def spd(shape, seed=0):
    a = rand_array(shape, seed)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1), (0, 2, 2)])
def test_inv_det_slogdet(shape, device):
    A = well_conditioned(shape)
    check_op(lambda a: labkit.linalg.inv(a), lambda a: torch.linalg.inv(a), [A], device=device)
    check_op(lambda a: labkit.linalg.det(a), lambda a: torch.linalg.det(a), [A], device=device)
    check_op(lambda a: tuple(labkit.linalg.slogdet(a)), lambda a: tuple(torch.linalg.slogdet(a)),
             [A], device=device)
    check_op(lambda a: a.inverse(), lambda a: a.inverse(), [A])
    check_op(lambda a: labkit.logdet(a), lambda a: torch.logdet(a), [spd(shape)])


@pytest.mark.parametrize("a_shape,b_shape", [((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (2, 3)),
                                             ((2, 3, 3), (2, 3, 4)), ((2, 3, 3), (3, 1))])
def test_solve(a_shape, b_shape, device):
    check_op(lambda a, b: labkit.linalg.solve(a, b), lambda a, b: torch.linalg.solve(a, b),
             [well_conditioned(a_shape), rand_array(b_shape, 5)], device=device)


def test_solve_left_false():
    check_op(lambda a, b: labkit.linalg.solve(a, b, left=False),
             lambda a, b: torch.linalg.solve(a, b, left=False),
             [well_conditioned((3, 3)), rand_array((2, 3), 5)])


def test_second_derivatives_of_inv_and_det():
    A = well_conditioned((3, 3))
    mine = []
    for lib in (labkit, torch):
        a = lib.tensor(A, requires_grad=True)
        (g,) = lib.autograd.grad(lib.linalg.det(a) + lib.linalg.inv(a).sum(), a, create_graph=True)
        (h,) = lib.autograd.grad((g * g).sum(), a)
        mine.append(h.detach().numpy())
    np.testing.assert_allclose(mine[0], mine[1], rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_cholesky(upper, shape):
    check_op(lambda a: labkit.linalg.cholesky(a, upper=upper),
             lambda a: torch.linalg.cholesky(a, upper=upper), [spd(shape)], rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_eigh_values_and_vector_invariant_gradients(shape):
    S = spd(shape) + np.diag(np.arange(shape[-1]) * 1.5)
    check_op(lambda a: labkit.linalg.eigvalsh(a), lambda a: torch.linalg.eigvalsh(a), [S],
             rtol=1e-6, atol=1e-9)
    # eigenvectors are defined up to sign: compare sign-invariant functions of them
    check_op(lambda a: (lambda r: (r.eigenvalues, r.eigenvectors.abs(), r.eigenvectors ** 2))(labkit.linalg.eigh(a)),
             lambda a: (lambda r: (r.eigenvalues, r.eigenvectors.abs(), r.eigenvectors ** 2))(torch.linalg.eigh(a)),
             [S], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("call", [
    lambda lib: lib.linalg.inv(lib.zeros(2, 2)),
    lambda lib: lib.linalg.inv(lib.ones(2, 3)),
    lambda lib: lib.linalg.inv(lib.ones(3)),
    lambda lib: lib.linalg.inv(lib.ones(2, 2, dtype=lib.int64)),
    lambda lib: lib.linalg.solve(lib.eye(2), lib.ones(3)),
    lambda lib: lib.linalg.cholesky(-lib.eye(2)),
    lambda lib: lib.linalg.eigh(lib.eye(2), UPLO="X"),
])
def test_errors_like_torch(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value) if type(theirs.value).__name__ != "_LinAlgError"
                       else RuntimeError):
        call(labkit)
