"""scatter/scatter_(..., reduce='add' | 'multiply'), the older spelling of scatter_reduce,
against torch: repeated indices, a number src, dims, dtypes, and the refusal of other
reduce names."""
import pytest

from snippets import check

pytest.importorskip("torch")


@pytest.mark.parametrize("reduce", ["'add'", "'multiply'"])
@pytest.mark.parametrize("call", [
    "x.scatter_(0, L.tensor([0, 0, 2]), L.tensor([2., 3., 4.]), reduce={r})",
    "x.scatter(0, L.tensor([0, 0, 2]), L.tensor([2., 3., 4., 9.]), reduce={r})",
    "x.scatter_(0, L.tensor([1, 1]), 5., reduce={r})",
    "x.scatter(0, L.tensor([2]), value=-2., reduce={r})",
    "L.scatter(x, 0, L.tensor([0, 2, 2, 2]), L.tensor([1., 2., 3., 4.]), reduce={r})",
    "y.scatter_(1, L.tensor([[0, 0], [1, 0]]), L.tensor([[2, 3], [4, 5]]), reduce={r})",
    "y.scatter(0, L.tensor([[1, 1, 0]]), 3, reduce={r})",
])
def test_scatter_with_reduce(call, reduce):
    check("x = L.tensor([1.5, 2., -1.]); y = L.arange(6).reshape(2, 3); v = x[:2]; "
          f"r = {call.format(r=reduce)}; out = (r, x, y, v)")


@pytest.mark.parametrize("code", [
    "L.ones(3).scatter_(0, L.tensor([0]), L.ones(1), reduce='max')",
    "L.ones(3).scatter(0, L.tensor([0]), L.ones(1), reduce='sum')",
    "L.ones(3).scatter_(0, L.tensor([0]), L.ones(1, dtype=L.float64), reduce='add')",
])
def test_scatter_reduce_keyword_errors(code):
    check(f"out = {code}")
