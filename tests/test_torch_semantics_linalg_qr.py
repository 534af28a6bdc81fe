"""linalg.qr / torch.qr against torch: Q and R for reduced, complete and r modes (tall, wide,
square, batched, size-0), gradients through Q and R (tall and wide), second derivatives, and
the errors torch raises (including the modes it cannot differentiate)."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (3, 3), (2, 4, 2), (0, 3, 2), (3, 0)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_values_and_shapes(shape, mode):
    A = rand_array(shape, 1)
    Q, R = labkit.linalg.qr(labkit.tensor(A), mode=mode)
    Qt, Rt = torch.linalg.qr(torch.tensor(A), mode=mode)
    assert (tuple(Q.shape), tuple(R.shape)) == (tuple(Qt.shape), tuple(Rt.shape))
    np.testing.assert_allclose(R.numpy(), Rt.numpy(), atol=1e-10)
    np.testing.assert_allclose(Q.numpy(), Qt.numpy(), atol=1e-10)


@pytest.mark.parametrize("shape", [(5, 3), (3, 3), (3, 5), (2, 4, 3)])
def test_gradients_through_q_and_r(shape, device):
    check_op(lambda a: tuple(labkit.linalg.qr(a)), lambda a: tuple(torch.linalg.qr(a)),
             [rand_array(shape, 2)], rtol=1e-7, atol=1e-9, device=device)


def test_gradient_complete_mode_wide_and_only_r():
    check_op(lambda a: tuple(labkit.linalg.qr(a, mode="complete")),
             lambda a: tuple(torch.linalg.qr(a, mode="complete")), [rand_array((3, 4), 3)],
             rtol=1e-7, atol=1e-9)
    check_op(lambda a: labkit.linalg.qr(a).R, lambda a: torch.linalg.qr(a).R,
             [rand_array((4, 3), 4)], rtol=1e-7, atol=1e-9)


def test_second_derivative():
    def f(lib, a):
        Q, R = lib.linalg.qr(a)
        (g,) = lib.autograd.grad((Q.sin().sum() + (R ** 2).sum()), a, create_graph=True)
        return g
    check_op(lambda a: f(labkit, a), lambda a: f(torch, a), [rand_array((4, 3), 5)],
             rtol=1e-6, atol=1e-8)


def test_torch_qr_some():
    A = rand_array((4, 2), 6)
    for some in (True, False):
        Q, R = labkit.qr(labkit.tensor(A), some=some)
        Qt, Rt = torch.qr(torch.tensor(A), some=some)
        np.testing.assert_allclose(Q.numpy(), Qt.numpy(), atol=1e-10)
        np.testing.assert_allclose(R.numpy(), Rt.numpy(), atol=1e-10)
    assert labkit.tensor(A).qr().Q.shape == (4, 2)


@pytest.mark.parametrize("make", [
    lambda lib: lib.linalg.qr(lib.ones(3)),
    lambda lib: lib.linalg.qr(lib.ones(2, 2), mode="x"),
    lambda lib: lib.linalg.qr(lib.ones(3, 3, dtype=lib.int64)),
    lambda lib: lib.linalg.qr(lib.ones(4, 3, requires_grad=True), mode="complete").Q.sum().backward(),
    lambda lib: lib.linalg.qr(lib.ones(4, 3, requires_grad=True) * 2, mode="r").R.sum().backward(),
])
def test_errors(make):
    msgs = []
    for lib in (labkit, torch):
        with pytest.raises(RuntimeError) as info:
            make(lib)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]
