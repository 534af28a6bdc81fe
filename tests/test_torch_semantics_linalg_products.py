"""The composite corners of torch.linalg against torch: cross, vecdot, multi_dot (vectors at
the ends, optimal order), vander, tensorinv, tensorsolve, diagonal, matmul, and norm / matrix_norm
for every ord (2, -2 and 'nuc' from singular values) -- values, gradients, errors."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("a_shape,b_shape", [((3,), (3,)), ((2, 3), (1, 3)), ((4, 1, 3), (1, 2, 3))])
def test_cross_and_vecdot(a_shape, b_shape):
    arrays = [rand_array(a_shape, 1), rand_array(b_shape, 2)]
    check_op(lambda a, b: labkit.linalg.cross(a, b), lambda a, b: torch.linalg.cross(a, b), arrays)
    check_op(lambda a, b: labkit.linalg.vecdot(a, b), lambda a, b: torch.linalg.vecdot(a, b),
             arrays)
    check_op(lambda a, b: labkit.linalg.vecdot(a, b, dim=0),
             lambda a, b: torch.linalg.vecdot(a, b, dim=0),
             [rand_array((3, 2), 3), rand_array((3, 2), 4)])


@pytest.mark.parametrize("shapes", [[(3, 4), (4, 5)], [(4,), (4, 5), (5, 2), (2,)],
                                    [(10, 2), (2, 8), (8, 3), (3, 1)], [(3,), (3,)],
                                    [(2, 0), (0, 3), (3, 4)]])
def test_multi_dot(shapes, device):
    arrays = [rand_array(s, i) for i, s in enumerate(shapes)]
    check_op(lambda *ts: labkit.linalg.multi_dot(list(ts)), lambda *ts: torch.linalg.multi_dot(list(ts)),
             arrays, rtol=1e-10, device=device)


@pytest.mark.parametrize("shape,N", [((3,), None), ((3,), 5), ((2, 4), 2), ((0,), 3)])
def test_vander(shape, N):
    check_op(lambda x: labkit.linalg.vander(x, N=N), lambda x: torch.linalg.vander(x, N=N),
             [rand_array(shape, 5)])


def test_tensorinv_tensorsolve_diagonal_matmul():
    A = rand_array((4, 6, 8, 3), 6) + 0.0
    A = (rand_array((24, 24), 6) + 4 * np.eye(24)).reshape(4, 6, 8, 3)
    check_op(lambda a: labkit.linalg.tensorinv(a, ind=2), lambda a: torch.linalg.tensorinv(a, ind=2),
             [A], rtol=1e-9, atol=1e-11)
    B = rand_array((4, 6), 7)
    check_op(lambda a, b: labkit.linalg.tensorsolve(a, b), lambda a, b: torch.linalg.tensorsolve(a, b),
             [A, B], rtol=1e-9, atol=1e-11)
    C = (rand_array((6, 6), 8) + 3 * np.eye(6)).reshape(2, 3, 6)
    check_op(lambda a, b: labkit.linalg.tensorsolve(a, b, dims=(0,)),
             lambda a, b: torch.linalg.tensorsolve(a, b, dims=(0,)),
             [C.transpose(2, 0, 1).copy(), rand_array((2, 3), 9)], rtol=1e-9, atol=1e-11)
    check_op(lambda a: labkit.linalg.diagonal(a, offset=1), lambda a: torch.linalg.diagonal(a, offset=1),
             [rand_array((2, 3, 4), 10)])
    check_op(lambda a, b: labkit.linalg.matmul(a, b), lambda a, b: torch.linalg.matmul(a, b),
             [rand_array((2, 3), 11), rand_array((3,), 12)])


@pytest.mark.parametrize("ord", ["fro", "nuc", 2, -2, 1, -1, float("inf"), float("-inf")])
@pytest.mark.parametrize("keepdim", [False, True])
def test_matrix_norms(ord, keepdim, device):
    A = rand_array((2, 3, 4), 13)
    check_op(lambda a: labkit.linalg.matrix_norm(a, ord, keepdim=keepdim),
             lambda a: torch.linalg.matrix_norm(a, ord, keepdim=keepdim), [A], rtol=1e-9,
             device=device)
    check_op(lambda a: labkit.linalg.norm(a, ord, dim=(0, 2), keepdim=keepdim),
             lambda a: torch.linalg.norm(a, ord, dim=(0, 2), keepdim=keepdim), [A], rtol=1e-9)


@pytest.mark.parametrize("make", [
    lambda lib: lib.linalg.cross(lib.ones(2), lib.ones(2)),
    lambda lib: lib.linalg.multi_dot([lib.ones(2, 2)]),
    lambda lib: lib.linalg.multi_dot([lib.ones(2, 2, 2), lib.ones(2, 2)]),
    lambda lib: lib.linalg.multi_dot([lib.ones(2, 3), lib.ones(2, 2)]),
    lambda lib: lib.linalg.vander(lib.ones(3), N=1),
    lambda lib: lib.linalg.tensorinv(lib.ones(4, 2, 3), ind=1),
    lambda lib: lib.linalg.cross(lib.ones(2, 3), lib.ones(3)),
    lambda lib: lib.linalg.inv(lib.stack([lib.eye(2), lib.zeros(2, 2)])),
    lambda lib: lib.linalg.solve(lib.zeros(2, 2), lib.ones(2)),
    lambda lib: lib.linalg.cholesky(lib.stack([lib.eye(2), -lib.eye(2)])),
])
def test_errors(make):
    """The same exception type, and torch's message (labkit may add a hint after it)."""
    msgs = []
    for lib in (labkit, torch):
        with pytest.raises(RuntimeError) as info:
            make(lib)
        msgs.append(str(info.value).replace("torch.linalg", "linalg"))
    assert msgs[0].startswith(msgs[1].rstrip("."))
