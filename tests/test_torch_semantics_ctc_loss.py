"""ctc_loss / nn.CTCLoss against torch: padded and concatenated targets, repeated labels
(a blank must separate them), another blank index, lengths as tensors or tuples, unbatched
input, reductions, impossible targets (inf, or 0 with zero_infinity), gradients, errors."""
import pytest

from snippets import check

pytest.importorskip("torch")

SETUP = ("L.manual_seed({seed}); lp = L.randn({T}, {N}, {C}, dtype=L.{dt}).log_softmax(2)"
         ".requires_grad_(); leaves = [lp]; ")

CASES = [
    # seed, T, N, C, dtype, targets, input_lengths, target_lengths, kwargs
    (0, 6, 3, 4, "float64", "L.tensor([[1, 2, 3], [2, 2, 0], [3, 1, 1]])", "L.tensor([6, 5, 6])",
     "L.tensor([3, 2, 3])", ""),
    (1, 8, 2, 5, "float64", "L.tensor([[1, 1, 2, 2], [4, 3, 4, 4]])", "(8, 7)", "(4, 3)", ""),
    (2, 5, 2, 3, "float32", "L.tensor([[1, 2], [2, 1]])", "L.tensor([5, 4])",
     "L.tensor([2, 1])", ", reduction='sum'"),
    (3, 6, 2, 4, "float64", "L.tensor([1, 2, 3, 3, 1])", "L.tensor([6, 6])", "L.tensor([3, 2])",
     ", reduction='none'"),
    (4, 7, 2, 4, "float64", "L.tensor([[0, 1, 2], [2, 0, 0]])", "L.tensor([7, 5])",
     "L.tensor([3, 1])", ", blank=3"),
    (5, 6, 3, 4, "float64", "L.tensor([[1, 2, 3], [2, 2, 0], [3, 1, 1]])", "L.tensor([6, 5, 2])",
     "L.tensor([3, 2, 3])", ", reduction='none', zero_infinity=True"),
    (6, 4, 2, 3, "float64", "L.tensor([[1, 2], [0, 0]])", "L.tensor([4, 3])", "L.tensor([2, 0])",
     ", reduction='none'"),
]


@pytest.mark.parametrize("seed,T,N,C,dt,targets,il,tl,kw", CASES)
def test_ctc_loss(seed, T, N, C, dt, targets, il, tl, kw):
    check(SETUP.format(seed=seed, T=T, N=N, C=C, dt=dt) +
          f"out = L.nn.functional.ctc_loss(lp, {targets}, {il}, {tl}{kw})")


def test_ctc_module_unbatched_and_impossible():
    check(SETUP.format(seed=0, T=6, N=1, C=4, dt="float64") +
          "m = L.nn.CTCLoss(blank=0, zero_infinity=True); "
          "out = (m(lp[:, 0], L.tensor([1, 2, 3]), L.tensor(6), L.tensor(3)), repr(m))")
    check("L.manual_seed(0); lp = L.randn(3, 2, 4, dtype=L.float64).log_softmax(2); "
          "out = L.nn.functional.ctc_loss(lp, L.tensor([[1, 1, 1], [1, 2, 3]]), L.tensor([3, 3]), "
          "L.tensor([3, 3]), reduction='none')")


@pytest.mark.parametrize("code", [
    "L.nn.functional.ctc_loss(lp, L.tensor([[1, 2]]), L.tensor([7]), L.tensor([2]))",
    "L.nn.functional.ctc_loss(lp, L.tensor([[1, 2]]), L.tensor([6]), L.tensor([3]))",
])
def test_ctc_errors(code):
    check("lp = L.randn(6, 1, 4).log_softmax(2); out = " + code)
