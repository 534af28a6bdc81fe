"""max_unpool1d/2d/3d and nn.MaxUnpool*d against torch: each pooled value back at its
maximum's position (output_size, stride, padding, batchless input), gradients (a gather) and
second derivatives, errors."""
import pytest

from snippets import check

pytest.importorskip("torch")

CASES = [
    ("2d", "1, 2, 4, 4", "2", "2", ""), ("2d", "1, 2, 5, 5", "2", "2", ", output_size=(5, 5)"),
    ("2d", "2, 1, 6, 6", "3", "2", ""), ("2d", "2, 6, 6", "2", "2", ""),
    ("2d", "1, 1, 5, 5", "3", "1", ", padding=1"), ("1d", "1, 2, 7", "2", "2", ""),
    ("1d", "1, 2, 7", "3", "2", ", output_size=[1, 2, 7]"), ("3d", "1, 1, 4, 4, 4", "2", "2", ""),
    ("2d", "1, 2, 4, 6", "(2, 3)", "(2, 3)", ""),
]


@pytest.mark.parametrize("d,shape,k,s,extra", CASES)
def test_max_unpool(d, shape, k, s, extra):
    pad = ", padding=1" if "padding" in extra else ""
    size = extra if "output_size" in extra else ""
    check(f"L.manual_seed(0); x = L.randn({shape}, dtype=L.float64).requires_grad_(); "
          f"leaves = [x]; y, i = L.nn.functional.max_pool{d}(x, {k}, {s}{pad}, "
          f"return_indices=True); u = L.nn.functional.max_unpool{d}(y, i, {k}, {s}{extra}); "
          f"m = L.nn.MaxUnpool{d}({k}, {s}{pad}); out = (u, m(y, i{size}), repr(m))")


def test_max_unpool_second_derivative():
    check("L.manual_seed(0); x = L.randn(1, 1, 4, 4, dtype=L.float64).requires_grad_(); "
          "leaves = [x]; y, i = L.nn.functional.max_pool2d(x, 2, return_indices=True); "
          "u = L.nn.functional.max_unpool2d(y * y, i, 2); "
          "g, = L.autograd.grad((u * u).sum(), x, create_graph=True); out = g")


@pytest.mark.parametrize("code", [
    "L.nn.functional.max_unpool2d(y, i, 2, output_size=(9, 9))",
    "L.nn.functional.max_unpool2d(y, i.float(), 2)",
    "L.nn.functional.max_unpool2d(y, i.clamp(max=3) * 30, 2)",
    "L.nn.functional.max_unpool2d(y, i, 2, output_size=(4, 4, 4))",
])
def test_max_unpool_errors(code):
    check("L.manual_seed(0); y, i = L.nn.functional.max_pool2d(L.randn(1, 2, 4, 4), 2, "
          f"return_indices=True); out = {code}")
