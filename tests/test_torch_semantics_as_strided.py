"""as_strided against torch: views of the storage with any geometry (the default offset is
the tensor's own, windows overlap), writes through them, the gradient (overlaps add up) and
its second derivative, bounds errors; and apply_/map_ (a Python function per element)."""
import pytest

from snippets import check

pytest.importorskip("torch")

CASES = [
    ("b", "(2, 2), (1, 2)"), ("b", "(3, 2), (1, 1)"), ("b[1:]", "(2, 2), (1, 1)"),
    ("b[1:]", "(2,), (2,), 0"), ("b", "(2, 3), (3, 1)"), ("b", "(6,), (1,)"),
    ("b", "(2, 2, 2), (2, 1, 1)"), ("b", "(0, 3), (1, 1)"), ("b", "(), ()"),
    ("b.reshape(2, 3)", "(3, 2), (1, 3)"), ("b.reshape(2, 3)[1]", "(2,), (1,)"),
    ("b", "(4,), (0,)"), ("b", "(2,), (1,), 4"),
]


@pytest.mark.parametrize("base,geometry", CASES)
def test_as_strided_values_and_gradients(base, geometry):
    check("x = L.arange(6., dtype=L.float64).requires_grad_(); leaves = [x]; b = x * 1; "
          f"v = {base}; out = (v.as_strided({geometry}), L.as_strided(v, {geometry}))")


@pytest.mark.parametrize("base,geometry", CASES[:4])
def test_as_strided_second_derivative(base, geometry):
    check("x = L.arange(6., dtype=L.float64).requires_grad_(); leaves = [x]; b = x * x; "
          f"y = ({base}).as_strided({geometry}); "
          "g, = L.autograd.grad((y * y).sum(), x, create_graph=True); out = g")


@pytest.mark.parametrize("code", [
    "b.as_strided((3, 3), (2, 1))", "b.as_strided((2,), (1,), 5)", "b.as_strided((2,), (1, 1))",
    "b.as_strided((2,), (1,), -1)",
])
def test_as_strided_errors(code):
    check(f"b = L.arange(6.); out = {code}")


def test_writes_through_an_as_strided_view_reach_the_tensor():
    check("b = L.arange(6.); v = b.as_strided((2, 2), (1, 2)); v[0, 1] = 100.; "
          "out = (b, v, v._version == b._version)")
    check("b = L.arange(12.).reshape(3, 4).t(); out = (b.as_strided((2, 2), (1, 1)), "
          "b.contiguous().as_strided((2, 2), (1, 1)))")


@pytest.mark.parametrize("code", [
    "x = L.arange(4.); r = x.apply_(lambda v: v * 2 + 0.7); out = (x, r is x)",
    "x = L.arange(3); out = x.apply_(lambda v: v * 1.9)",
    "x = L.ones(3, dtype=L.bool); out = x.apply_(lambda v: not v)",
    "x = L.ones(2, 3); out = x.map_(L.arange(3.), lambda a, b: a + b)",
    "x = L.arange(6.).reshape(2, 3); v = x[1]; v.apply_(lambda a: -a); out = x",
    "out = L.ones(2, requires_grad=True).apply_(lambda v: v)",
    "out = L.ones(2).map_(L.ones(2, 2), lambda a, b: a)",
])
def test_apply_and_map(code):
    check(code)
