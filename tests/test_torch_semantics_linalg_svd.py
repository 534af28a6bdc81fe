"""linalg.svd / svdvals / torch.svd against torch: singular values, the factors (up to the sign
of each singular pair, which LAPACK builds may choose differently), shapes with
full_matrices / some, batches and size-0 batches, gradients of sign-independent functions of
U and Vh (distinct singular values), second derivatives, and the errors."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")


def _signed(U, Vh):
    """Fix the sign of each singular pair: the largest-|.| entry of U's column positive."""
    if U.size == 0 or Vh.size == 0:
        return U, Vh
    idx = np.abs(U).argmax(-2)
    s = np.sign(np.take_along_axis(U, idx[..., None, :], -2))
    return U * s, Vh * np.swapaxes(s, -1, -2)


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 4, 4), (3, 1), (0, 3, 2), (2, 0, 3)])
@pytest.mark.parametrize("full", [False, True])
def test_factors_and_shapes(shape, full):
    A = rand_array(shape, 1)
    U, S, Vh = labkit.linalg.svd(labkit.tensor(A), full_matrices=full)
    Ut, St, Vht = torch.linalg.svd(torch.tensor(A), full_matrices=full)
    assert (tuple(U.shape), tuple(S.shape), tuple(Vh.shape)) == \
        (tuple(Ut.shape), tuple(St.shape), tuple(Vht.shape))
    np.testing.assert_allclose(S.numpy(), St.numpy(), rtol=1e-10, atol=1e-12)
    k = S.shape[-1]
    a, b = _signed(U.numpy()[..., :k], Vh.numpy()[..., :k, :])
    c, d = _signed(Ut.numpy()[..., :k], Vht.numpy()[..., :k, :])
    np.testing.assert_allclose(a, c, atol=1e-10)
    np.testing.assert_allclose(b, d, atol=1e-10)
    if full and A.size:      # the completed columns are orthonormal
        m = U.shape[-1]
        np.testing.assert_allclose(np.swapaxes(U.numpy(), -1, -2) @ U.numpy(),
                                   np.broadcast_to(np.eye(m), U.shape[:-2] + (m, m)), atol=1e-10)


def _weights(lib, like, seed):
    return lib.tensor(np.random.default_rng(seed).standard_normal(tuple(like.shape)),
                      device=like.device)


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3)])
@pytest.mark.parametrize("full", [False, True])
def test_gradients_of_sign_invariant_functions(shape, full, device):
    def f(lib, a):
        U, S, Vh = lib.linalg.svd(a, full_matrices=full)
        k = S.shape[-1]
        U, Vh = U[..., :k], Vh[..., :k, :]
        return ((U ** 2 * _weights(lib, U, 1)).sum() + (Vh ** 2 * _weights(lib, Vh, 2)).sum()
                + (S * _weights(lib, S, 3)).sum() + ((U * Vh.mT[..., :U.shape[-2], :]).sum()
                                                    if shape[-1] == shape[-2] else 0))
    check_op(lambda a: f(labkit, a), lambda a: f(torch, a), [rand_array(shape, 4)], rtol=1e-7,
             atol=1e-9, device=device)


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3), (0, 2, 2)])
def test_svdvals_and_its_second_derivative(shape, device):
    check_op(lambda a: labkit.linalg.svdvals(a), lambda a: torch.linalg.svdvals(a),
             [rand_array(shape, 5)], rtol=1e-8, atol=1e-10, device=device)

    def hess(lib, a):
        (g,) = lib.autograd.grad((lib.linalg.svdvals(a) ** 3).sum(), a, create_graph=True)
        return g
    check_op(lambda a: hess(labkit, a), lambda a: hess(torch, a), [rand_array(shape, 6)],
             rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("some", [True, False])
def test_torch_svd_legacy(some):
    A = rand_array((4, 3), 7)
    for cu in (True, False):
        U, S, V = labkit.svd(labkit.tensor(A), some=some, compute_uv=cu)
        Ut, St, Vt = torch.svd(torch.tensor(A), some=some, compute_uv=cu)
        assert [tuple(t.shape) for t in (U, S, V)] == [tuple(t.shape) for t in (Ut, St, Vt)]
        np.testing.assert_allclose(S.numpy(), St.numpy(), rtol=1e-10)
        if cu:
            a, b = _signed(U.numpy()[..., :3], V.numpy().T[:3])
            c, d = _signed(Ut.numpy()[..., :3], Vt.numpy().T[:3])
            np.testing.assert_allclose(a, c, atol=1e-10)
            np.testing.assert_allclose(b, d, atol=1e-10)
        else:
            assert not U.numpy().any() and not V.numpy().any()
    x = labkit.tensor(A)
    assert type(x.svd()).__name__ == "svd" and x.svd().V.shape == (3, 3)


def test_reconstruction_gradient_through_all_three_factors():
    def f(lib, a):
        U, S, Vh = lib.linalg.svd(a, full_matrices=False)
        return (U * S.unsqueeze(-2)) @ Vh
    check_op(lambda a: f(labkit, a), lambda a: f(torch, a), [rand_array((2, 5, 3), 8)],
             rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("make,exc", [
    (lambda lib: lib.linalg.svd(lib.ones(3)), RuntimeError),
    (lambda lib: lib.linalg.svd(lib.ones(3, 3, dtype=lib.int64)), RuntimeError),
    (lambda lib: lib.linalg.svdvals(lib.ones(2, 2, dtype=lib.int64)), RuntimeError),
    (lambda lib: lib.linalg.svd(lib.ones(3, 3, dtype=lib.float16)), NotImplementedError),
])
def test_errors(make, exc):
    msgs = []
    for lib in (labkit, torch):
        with pytest.raises(exc) as info:
            make(lib)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]
