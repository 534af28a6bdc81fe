"""frexp, ldexp, nextafter, isposinf/isneginf/isreal, gcd and lcm against torch: values,
dtypes (frexp's int32 exponent, ldexp's float promotion), broadcasting, the gradient of ldexp,
and torch's refusals (integers for frexp/nextafter, floats and bools for gcd)."""
import pytest

from snippets import check

pytest.importorskip("torch")

FLOATS = "L.tensor([1.5, -8., 0., -0., 3e-40, float('inf'), -float('inf'), float('nan')], " \
         "dtype=L.{dt})"


@pytest.mark.parametrize("dt", ["float16", "float32", "float64"])
def test_frexp_and_back(dt):
    x = FLOATS.format(dt=dt)
    check(f"x = {x}; m, e = L.frexp(x); r = x.frexp(); "
          "out = (m, e, r.mantissa, r.exponent, L.ldexp(m, e))")


@pytest.mark.parametrize("code", [
    "L.ldexp(L.tensor([1., 2.]), L.tensor([2, 3]))",
    "L.ldexp(L.tensor([1, 2]), L.tensor([2, 3]))",
    "L.ldexp(L.tensor([[1.], [2.]], dtype=L.float64), L.tensor([2, -1]))",
    "L.ldexp(L.tensor(3.), L.tensor([0, 1, 2]))",
    "L.ldexp(L.tensor([1., 2.]), 3)",
    "L.tensor([1., 2.]).ldexp_(L.tensor([1, 1]))",
    "L.tensor([1, 2]).ldexp_(L.tensor([1, 1]))",
    "L.frexp(L.tensor([1, 2]))",
    "L.frexp(L.zeros(0, 3))",
])
def test_ldexp_frexp_edges(code):
    check(f"out = {code}")


@pytest.mark.parametrize("other", ["L.tensor([1, 0, 3])", "L.tensor([1., -2.5, 3.], "
                                   "dtype=L.float64).requires_grad_()"])
def test_ldexp_gradient(other):
    """(Not at negative integer exponents: there torch's gradient for x is 0, a flaw of its
    formula, which raises 2 to the exponent in integers; labkit's is 2**other.)"""
    check(f"L.manual_seed(0); x = L.randn(3, dtype=L.float64).requires_grad_(); e = {other}; "
          "leaves = [x] + ([e] if e.requires_grad else []); out = L.ldexp(x, e)")


def test_ldexp_gradient_at_negative_integer_exponents_is_two_to_the_exponent():
    import labkit
    x = labkit.tensor([1., 2.], dtype=labkit.float64, requires_grad=True)
    labkit.ldexp(x, labkit.tensor([-2, -1])).sum().backward()
    assert x.grad.tolist() == [0.25, 0.5]


@pytest.mark.parametrize("code", [
    "L.nextafter(L.tensor([1.0, 0.0, -1.0]), L.tensor([2.0, 1.0, -2.0])) - "
    "L.tensor([1.0, 0.0, -1.0])",
    "L.nextafter(L.tensor([1.0], dtype=L.float64), L.tensor(0.0, dtype=L.float64))",
    "L.nextafter(L.tensor([1.0]), L.tensor([1.0]))",
    "L.nextafter(L.tensor([1]), L.tensor([2]))",
    "L.nextafter(L.tensor([1.0]), 2.0)",
    "L.tensor([1.0, 2.0]).nextafter_(L.tensor([3.0, 0.0]))",
])
def test_nextafter(code):
    check(f"out = {code}")


@pytest.mark.parametrize("make", [FLOATS.format(dt="float32"), "L.tensor([1, -2])",
                                  "L.tensor([True])", "L.zeros(0)", "L.tensor(float('-inf'))"])
def test_infinity_and_real_questions(make):
    check(f"x = {make}; out = (L.isposinf(x), x.isneginf(), L.isreal(x))")


@pytest.mark.parametrize("code", [
    "L.gcd(L.tensor([12, -18, 0, 7]), L.tensor([8, 12, 0, -21]))",
    "L.lcm(L.tensor([4, -6, 0, 7]), L.tensor([6, 4, 5, -21]))",
    "L.gcd(L.tensor([12, 20], dtype=L.int8), L.tensor(8))",
    "L.gcd(L.tensor([[12], [9]]), L.tensor([8, 6, 3]))",
    "L.lcm(L.tensor([3], dtype=L.int16), L.tensor([4], dtype=L.int32))",
    "L.tensor([12, 18]).gcd_(L.tensor([8, 12]))",
    "L.tensor([4, 6]).lcm_(L.tensor([6, 4]))",
    "L.tensor([4]).gcd_(L.tensor([[2], [4]]))",
    "L.gcd(L.tensor([1.]), L.tensor([2.]))",
    "L.gcd(L.tensor([True]), L.tensor([True]))",
    "L.gcd(L.tensor([4]), 2)",
])
def test_gcd_lcm(code):
    check(f"out = {code}")
