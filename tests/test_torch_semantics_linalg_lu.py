"""LU against torch: linalg.lu (square, wide, tall, batched, size-0), lu_factor / lu_factor_ex
(packed LU, 1-based int32 pivots, info for singular input), torch.lu_unpack, lu_solve (left,
right, adjoint) -- values, gradients (and second derivatives), and the singular-input error."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("shape", [(3, 3), (2, 4), (4, 2), (2, 3, 3), (0, 2, 2), (1, 1)])
def test_lu_values_and_gradients(shape, device):
    check_op(lambda a: tuple(labkit.linalg.lu(a)), lambda a: tuple(torch.linalg.lu(a)),
             [rand_array(shape, 1)], rtol=1e-9, atol=1e-10, device=device)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4), (4, 2), (2, 3, 3)])
def test_lu_factor_pivots_and_unpack(shape):
    A = rand_array(shape, 2)
    check_op(lambda a: tuple(labkit.linalg.lu_factor(a)), lambda a: tuple(torch.linalg.lu_factor(a)),
             [A], rtol=1e-9, atol=1e-10)
    LU, piv = torch.linalg.lu_factor(torch.tensor(A))
    got = labkit.lu_unpack(labkit.tensor(LU.numpy()), labkit.tensor(piv.numpy()))
    ref = torch.lu_unpack(LU, piv)
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g.numpy(), r.numpy(), atol=1e-12)


def test_lu_second_derivative():
    def f(lib, a):
        P, L, U = lib.linalg.lu(a)
        (g,) = lib.autograd.grad((L.sin().sum() + (U ** 2).sum()), a, create_graph=True)
        return g
    check_op(lambda a: f(labkit, a), lambda a: f(torch, a), [rand_array((3, 3), 3)], rtol=1e-7,
             atol=1e-9)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve(left, adjoint, device):
    A = rand_array((2, 3, 3), 4) + 2 * np.eye(3)
    B = rand_array((2, 3, 2) if left else (2, 2, 3), 5)

    def build(lib, a, b):
        LU, piv = lib.linalg.lu_factor(a)
        return lib.linalg.lu_solve(LU, piv, b, left=left, adjoint=adjoint)
    check_op(lambda a, b: build(labkit, a, b), lambda a, b: build(torch, a, b), [A, B],
             rtol=1e-9, atol=1e-10, device=device)


def test_singular_input():
    A = np.array([[[1.0, 2.0], [2.0, 4.0]], [[0.0, 0.0], [0.0, 0.0]], [[2.0, 0.0], [0.0, 1.0]]])
    got = labkit.linalg.lu_factor_ex(labkit.tensor(A))
    ref = torch.linalg.lu_factor_ex(torch.tensor(A))
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g.numpy(), r.numpy(), atol=1e-12)
    assert got.info.dtype == labkit.int32 and got.pivots.dtype == labkit.int32
    msgs = []
    for lib in (labkit, torch):
        with pytest.raises(RuntimeError) as info:
            lib.linalg.lu_factor(lib.tensor(A[1]))
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]
