"""select/slice/diagonal/masked_scatter and renorm against torch: values, shapes, dtypes,
gradients to both inputs, second derivatives, and the errors torch raises."""
import pytest

from snippets import check

pytest.importorskip("torch")

SETUP = ("L.manual_seed(0); x = L.randn({xs}, dtype=L.float64).requires_grad_(); "
         "s = L.randn({ss}, dtype=L.float64).requires_grad_(); leaves = [x, s]; ")

CASES = [
    ("3, 4", "4", "L.select_scatter(x, s, 0, 1)"),
    ("3, 4", "3", "x.select_scatter(s, 1, -1)"),
    ("2, 3, 4", "2, 4", "L.select_scatter(x, s, 1, 2)"),
    ("4", "", "L.select_scatter(x, s, 0, 3)"),
    ("3, 4", "3, 2", "L.slice_scatter(x, s, 1, 0, 4, 2)"),
    ("3, 4", "1, 4", "L.slice_scatter(x, s, start=2)"),
    ("3, 4", "0, 4", "L.slice_scatter(x, s, 0, 1, 1)"),
    ("3, 4", "3, 1", "x.slice_scatter(s, dim=-1, start=-1)"),
    ("5", "2", "L.slice_scatter(x, s, 0, 1, None, 3)"),
    ("3, 4", "3", "L.diagonal_scatter(x, s, 1)"),
    ("3, 4", "2", "L.diagonal_scatter(x, s, -1)"),
    ("2, 3, 3", "3, 2", "L.diagonal_scatter(x, s, 0, 0, 2)"),
    ("3, 4", "10", "x.masked_scatter(L.tensor([[True, False, True, False]]), s)"),
    ("4", "2, 5", "x.masked_scatter(L.tensor([[True, False, True, False]] * 3), s)"),
    ("3, 4", "2", "x.masked_scatter(L.zeros(3, 4, dtype=L.bool), s)"),
    ("3, 4", "12", "x.masked_scatter(L.ones(3, 4, dtype=L.bool), s)"),
    ("3, 4", "6", "x.clone().masked_scatter_(L.tensor([True, False, True, False]), s)"),
]


@pytest.mark.parametrize("xs,ss,code", CASES)
def test_scatter_into_values_and_gradients(xs, ss, code):
    check(SETUP.format(xs=xs, ss=ss) + f"out = {code}")


@pytest.mark.parametrize("xs,ss,code", CASES[:4] + CASES[9:10] + CASES[12:13])
def test_scatter_into_second_derivatives(xs, ss, code):
    check(SETUP.format(xs=xs, ss=ss) + f"y = {code}; "
          "gx, gs = L.autograd.grad((y * y).sum(), [x, s], create_graph=True); out = (gx, gs)")


@pytest.mark.parametrize("code", [
    "L.select_scatter(L.zeros(3, 4), L.ones(3), 0, 1)",
    "L.select_scatter(L.zeros(3, 4), L.ones(1, 4), 0, 1)",
    "L.select_scatter(L.zeros(3, 4), L.ones(4), 0, 3)",
    "L.slice_scatter(L.zeros(3, 4), L.ones(3, 3), 1, 0, 4, 2)",
    "L.diagonal_scatter(L.zeros(3, 4), L.ones(4))",
    "L.zeros(3, 4).masked_scatter(L.tensor([[True, False, True, False]]), L.arange(5.))",
    "L.zeros(3, 4).masked_scatter(L.tensor([[1, 0, 1, 0]]), L.arange(20.))",
    "L.zeros(3, 4).masked_scatter(L.tensor([[True, False, True, False]]), L.arange(20))",
    "L.zeros(4).masked_scatter_(L.tensor([[True, False, True, False]] * 2), L.arange(20.))",
])
def test_scatter_into_errors(code):
    check(f"out = {code}")


@pytest.mark.parametrize("p", [2, 1, 3.5, float("inf")])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("maxnorm", [0.0, 1.5, 100.0])
def test_renorm_values_gradients_and_second_derivatives(p, dim, maxnorm):
    check(f"L.manual_seed(1); x = L.randn(3, 4, dtype=L.float64).requires_grad_(); "
          f"leaves = [x]; y = x.renorm({p}, {dim}, {maxnorm}); "
          "g, = L.autograd.grad((y * y.detach()).sum(), x, create_graph=True); out = (y, g)")


@pytest.mark.parametrize("code", [
    "L.randn(2, 3).renorm(0, 0, 5)", "L.randn(2, 3).renorm(2, 0, -1)",
    "L.randn(3).renorm(2, 0, 1)", "L.randn(2, 3).renorm(2, 2, 1)",
    "L.tensor([[1., 2.], [30., 40.]]).renorm_(2, 0, 5)",
    "L.tensor([[1., 2.], [30., 40.]], dtype=L.float16).renorm(2, 1, 5)",
])
def test_renorm_edges_and_errors(code):
    check(f"out = {code}")
