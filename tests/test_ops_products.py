"""dot, bmm, addmm, baddbmm, outer and einsum against torch: values, gradients, second
derivatives, broadcasting, diagonals, ellipsis, edge shapes, errors."""
import numpy as np
import pytest

import labkit
from op_checks import arr, check_second, run

torch = pytest.importorskip("torch")

CASES = {
    "dot": (lambda M, a, b: M.dot(a, b), [(5,), (5,)]),
    "dot_empty": (lambda M, a, b: a.dot(b), [(0,), (0,)]),
    "bmm": (lambda M, a, b: M.bmm(a, b), [(2, 3, 4), (2, 4, 5)]),
    "bmm_size1": (lambda M, a, b: a.bmm(b), [(1, 1, 4), (1, 4, 1)]),
    "addmm": (lambda M, c, a, b: M.addmm(c, a, b), [(3, 5), (3, 4), (4, 5)]),
    "addmm_broadcast": (lambda M, c, a, b: M.addmm(c, a, b, beta=0.5, alpha=2.0),
                        [(5,), (3, 4), (4, 5)]),
    "addmm_method": (lambda M, c, a, b: c.addmm(a, b, alpha=-1), [(1, 5), (3, 4), (4, 5)]),
    "baddbmm": (lambda M, c, a, b: M.baddbmm(c, a, b, beta=2.0), [(2, 3, 5), (2, 3, 4), (2, 4, 5)]),
    "outer": (lambda M, a, b: M.outer(a, b), [(3,), (4,)]),
    "einsum_mm": (lambda M, a, b: M.einsum("ij,jk->ik", a, b), [(3, 4), (4, 5)]),
    "einsum_batch": (lambda M, a, b: M.einsum("bij,bjk->bik", a, b), [(2, 3, 4), (2, 4, 5)]),
    "einsum_implicit": (lambda M, a, b: M.einsum("ij,jk", a, b), [(3, 4), (4, 5)]),
    "einsum_outer": (lambda M, a, b: M.einsum("i,j->ij", a, b), [(3,), (4,)]),
    "einsum_sum": (lambda M, a: M.einsum("ij->", a), [(3, 4)]),
    "einsum_row_sum": (lambda M, a: M.einsum("ij->i", a), [(3, 4)]),
    "einsum_transpose": (lambda M, a: M.einsum("ij->ji", a), [(3, 4)]),
    "einsum_trace": (lambda M, a: M.einsum("ii", a), [(4, 4)]),
    "einsum_diag": (lambda M, a: M.einsum("ii->i", a), [(4, 4)]),
    "einsum_diag_batch": (lambda M, a, b: M.einsum("bii,bi->b", a, b), [(2, 3, 3), (2, 3)]),
    "einsum_only_here": (lambda M, a, b: M.einsum("ij,k->ik", a, b), [(3, 4), (5,)]),
    "einsum_ellipsis": (lambda M, a, b: M.einsum("...ij,...jk->...ik", a, b),
                        [(2, 3, 4), (4, 5)]),
    "einsum_ellipsis_broadcast": (lambda M, a, b: M.einsum("...ij,...jk", a, b),
                                  [(1, 3, 4), (2, 4, 5)]),
    "einsum_size1_broadcast": (lambda M, a, b: M.einsum("ij,ij->ij", a, b), [(1, 3), (2, 3)]),
    "einsum_list": (lambda M, a, b, c: M.einsum("ab,bc,cd->ad", [a, b, c]),
                    [(2, 3), (3, 4), (4, 2)]),
    "einsum_spaces": (lambda M, a, b: M.einsum("b i j , b j -> b i", a, b), [(2, 3, 4), (2, 4)]),
    "einsum_empty": (lambda M, a, b: M.einsum("ij,jk->ik", a, b), [(3, 0), (0, 2)]),
    "einsum_scalar": (lambda M, a, b: M.einsum(",i->i", a, b), [(), (3,)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_products(device, name):
    f, shapes = CASES[name]
    run(device, f, *[arr(s, i) for i, s in enumerate(shapes)])


@pytest.mark.parametrize("name", [n for n in sorted(CASES) if "empty" not in n])
def test_products_second_derivative(device, name):
    f, shapes = CASES[name]
    check_second(device, lambda M, *xs: f(M, *xs) ** 2,
                 *[arr(s, i + 3) for i, s in enumerate(shapes)])


def test_addmm_with_beta_zero_ignores_nan_in_input():
    c = np.full((2, 2), np.nan)
    a, b = arr((2, 3)), arr((3, 2), 1)
    run("cpu", lambda M, c, a, b: M.addmm(c, a, b, beta=0), c, a, b)


def test_integer_products():
    a, b = np.arange(6).reshape(2, 3), np.arange(6).reshape(3, 2)
    for f in (lambda M, a, b: M.einsum("ij,jk->ik", a, b), lambda M, a, b: M.dot(a[0], b[:, 0]),
              lambda M, a, b: M.outer(a[0], b[0])):
        got, want = f(labkit, labkit.tensor(a), labkit.tensor(b)), f(torch, torch.tensor(a),
                                                                    torch.tensor(b))
        assert got.tolist() == want.tolist() and got.dtype == labkit.int64


ERRORS = [
    lambda M: M.dot(M.zeros(3), M.zeros(4)),
    lambda M: M.dot(M.zeros(3, 1), M.zeros(3, 1)),
    lambda M: M.dot(M.zeros(3), M.zeros(3, dtype=M.float64)),
    lambda M: M.bmm(M.zeros(2, 3, 4), M.zeros(3, 4, 5)),
    lambda M: M.bmm(M.zeros(2, 3, 4), M.zeros(2, 3, 5)),
    lambda M: M.bmm(M.zeros(3, 4), M.zeros(4, 5)),
    lambda M: M.addmm(M.zeros(4, 5), M.zeros(3, 4), M.zeros(4, 5)),
    lambda M: M.einsum("ij,jk->ik", M.zeros(3, 4), M.zeros(5, 2)),
    lambda M: M.einsum("ij->ii", M.zeros(3, 3)),
    lambda M: M.einsum("ij", M.zeros(3)),
    lambda M: M.einsum("ij,jk->ik", M.zeros(3, 4)),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_like_torch(i):
    with pytest.raises(RuntimeError):
        ERRORS[i](torch)
    with pytest.raises(RuntimeError, match="dot|bmm|addmm|einsum"):
        ERRORS[i](labkit)
