"""linalg.matrix_exp and matrix_power (and torch.matrix_exp / Tensor.matrix_power) against
torch: values over a range of norms (scaling and squaring), batches, size-0, float32,
gradients and second derivatives, negative and zero powers, integer matrices, and errors."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("scale", [1e-3, 0.5, 3.0, 40.0])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1), (0, 2, 2)])
def test_matrix_exp_values_and_gradients(scale, shape, device):
    A = rand_array(shape, 1) * scale
    check_op(lambda a: labkit.linalg.matrix_exp(a), lambda a: torch.linalg.matrix_exp(a), [A],
             rtol=1e-9 if scale < 10 else 1e-7, atol=1e-10, device=device)


def test_matrix_exp_second_derivative_and_aliases():
    def f(lib, a):
        (g,) = lib.autograd.grad(lib.linalg.matrix_exp(a).sin().sum(), a, create_graph=True)
        return g
    check_op(lambda a: f(labkit, a), lambda a: f(torch, a), [rand_array((3, 3), 2)], rtol=1e-8)
    A = rand_array((3, 3), 3)
    np.testing.assert_allclose(labkit.matrix_exp(labkit.tensor(A)).numpy(),
                               torch.matrix_exp(torch.tensor(A)).numpy(), rtol=1e-12)
    np.testing.assert_allclose(labkit.tensor(A).matrix_exp().numpy(),
                               torch.tensor(A).matrix_exp().numpy(), rtol=1e-12)


def test_matrix_exp_float32_and_known_values():
    A = np.array([[0.0, -np.pi], [np.pi, 0.0]], dtype=np.float32)       # a rotation by pi
    e = labkit.linalg.matrix_exp(labkit.tensor(A))
    assert e.dtype == labkit.float32
    np.testing.assert_allclose(e.numpy(), torch.linalg.matrix_exp(torch.tensor(A)).numpy(),
                               atol=1e-6)
    np.testing.assert_allclose(e.numpy(), -np.eye(2), atol=1e-6)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8, -1, -3])
@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3), (0, 2, 2)])
def test_matrix_power(n, shape, device):
    A = rand_array(shape, 4) + 2 * np.eye(shape[-1])
    check_op(lambda a: labkit.linalg.matrix_power(a, n), lambda a: torch.linalg.matrix_power(a, n),
             [A], rtol=1e-9, atol=1e-10, device=device)
    check_op(lambda a: a.matrix_power(n), lambda a: a.matrix_power(n), [A], rtol=1e-9, atol=1e-10)


def test_matrix_power_of_integers_keeps_the_dtype():
    A = np.array([[1, 1], [1, 0]])
    got = labkit.matrix_power(labkit.tensor(A), 10)
    ref = torch.matrix_power(torch.tensor(A), 10)
    assert got.dtype == labkit.int64
    np.testing.assert_array_equal(got.numpy(), ref.numpy())


@pytest.mark.parametrize("make", [
    lambda lib: lib.linalg.matrix_exp(lib.ones(2, 3)),
    lambda lib: lib.linalg.matrix_exp(lib.ones(3, 3, dtype=lib.int64)),
    lambda lib: lib.linalg.matrix_power(lib.ones(2, 3), 2),
    lambda lib: lib.linalg.matrix_power(lib.ones(3), 2),
])
def test_errors(make):
    msgs = []
    for lib in (labkit, torch):
        with pytest.raises(RuntimeError) as info:
            make(lib)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]
