"""multilabel_margin_loss / nn.MultiLabelMarginLoss and NLLLoss2d against torch: targets
ended by -1 (later entries ignored, repeats counted), reductions, 1-d input, gradients and
second derivatives, errors."""
import pytest

from snippets import check

pytest.importorskip("torch")

TARGETS = ["L.tensor([[3, 0, -1, 1], [1, 2, 3, -1]])", "L.tensor([[-1, 0, 1, 2], [0, 0, -1, 2]])",
           "L.tensor([[0, 1, 2, 3], [2, -1, -1, -1]])"]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_multilabel_margin_loss(target, reduction):
    check("L.manual_seed(0); x = L.randn(2, 4, dtype=L.float64).requires_grad_(); "
          f"leaves = [x]; y = {target}; "
          f"out = (L.nn.functional.multilabel_margin_loss(x, y, reduction='{reduction}'), "
          f"L.nn.MultiLabelMarginLoss(reduction='{reduction}')(x, y), "
          f"L.nn.functional.multilabel_margin_loss(x[1], y[1], reduction='{reduction}'))")


def test_first_derivative_of_a_composite_and_errors():
    """(torch has no second derivative of this loss; labkit's is that of its composition.)"""
    check("L.manual_seed(0); x = L.randn(2, 4, dtype=L.float64).requires_grad_(); leaves = [x]; "
          f"out = L.nn.functional.multilabel_margin_loss(x * x, {TARGETS[0]})")
    check("out = L.nn.functional.multilabel_margin_loss(L.randn(2, 4), L.zeros(2, 4))")
    check("out = L.nn.functional.multilabel_margin_loss(L.randn(2, 4), L.zeros(2, 3).long())")


def test_nll_loss_2d():
    check("L.manual_seed(0); x = L.randn(2, 3, 4, 4, dtype=L.float64).log_softmax(1)"
          ".requires_grad_(); leaves = [x]; t = L.randint(0, 3, (2, 4, 4)); "
          "m = L.nn.NLLLoss2d(); out = (m(x, t), repr(m))")
