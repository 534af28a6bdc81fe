"""norm, linalg.vector_norm / matrix_norm / norm and logsumexp against torch: values, dtypes,
gradients (including at a zero vector), second derivatives, edge shapes, errors."""
import math

import numpy as np
import pytest

import labkit
from op_checks import arr, check_second, run
from snippets import check

torch = pytest.importorskip("torch")

VECTOR = {
    "norm": lambda M, x: x.norm(),
    "norm_fn_dim": lambda M, x: M.norm(x, dim=1),
    "norm_p1": lambda M, x: x.norm(p=1, dim=0, keepdim=True),
    "norm_p3": lambda M, x: M.norm(x, 3, dim=(0, 1)),
    "norm_fro": lambda M, x: x.norm("fro"),
    "vector_norm": lambda M, x: M.linalg.vector_norm(x),
    "vector_norm_inf": lambda M, x: M.linalg.vector_norm(x, ord=math.inf, dim=1),
    "vector_norm_ninf": lambda M, x: M.linalg.vector_norm(x, ord=-math.inf, dim=0),
    "vector_norm_0": lambda M, x: M.linalg.vector_norm(x, ord=0, dim=1),
    "vector_norm_half": lambda M, x: M.linalg.vector_norm(x, ord=0.5),
    "vector_norm_keepdim": lambda M, x: M.linalg.vector_norm(x, 2, dim=-1, keepdim=True),
    "linalg_norm": lambda M, x: M.linalg.norm(x),
    "linalg_norm_dim": lambda M, x: M.linalg.norm(x, dim=1),
    "linalg_norm_fro": lambda M, x: M.linalg.norm(x, "fro"),
    "linalg_norm_1": lambda M, x: M.linalg.norm(x, 1),
    "linalg_norm_inf": lambda M, x: M.linalg.norm(x, math.inf),
    "linalg_norm_m1": lambda M, x: M.linalg.norm(x, -1),
    "matrix_norm": lambda M, x: M.linalg.matrix_norm(x),
    "matrix_norm_ninf": lambda M, x: M.linalg.matrix_norm(x, -math.inf, keepdim=True),
    "logsumexp": lambda M, x: M.logsumexp(x, 1),
    "logsumexp_keep": lambda M, x: x.logsumexp(dim=0, keepdim=True),
    "logsumexp_dims": lambda M, x: M.logsumexp(x, (0, 1)),
}


@pytest.mark.parametrize("name", sorted(VECTOR))
def test_norms(device, name):
    run(device, VECTOR[name], arr((3, 4)))


@pytest.mark.parametrize("name", sorted(VECTOR))
def test_norms_second_derivative(device, name):
    check_second(device, VECTOR[name], arr((3, 4), 1))


@pytest.mark.parametrize("ord", [2, 1, 3, math.inf])
def test_norm_of_a_zero_vector_has_gradient_zero_like_torch(device, ord):
    run(device, lambda M, x: M.linalg.vector_norm(x, ord, dim=1), np.zeros((2, 3)))
    run(device, lambda M, x: x.norm(), np.zeros(3))


def test_norm_with_ties_shares_the_gradient_like_torch(device):
    x = np.array([[1.0, -3.0, 3.0], [2.0, 2.0, -2.0]])
    run(device, lambda M, x: M.linalg.vector_norm(x, math.inf, dim=1), x)
    run(device, lambda M, x: M.linalg.vector_norm(x, -math.inf, dim=1), x)


@pytest.mark.parametrize("shape", [(), (1,), (0,), (2, 0)], ids=str)
def test_norm_edge_shapes(device, shape):
    run(device, lambda M, x: x.norm(), arr(shape))
    run(device, lambda M, x: M.linalg.vector_norm(x, 1), arr(shape))


def test_norm_dtypes():
    x = labkit.ones(3, dtype=labkit.float64)
    assert x.norm().dtype == labkit.float64
    assert labkit.ones(3).norm(dtype=labkit.float64).dtype == labkit.float64
    with pytest.raises(RuntimeError):
        torch.ones(3, dtype=torch.long).norm()
    with pytest.raises(RuntimeError, match="floating-point"):
        labkit.ones(3, dtype=labkit.int64).norm()


@pytest.mark.parametrize("ord", ["nuc", 2, -2])
def test_singular_value_matrix_norms_match_torch(ord):
    """The nuclear and spectral norms (sums / extremes of the singular values, linalg.svd)."""
    torch = pytest.importorskip("torch")
    a = [[1.0, 2.0], [3.0, 4.0]]
    for fn in ("norm", "matrix_norm"):
        mine = getattr(labkit.linalg, fn)(labkit.tensor(a), ord)
        ref = getattr(torch.linalg, fn)(torch.tensor(a), ord)
        np.testing.assert_allclose(mine.numpy(), ref.numpy(), rtol=1e-6)


@pytest.mark.parametrize("data", [
    [[1000.0, 1000.0], [-1000.0, 0.0]],            # no overflow
    [[-math.inf, -math.inf], [-math.inf, 1.0]],    # a row of -inf gives -inf
    [[math.inf, 1.0], [0.0, 1.0]],                 # +inf gives +inf
])
def test_logsumexp_is_stable(data):
    got = labkit.logsumexp(labkit.tensor(data), 1)
    want = torch.logsumexp(torch.tensor(data), 1)
    np.testing.assert_allclose(got.numpy(), want.numpy())


def test_logsumexp_edges(device):
    run(device, lambda M, x: M.logsumexp(x, 0), arr(()))
    run(device, lambda M, x: M.logsumexp(x, 1), arr((3, 0)))
    run(device, lambda M, x: M.logsumexp(x, 0), arr((0, 3)))
    got, want = labkit.logsumexp(labkit.tensor([1, 2]), 0), torch.logsumexp(torch.tensor([1, 2]), 0)
    assert got.dtype == labkit.float32 and abs(got.item() - want.item()) < 1e-6


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.0, math.inf])
@pytest.mark.parametrize("shapes", [((4, 3), (5, 3)), ((2, 4, 3), (2, 5, 3)), ((0, 3), (2, 3))],
                         ids=str)
def test_cdist(device, p, shapes):
    run(device, lambda M, a, b: M.cdist(a, b, p=p), arr(shapes[0]), arr(shapes[1], 1))
    if 0 not in shapes[0] and p not in (0.0, math.inf):
        # torch has no double backward for cdist: its vector_norm of the differences is the
        # oracle for the second derivative
        def f(M, a, b):
            if M is labkit:
                return M.cdist(a, b, p=p)
            return M.linalg.vector_norm(a.unsqueeze(-2) - b.unsqueeze(-3), p, dim=-1)
        check_second(device, f, arr(shapes[0]), arr(shapes[1], 1))


def test_cdist_of_a_point_to_itself_has_gradient_zero_like_torch(device):
    a = arr((3, 2))
    run(device, lambda M, a: M.cdist(a, a), a)


def test_cdist_errors():
    for M in (torch, labkit):
        with pytest.raises(RuntimeError):
            M.cdist(M.zeros(3, 2), M.zeros(3, 4))


@pytest.mark.parametrize("ord", [-1.0, -0.5, float("inf"), float("-inf"), 0.0, 1.0, 2.0])
@pytest.mark.parametrize("dim", [0, 2, None, (0, 1)])
def test_vector_norm_over_an_empty_result_or_an_empty_dim(ord, dim):
    """Fuzz: a min/max-like norm of (1, 1, 0) over dim 0 is an empty result, which torch
    gives; only reducing over the empty dim itself has no identity (torch's RuntimeError)."""
    check(f"x = L.zeros(1, 1, 0, dtype=L.float64).requires_grad_(); leaves = [x]; "
          f"out = L.linalg.vector_norm(x, {ord}, dim={dim})")
