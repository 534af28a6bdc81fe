"""torch.gradient against torch: uniform and per-dim spacing, coordinate tensors (uneven),
edge_order 1 and 2, dim forms, integer input, dtypes, gradients through it, and errors."""
import pytest

from snippets import check

pytest.importorskip("torch")

F1 = "L.tensor([1., 4., 9., 16., 25.], dtype=L.float64).requires_grad_()"
F2 = "(L.arange(20., dtype=L.float64).reshape(4, 5) ** 1.5).requires_grad_()"
COORDS = "L.tensor([0., 1., 3., 6., 10.], dtype=L.float64)"


@pytest.mark.parametrize("edge", [1, 2])
@pytest.mark.parametrize("f,kw", [
    (F1, ""), (F1, "spacing=2."), (F1, f"spacing=({COORDS},)"), (F1, f"spacing=[{COORDS}]"),
    (F2, ""), (F2, "dim=1"), (F2, "dim=[1, 0]"), (F2, "spacing=[2., 0.5]"),
    (F2, "spacing=3, dim=-1"), (F2, f"spacing=[{COORDS}], dim=1"),
    (F2, "spacing=(L.tensor([0., 1., 2., 4.], dtype=L.float64), "
         "L.tensor([0., .5, 1., 2., 3.], dtype=L.float64))"),
])
def test_gradient(f, kw, edge):
    check(f"x = {f}; leaves = [x]; out = L.gradient(x, {kw + ', ' if kw else ''}"
          f"edge_order={edge})")


@pytest.mark.parametrize("code", [
    "L.gradient(L.tensor([1, 4, 9]))",
    "L.gradient(L.tensor([1., 4, 9]), spacing=(L.tensor([0, 1, 3]),))",
    "L.gradient(L.tensor([1., 4, 9]), spacing=(L.tensor([0., 1, 3], dtype=L.float64),))",
    "L.gradient(L.ones(1))", "L.gradient(L.ones(2), edge_order=2)",
    "L.gradient(L.ones(3, 3), spacing=[2.])", "L.gradient(L.ones(3, 3), spacing=[2.], dim=[0, 1])",
    "L.gradient(L.ones(3), edge_order=3)",
])
def test_gradient_forms_and_errors(code):
    check(f"out = {code}")
