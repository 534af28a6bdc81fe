"""A tensor as Python sees it, as torch's: bool/len/iter/format/float/int/index, comparisons
with non-numbers (NotImplemented, so x == None is False), assigning .grad (torch's checks),
.H/.mH, x.view(dtype) (the same bytes as another dtype), and tensor() of out-of-range ints."""
import pytest

from snippets import check

pytest.importorskip("torch")

CASES = [
    "out = bool(L.tensor([1.]))", "out = bool(L.tensor([1., 2.]))", "out = bool(L.tensor([]))",
    "out = len(L.tensor(3.))", "out = len(L.zeros(0, 3))", "out = [t for t in L.tensor(3.)]",
    "out = [1, 2, 3][L.tensor(1)]", "out = [1, 2, 3][L.tensor(1.)]", "out = list(range(L.tensor(3)))",
    "out = f'{L.tensor(3.14159):.2f}'", "out = f'{L.tensor([3.1]):.2f}'", "out = f'{L.tensor(3)}'",
    "out = float(L.tensor([[2.5]]))", "out = int(L.tensor([2.9]))", "out = float(L.tensor([1., 2.]))",
    "out = int(L.zeros(0))", "out = L.tensor([3, 4]).item()", "out = L.tensor([]).item()",
    "out = L.ones(2) == None", "out = L.ones(2) != None", "out = L.ones(2).__eq__('a')",
    "out = L.tensor([1, 2]) == [1, 2]", "out = L.ones(2) < 'a'", "out = L.ones(2) == L.ones(2)",
    "out = L.ones(2) == np.float64(1.)", "out = L.ones(2) >= np.array([1., 2.])",
    "x = L.ones(2, requires_grad=True); x.grad = L.ones(3); out = x.grad",
    "x = L.ones(2, requires_grad=True); x.grad = L.ones(2, dtype=L.float64); out = x.grad",
    "x = L.ones(2, requires_grad=True); x.grad = L.ones(2, dtype=L.long); out = x.grad",
    "x = L.ones(2, requires_grad=True); x.grad = [1, 2]; out = x.grad",
    "x = L.ones(2, requires_grad=True); x.grad = L.full((2,), 3.); out = x.grad",
    "x = L.ones(2, requires_grad=True); x.grad = L.full((2,), 3.); (x * x).sum().backward(); "
    "out = x.grad",
    "x = L.ones(2, requires_grad=True); (x * 2).sum().backward(); x.grad = None; out = x.grad",
    "x = L.ones(2, 3); out = (x.H, x.mH)", "out = L.ones(2, 3, 4).mH.shape",
    "out = L.ones(2, 3, 4).H", "out = L.ones(3).H", "out = L.ones(3).mH",
    "x = L.ones(2, 3, requires_grad=True); leaves = [x]; out = x.H * L.arange(6.).view(3, 2)",
    "out = L.arange(6, dtype=L.float32).view(L.int32)",
    "out = L.arange(6, dtype=L.float32).view(L.int16)",
    "out = L.arange(6, dtype=L.float32).view(L.float64)",
    "out = L.arange(6, dtype=L.float32).view(L.uint8).shape",
    "out = L.arange(6, dtype=L.float32).view(2, 3).t().view(L.int16)",
    "out = L.tensor(1.).view(L.int32)", "out = L.tensor(1.).view(L.int16)",
    "x = L.zeros(3); y = x.view(L.int32); y[0] = 1065353216; out = (x, x._version)",
    "x = L.arange(6., requires_grad=True); out = x.view(L.int32).requires_grad",
    "out = L.tensor(2**63)", "out = L.tensor([2**63 - 1])",
]


@pytest.mark.parametrize("code", CASES)
def test_cases(code):
    check(code)
